public import Workouts
import SensorCore
public import Zones

/// What the live `record` dashboard shows at one moment: a snapshot, built by `DashboardModel`
/// and drawn by `DashboardRenderer`. Plain values only, so frames are easy to test.
public struct DashboardState: Sendable, Equatable {
    /// The zones of one quantity (heart rate, power) at the snapshot.
    public struct Zones: Sendable, Equatable {
        public var configuration: WorkoutZoneConfiguration
        /// The current zone, nil when there is none (no sample yet, or the sensor went stale).
        public var current: Int?
        /// How long the quantity has been in `current` (active time since it entered it).
        public var inZoneFor: Duration
        /// Time in each zone so far, by zone index.
        public var durations: [Duration]
        /// Of a multisport workout, time in each zone in the activity under way.
        public var activityDurations: [Duration]? = nil
    }

    /// The activity under way of a multisport workout.
    public struct Activity: Sendable, Equatable {
        public var type: WorkoutActivityType
        /// From 1.
        public var number: Int
        /// Active time since it began.
        public var elapsed: Duration
        /// What the next-activity key begins; nil after the planned ones.
        public var next: WorkoutActivityType?

        public init(type: WorkoutActivityType, number: Int, elapsed: Duration, next: WorkoutActivityType?) {
            self.type = type
            self.number = number
            self.elapsed = elapsed
            self.next = next
        }
    }

    /// A sensor's link as the person sees it.
    public enum Link: Sendable, Equatable {
        /// Not connected yet; after a failed attempt the next comes in `retryIn`.
        case connecting(retryIn: Duration?)
        case connected
        /// Connected, but a measurement has been silent past its staleness; subscribed to again.
        case stale
        /// A heart-rate strap that reports no skin contact: its values do not count.
        case noContact
        /// Values no sensor could measure: they do not count.
        case invalid
        /// The link dropped; the next attempt comes in `retryIn` (nil: under way).
        case lost(retryIn: Duration?)
    }

    public struct Sensor: Sendable, Equatable {
        /// The session's key (`hr`, `power`).
        public var key: String
        public var name: String
        public var link: Link
        /// Battery level in percent (Battery Level 0x2A19), read once after connecting.
        public var battery: Int?
    }

    /// Averages of a span of active time.
    public struct Figures: Sendable, Equatable {
        public var heartRate: Double?
        public var power: Double?
        public var normalizedPower: Double?
        /// Work in kJ.
        public var energy: Double?

        public init(heartRate: Double? = nil, power: Double? = nil, normalizedPower: Double? = nil, energy: Double? = nil) {
            self.heartRate = heartRate
            self.power = power
            self.normalizedPower = normalizedPower
            self.energy = energy
        }

        public init(_ statistics: WorkoutStatistics) {
            self.init(
                heartRate: statistics.heartRate?.average, power: statistics.cyclingPower?.average,
                normalizedPower: statistics.cyclingPower?.normalized, energy: statistics.cyclingPower?.energy)
        }
    }

    public struct Target: Sendable, Equatable {
        public var target: WorkoutTarget
        public var currentZone: Int?
        /// How long the rider has been out of the target (nil: in it, paused, or no zone).
        public var outFor: Duration?
        /// Out for the debounce time or longer: highlighted, and the bell rings once.
        public var alert: Bool
        /// Paused: the target is not judged, in or out.
        public var paused = false
    }

    /// Time since the recording started.
    public var elapsed: Duration = .zero
    /// `elapsed` without pauses.
    public var active: Duration = .zero
    /// The latest values, nil when none arrived in the last few seconds: bpm, W, W (3 s mean), rpm.
    public var heartRate: Double?
    public var power: Double?
    public var power3s: Double?
    public var power10s: Double?
    public var cadence: Double?
    /// DFA α1 of the latest 2-minute window of RR intervals (DESIGN 3, "DFA α1"), nil when none came
    /// in the last `DashboardModel.alpha1Lifetime`.
    public var dfaAlpha1: Double?
    /// Averages so far of the ride and of the lap under way.
    public var ride = Figures()
    public var lapFigures = Figures()
    /// For %FTP and IF, in W.
    public var functionalThresholdPower: Int?
    /// The target zones, each with whether the rider is out of it and for how long.
    public var targets: [Target] = []
    /// Zones of the zoned quantities that have a configuration, heart rate first.
    public var zones: [Zones] = []
    public var sensors: [Sensor] = []
    /// The latest message for the person (a connection failure, say).
    public var message: String?
    /// The relay's line (`RelayStatus.summary`), with `--relay`.
    public var relay: String?
    /// Paused, with the cause (`manual`, `auto`); nil while running.
    public var paused: WorkoutEvent.Cause?
    /// The activity under way, for a multisport workout (planned, or with an activity begun).
    public var activity: Activity?
    /// The lap under way, from 1.
    public var lap = 1
    /// Active time since the lap began (pauses left out, as the stored lap's duration).
    public var lapElapsed = Duration.zero
    /// Whether the keys work (standard input is the terminal): the line that names them is drawn.
    public var keys = false
}
