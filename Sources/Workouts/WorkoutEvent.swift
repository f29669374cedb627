
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
    }

    public var time: Duration
    public var kind: Kind

    public init(time: Duration, kind: Kind) {
        self.time = time
        self.kind = kind
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
        }
    }
}
