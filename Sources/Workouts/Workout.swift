public import Foundation
public import SensorCore
public import Zones

/// A finished workout: what `LiveWorkoutBuilder.finishWorkout()` returns, what the store keeps
/// and what `replay --json` prints. Times are offsets from the session anchor.
public struct Workout: Sendable, Equatable {
    /// Wall-clock time of `start`.
    public var startDate: Date
    public var start: Duration
    public var end: Duration
    /// Time not paused between start and end.
    public var activeDuration: Duration
    /// Paused spans, in order.
    public var pauses: [Range<Duration>]
    /// The activity's type, or `.multisport` for several activities.
    public var activityType: WorkoutActivityType
    public var statistics: WorkoutStatistics
    /// Time in zone over the whole workout, by quantity type (heart rate, cycling power).
    public var zoneGroupsByType: [QuantityType: WorkoutZoneGroup]
    /// The activities, in order; one for a single-sport workout. They cover the workout.
    public var activities: [WorkoutActivity]
    /// Laps, in order; they cover the workout (one lap when nobody pressed lap).
    public var laps: [Range<Duration>]
    /// Pauses, resumes, laps, activity changes and sensor lost/regained, in order.
    public var events: [WorkoutEvent]
    /// Every change of the current zone, in order of processing.
    public var zoneUpdates: [ZoneUpdate]
    /// Every sample received between start and end (paused ones included), for storage and re-bucketing.
    public var samples: [Sample]
    /// The sensors by id, with the session's key for each (`hr`, `power`).
    public var sensors: [SensorID: String]
    /// Time in each state (notifying, no contact, stale, lost, ...) by the session's key of each
    /// sensor, over the workout.
    public var sensorStates: [String: [SensorState: Duration]]
    /// The profile and power-zone model in effect when the workout was recorded; nil for a
    /// workout stored before SensorBridge kept them (store migration 5).
    public var profile: WorkoutProfile?
    /// The target zones the rider was coached to (`record --target-hr-zone`), by quantity type.
    public var targets: [WorkoutTarget]
    /// The structured workout ridden (`record --plan`), nil for none.
    public var plan: WorkoutPlan?
    /// The plan's steps as ridden, one per lap from the first, with the time each met its target.
    public var steps: [WorkoutStepResult]

    public var duration: Duration { end - start }

    public init(
        startDate: Date, start: Duration, end: Duration, activeDuration: Duration, pauses: [Range<Duration>],
        activityType: WorkoutActivityType, statistics: WorkoutStatistics,
        zoneGroupsByType: [QuantityType: WorkoutZoneGroup], activities: [WorkoutActivity], laps: [Range<Duration>],
        events: [WorkoutEvent], zoneUpdates: [ZoneUpdate], samples: [Sample], sensors: [SensorID: String],
        sensorStates: [String: [SensorState: Duration]] = [:], profile: WorkoutProfile? = nil,
        targets: [WorkoutTarget] = [], plan: WorkoutPlan? = nil, steps: [WorkoutStepResult] = []
    ) {
        self.startDate = startDate
        self.start = start
        self.end = end
        self.activeDuration = activeDuration
        self.pauses = pauses
        self.activityType = activityType
        self.statistics = statistics
        self.zoneGroupsByType = zoneGroupsByType
        self.activities = activities
        self.laps = laps
        self.events = events
        self.zoneUpdates = zoneUpdates
        self.samples = samples
        self.sensors = sensors
        self.sensorStates = sensorStates
        self.profile = profile
        self.targets = targets
        self.plan = plan
        self.steps = steps
    }

    /// For each target, the time in its zones and its share of the active time (nil for a
    /// quantity the workout has no zones of).
    public func timeInTargets() -> [(target: WorkoutTarget, time: Duration, share: Double)] {
        targets.compactMap { target in
            zoneGroupsByType[target.quantityType].map { group in
                let (time, share) = target.timeInTarget(group, activeDuration: activeDuration)
                return (target, time, share)
            }
        }
    }
}

/// One activity of a workout (the bike or the run of a multisport workout).
public struct WorkoutActivity: Sendable, Hashable {
    public var activityType: WorkoutActivityType
    public var start: Duration
    public var end: Duration
    /// Time in zone within this activity, by quantity type.
    public var zoneGroupsByType: [QuantityType: WorkoutZoneGroup]

    public init(
        activityType: WorkoutActivityType, start: Duration, end: Duration,
        zoneGroupsByType: [QuantityType: WorkoutZoneGroup]
    ) {
        self.activityType = activityType
        self.start = start
        self.end = end
        self.zoneGroupsByType = zoneGroupsByType
    }
}

extension CalendarDate {
    /// The day `date` falls on in `calendar` (its time zone); nil outside years 1...9999.
    public init?(_ date: Date, in calendar: Calendar) {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        self.init(year: year, month: month, day: day)
    }
}
