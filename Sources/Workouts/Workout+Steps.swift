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

/// A step as ridden, with what a summary shows of it: the plan's step, the lap's span and active
/// time, and the share of that time in target.
public struct RiddenStep: Sendable, Equatable {
    /// From 1, the step's place in the plan's sequence.
    public var number: Int
    public var planned: WorkoutPlan.Planned
    /// The lap the step was, an index of `Workout.laps`.
    public var lap: Int
    public var span: Range<Duration>
    /// Its time not paused.
    public var activeDuration: Duration
    /// Nil for a step that asks nothing.
    public var timeInTarget: Duration?
    /// `timeInTarget` over `activeDuration`; nil with no target or no active time.
    public var share: Double? {
        guard let timeInTarget, activeDuration > .zero else { return nil }
        return min(timeInTarget / activeDuration, 1)
    }
}

extension Workout {
    /// The plan's steps as ridden, in order (none without a plan).
    public var riddenSteps: [RiddenStep] {
        guard let plan else { return [] }
        let sequence = plan.sequence
        return steps.compactMap { result in
            guard result.step < sequence.count, result.lap < laps.count else { return nil }
            let span = laps[result.lap]
            let active = activePieces(of: span).reduce(Duration.zero) { $0 + ($1.upperBound - $1.lowerBound) }
            return RiddenStep(
                number: result.step + 1, planned: sequence[result.step], lap: result.lap, span: span, activeDuration: active,
                timeInTarget: result.timeInTarget)
        }
    }

    /// The share of the steps' active time in target, over the steps that have a target; nil when none has.
    public var planShareInTarget: Double? {
        let judged = riddenSteps.filter { $0.timeInTarget != nil }
        let active = judged.reduce(Duration.zero) { $0 + $1.activeDuration }
        guard active > .zero else { return nil }
        return judged.reduce(Duration.zero) { $0 + ($1.timeInTarget ?? .zero) } / active
    }
}
