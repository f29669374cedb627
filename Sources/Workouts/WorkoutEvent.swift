
/// Something that happened during a workout, at `time` (offset from the session anchor).
public struct WorkoutEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case pause
        case resume
        case lap
        /// A new activity began (multisport).
        case activity(WorkoutActivityType)
        /// A sensor stopped sending (link lost); the name is the session's key for it (`power`).
        case sensorLost(String)
        case sensorRegained(String)
        /// A sensor's values stopped or started counting: it reports no contact, sends invalid
        /// values, went stale, or notifies valid values again.
        case sensorState(String, SensorState)
    }

    /// Who made a pause, resume or lap: the person (keys, a signal, the API), the workout's own
    /// rules (auto-pause, auto-lap), or the plan (`step`: a timed step's time was up).
    public enum Cause: String, Sendable, Hashable {
        case manual, auto, step
    }

    public var time: Duration
    public var kind: Kind
    /// For pauses, resumes and laps; `.manual` for the others.
    public var cause: Cause

    public init(time: Duration, kind: Kind, cause: Cause = .manual) {
        self.time = time
        self.kind = kind
        self.cause = cause
    }

    /// The event's name in JSON (`pause`, `sensorLost`, ...).
    public var name: String {
        switch kind {
        case .pause: "pause"
        case .resume: "resume"
        case .lap: "lap"
        case .activity: "activity"
        case .sensorLost: "sensorLost"
        case .sensorRegained: "sensorRegained"
        case .sensorState: "sensorState"
        }
    }
}
