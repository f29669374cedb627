public import Workouts
public import SensorCore
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

        /// When the next connection attempt comes, for a connecting or lost sensor.
        public var retryIn: Duration? {
            switch self {
            case .connecting(let retry), .lost(let retry): retry
            case .connected, .stale, .noContact, .invalid: nil
            }
        }
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

    /// The plan's step under way (`--plan`).
    public struct Step: Sendable, Equatable {
        /// From 1, of `count`.
        public var number: Int
        public var count: Int
        public var name: String?
        /// The target in words, watts for the FTP: `88-94% of FTP (220-235 W)`, `free`.
        public var target: String
        /// What the target asks now (a ramp's band moves), nil for none.
        public var goal: StepGoal?
        /// Active time into the step, and what is left of it (nil for an open step: until the lap key).
        public var elapsed: Duration
        public var timeLeft: Duration?
        /// The next step in words (`5:00, 55% of FTP (138 W)`); nil after the last.
        public var next: String?
        /// Below, in or above the target at the latest value; nil without one (or without target).
        public var judgement: StepGoal.Judgement?
        /// How long out of the target (nil: in it, paused, or unknown).
        public var outFor: Duration?
        /// Out for the debounce time or longer: highlighted, and the bell rings once.
        public var alert: Bool
        public var paused: Bool

        /// The step `coach` has under way at `now`; nil once the plan is done. `fresh`: whether a
        /// value of the goal's quantity holds at `now` (else the judgement is unknown).
        public init?(_ coach: StepCoach, at now: Duration, fresh: (QuantityType) -> Bool = { _ in true }) {
            guard let current = coach.current else { return nil }
            let goal = coach.goal(at: now)
            let holds = goal.map { fresh($0.quantityType) } ?? false
            number = coach.index + 1
            count = coach.sequence.count
            name = current.step.name
            target = PlanText.describe(current.step, ftp: coach.functionalThresholdPower)
            self.goal = goal
            elapsed = coach.elapsed(at: now)
            timeLeft = coach.timeLeft(at: now)
            next = coach.next.map { PlanText.brief($0.step, ftp: coach.functionalThresholdPower) }
            judgement = holds ? coach.judgement : nil
            outFor = holds ? coach.outFor(at: now) : nil
            alert = holds && coach.alerting(at: now)
            paused = coach.isPaused
        }
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
    /// For % of maximum heart rate, in bpm: the profile's measured maximum, else its estimate.
    public var maximumHeartRate: Double?
    /// Calories so far (`WorkoutStatistics.calories`: the strap's count, the pedals' work, else from
    /// heart rate for the profile's sex, weight and age), and the class points of the time in each
    /// heart-rate zone (`ZonePoints`); nil without them.
    public var calories: Double?
    public var zonePoints: Double?
    /// The rider's weight in kg, for W/kg.
    public var weight: Int?
    /// The target zones, each with whether the rider is out of it and for how long.
    public var targets: [Target] = []
    /// The plan's step under way; nil without a plan or once it is done.
    public var step: Step?
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
