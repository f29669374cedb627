public import SensorCore
public import Workouts

/// What travels from a producer (a BlueZ thread, a replay reader) to the workout engine through
/// a sample ring: a sample, or a control event stamped with its time. Small and `BitwiseCopyable`.
public enum SessionItem: Sendable, BitwiseCopyable {
    case sample(Sample)
    case control(SessionControl)

    public var time: Duration {
        switch self {
        case .sample(let s): s.time
        case .control(let c): c.time
        }
    }
}

/// A control event in the session's item stream.
public struct SessionControl: Sendable, BitwiseCopyable, Equatable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        case pause, resume, lap, activity, disconnected, connected, malformed, end
        /// The sensor's heart rates stopped counting: its strap reports no skin contact.
        case noContact
        /// The sensor's values stopped counting: they are outside what it could measure.
        case invalidValues
    }

    public var kind: Kind
    public var time: Duration
    /// The sensor for `disconnected`, `connected`, `malformed`, `noContact` and `invalidValues`.
    public var sensor: SensorID
    /// The new activity's type for `activity`.
    public var activityType: WorkoutActivityType

    public init(_ kind: Kind, at time: Duration, sensor: SensorID = SensorID(0), activityType: WorkoutActivityType = .other) {
        self.kind = kind
        self.time = time
        self.sensor = sensor
        self.activityType = activityType
    }
}
