import Workouts
import SensorCore
import Zones

/// What the live `record` dashboard shows at one moment: a snapshot, built by `DashboardModel`
/// and drawn by `DashboardRenderer`. Plain values only, so frames are easy to test.
struct DashboardState: Sendable, Equatable {
    /// The zones of one quantity (heart rate, power) at the snapshot.
    struct Zones: Sendable, Equatable {
        var configuration: WorkoutZoneConfiguration
        /// The current zone, nil when there is none (no sample yet, or the sensor went stale).
        var current: Int?
        /// How long the quantity has been in `current` (active time since it entered it).
        var inZoneFor: Duration
        /// Time in each zone so far, by zone index.
        var durations: [Duration]
    }

    /// A sensor's link as the person sees it.
    enum Link: Sendable, Equatable {
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

    struct Sensor: Sendable, Equatable {
        /// The session's key (`hr`, `power`).
        var key: String
        var name: String
        var link: Link
        /// Battery level in percent (Battery Level 0x2A19), read once after connecting.
        var battery: Int?
    }

    /// Averages of a span of active time.
    struct Figures: Sendable, Equatable {
        var heartRate: Double?
        var power: Double?
        var normalizedPower: Double?
        /// Work in kJ.
        var energy: Double?

        init(heartRate: Double? = nil, power: Double? = nil, normalizedPower: Double? = nil, energy: Double? = nil) {
            self.heartRate = heartRate
            self.power = power
            self.normalizedPower = normalizedPower
            self.energy = energy
        }

        init(_ statistics: WorkoutStatistics) {
            self.init(
                heartRate: statistics.heartRate?.average, power: statistics.cyclingPower?.average,
                normalizedPower: statistics.cyclingPower?.normalized, energy: statistics.cyclingPower?.energy)
        }
    }

    struct Target: Sendable, Equatable {
        var target: WorkoutTarget
        var currentZone: Int?
        /// How long the rider has been out of the target (nil: in it, paused, or no zone).
        var outFor: Duration?
        /// Out for the debounce time or longer: highlighted, and the bell rings once.
        var alert: Bool
        /// Paused: the target is not judged, in or out.
        var paused = false
    }

    /// Time since the recording started.
    var elapsed: Duration = .zero
    /// `elapsed` without pauses.
    var active: Duration = .zero
    /// The latest values, nil when none arrived in the last few seconds: bpm, W, W (3 s mean), rpm.
    var heartRate: Double?
    var power: Double?
    var power3s: Double?
    var power10s: Double?
    var cadence: Double?
    /// Averages so far of the ride and of the lap under way.
    var ride = Figures()
    var lapFigures = Figures()
    /// For %FTP and IF, in W.
    var functionalThresholdPower: Int?
    /// The target zones, each with whether the rider is out of it and for how long.
    var targets: [Target] = []
    /// Zones of the zoned quantities that have a configuration, heart rate first.
    var zones: [Zones] = []
    var sensors: [Sensor] = []
    /// The latest message for the person (a connection failure, say).
    var message: String?
    /// The relay's line (`RelayStatus.summary`), with `--relay`.
    var relay: String?
    /// Paused, with the cause (`manual`, `auto`); nil while running.
    var paused: WorkoutEvent.Cause?
    /// The lap under way, from 1.
    var lap = 1
    /// Active time since the lap began (pauses left out, as the stored lap's duration).
    var lapElapsed = Duration.zero
    /// Whether the keys work (standard input is the terminal): the line that names them is drawn.
    var keys = false
}
