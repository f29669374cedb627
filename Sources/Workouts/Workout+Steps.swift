import SensorCore
import Zones

/// One step of a plan as ridden (DESIGN.md §3 "Workout plans"): the lap it was, its place in the
/// plan's sequence, and how long its target was met.
public struct WorkoutStepResult: Sendable, Hashable {
    /// The lap, an index of `Workout.laps` (step n is lap n).
    public var lap: Int
    /// The step, an index of `WorkoutPlan.sequence`.
    public var step: Int
    /// Active time the target was met; nil for a step that asks nothing (free ride) or whose
    /// target could not be made concrete (% of FTP without an FTP, zones without a configuration).
    public var timeInTarget: Duration?

    public init(lap: Int, step: Int, timeInTarget: Duration?) {
        self.lap = lap
        self.step = step
        self.timeInTarget = timeInTarget
    }
}

extension Workout {
    /// How often a step's target is judged: each second of active time, at its middle.
    public static let stepJudgingInterval = Duration.seconds(1)

    /// The steps of `plan` as ridden in this workout: lap n is step n, for as many laps as there
    /// are steps (laps after the plan was done are no step; steps not reached have no lap). A
    /// step's target is judged at the middle of each second of its active time, against the value
    /// held then (the zone rule's hold: 5 s heart rate, 3 s power; none after a sensor's values
    /// stopped counting), with the FTP of the workout's profile and its zones; each second met
    /// counts a second in target.
    public func stepResults(of plan: WorkoutPlan) -> [WorkoutStepResult] {
        let sequence = plan.sequence
        let ftp = profile?.athlete.functionalThresholdPower
        let zones = zoneGroupsByType.mapValues(\.configuration)
        let marked = samplesWithHoldEnds
        var byType: [QuantityType: [Sample]] = [:]
        return laps.indices.prefix(sequence.count).map { lap in
            let planned = sequence[lap].step
            let span = laps[lap]
            // Active instants (from the step's start) at the middle of each judged second, with their time.
            var instants: [(active: Duration, time: Duration)] = []
            var active = Duration.zero  // before the piece: pauses do not count
            for piece in activePieces(of: span) {
                var mark = piece.lowerBound + Self.stepJudgingInterval / 2
                while mark < piece.upperBound {
                    instants.append((active + (mark - piece.lowerBound), mark))
                    mark += Self.stepJudgingInterval
                }
                active += piece.upperBound - piece.lowerBound
            }
            guard let type = planned.goal(at: .zero, ftp: ftp, zones: zones)?.quantityType else {
                return WorkoutStepResult(lap: lap, step: lap, timeInTarget: nil)
            }
            if byType[type] == nil { byType[type] = marked.filter { $0.type == type } }
            let held = Self.heldValues(byType[type] ?? [], at: instants.map(\.time), hold: ZoneClassifier.defaultMaximumHold(for: type))
            var met = 0
            for (index, instant) in instants.enumerated() {
                guard let value = held[index], planned.goal(at: instant.active, ftp: ftp, zones: zones)?.judge(value) == .in else { continue }
                met += 1
            }
            return WorkoutStepResult(lap: lap, step: lap, timeInTarget: Self.stepJudgingInterval * met)
        }
    }

    /// `span` without the pauses, as the pieces of active time in it, in order.
    func activePieces(of span: Range<Duration>) -> [Range<Duration>] {
        var pieces: [Range<Duration>] = []
        var from = span.lowerBound
        for pause in pauses where pause.upperBound > span.lowerBound && pause.lowerBound < span.upperBound {
            if pause.lowerBound > from { pieces.append(from..<pause.lowerBound) }
            from = max(from, pause.upperBound)
        }
        if span.upperBound > from { pieces.append(from..<span.upperBound) }
        return pieces
    }
}
