public import SensorCore
public import Zones

/// The live coaching of a plan (DESIGN.md §3 "Workout plans"): which step is under way, how long
/// is left of it, and whether the rider holds its target, by `OutOfTargetClock`'s rule with each
/// sample of the target's quantity judged by `StepGoal` (as the stored steps' time in target is).
/// It follows the workout's laps, which the state machine makes at the steps' ends (step n is lap
/// n), and its pauses, from the builder's outputs. Pure; times are offsets from the session
/// anchor, active times without pauses.
public struct StepCoach: Sendable {
    public let sequence: [WorkoutPlan.Planned]
    public let functionalThresholdPower: Int?
    public let zones: [QuantityType: WorkoutZoneConfiguration]
    /// How long the rider may be out of the target before the alert.
    public let debounce: Duration
    /// The step under way, an index of `sequence`; `sequence.count` once the plan is done.
    public private(set) var index = 0
    /// The active time at the step's start.
    public private(set) var startActive = Duration.zero
    /// The step's start (its lap's), and the workout's time paused before the current pause.
    private var start = Duration.zero
    private var pausedBefore = Duration.zero
    private var pausedAt: Duration?
    /// The latest judgement of the step's target, nil before one (or for a step without target).
    public private(set) var judgement: StepGoal.Judgement?
    private var clock = OutOfTargetClock()

    public init(
        plan: WorkoutPlan, functionalThresholdPower: Int?, zones: [WorkoutZoneConfiguration],
        debounce: Duration = TargetZoneCoach.defaultDebounce
    ) {
        sequence = plan.sequence
        self.functionalThresholdPower = functionalThresholdPower
        self.zones = Dictionary(zones.map { ($0.quantityType, $0) }, uniquingKeysWith: { first, _ in first })
        self.debounce = debounce
    }

    /// The step under way, nil once the plan is done.
    public var current: WorkoutPlan.Planned? { index < sequence.count ? sequence[index] : nil }
    /// The step after it, nil at the last.
    public var next: WorkoutPlan.Planned? { index + 1 < sequence.count ? sequence[index + 1] : nil }

    /// The active time (without pauses) from the start to `time`.
    public func activeTime(at time: Duration) -> Duration {
        time - pausedBefore - (pausedAt.map { max(time - $0, .zero) } ?? .zero)
    }

    /// The goal of the step under way at `time`.
    public func goal(at time: Duration) -> StepGoal? {
        current?.step.goal(at: max(activeTime(at: time) - startActive, .zero), ftp: functionalThresholdPower, zones: zones)
    }

    /// A sample: judged when it is of the goal's quantity (not while paused).
    public mutating func add(_ sample: Sample) {
        guard pausedAt == nil, let goal = goal(at: sample.time), goal.quantityType == sample.type, !sample.value.isNaN else { return }
        judgement = goal.judge(sample.value)
        clock.judge(judgement == .in, at: sample.time)
    }

    /// The builder's pauses, resumes and laps; returns whether a step began.
    @discardableResult
    public mutating func apply(_ output: WorkoutBuilderOutput) -> Bool {
        guard case .event(let event) = output else { return false }
        switch event.kind {
        case .pause:
            pausedAt = event.time
            clock.pause()
        case .resume:
            if let pausedAt { pausedBefore += max(event.time - pausedAt, .zero) }
            pausedAt = nil
            clock.resume(at: event.time)
        case .lap, .activity:
            // A step ends with a lap that is one (the state machine's rule: not at the lap's very start).
            guard index < sequence.count, event.time > start else { return false }
            index += 1
            start = event.time
            startActive = activeTime(at: event.time)
            judgement = nil
            clock = OutOfTargetClock()
            if pausedAt != nil { clock.pause() }
            return true
        case .sensorLost, .sensorRegained, .sensorState:
            return false
        }
        return false
    }

    /// Nothing of the goal's quantity holds any more (a stale or lost sensor): unknown, no alert.
    public mutating func valueGone(at time: Duration) {
        judgement = nil
        clock.judge(nil, at: time)
    }

    /// Active time into the step at `now`.
    public func elapsed(at now: Duration) -> Duration { max(activeTime(at: now) - startActive, .zero) }

    /// Time left of the step at `now`; nil for an open step or after the plan.
    public func timeLeft(at now: Duration) -> Duration? {
        current?.step.timeLength.map { max($0 - elapsed(at: now), .zero) }
    }

    public func outFor(at now: Duration) -> Duration? { clock.outFor(at: now) }

    public func alerting(at now: Duration) -> Bool { clock.alerting(at: now, debounce: debounce) }

    public var isPaused: Bool { clock.isPaused }
}
