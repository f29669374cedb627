public import Foundation
import SensorCore
public import Workouts
public import Zones

/// A finished workout's training load, for `workouts load`.
public struct WorkoutLoadListing: Sendable, Hashable {
    public let id: WorkoutID
    public let startDate: Date
    public let activityType: WorkoutActivityType
    /// The athlete it was recorded for; nil for the box's own profile.
    public let athlete: AthleteName?
    /// Without an intensity class (the zone groups are not read for a history). For a workout of
    /// several activities selected by an activity type, the load of those activities.
    public let load: WorkoutLoad
}

extension Workout {
    /// The workout's training load, activity by activity (`trainingLoad(athlete:on:)`), with the
    /// profile it was recorded with. `now` is its rider's profile as it is now
    /// (`WorkoutStore.profileNow(of:)`): a workout stored before workouts kept their profile uses
    /// it whole; one recorded without an FTP or a lactate-threshold heart rate borrows the one set
    /// since, and its load says so (`WorkoutLoad.thresholdsSetLater`). Nothing is stored.
    /// - Parameter day: the workout's day, for an age from a birth date.
    /// - Parameter heartRateHold: the zone rule's hold for heart rate the workout was stored with.
    /// - Parameter summaries: `activitySummaries()`, when the caller has them already.
    public func load(
        now: WorkoutProfile? = nil, on day: CalendarDate?, heartRateHold: Duration? = nil, summaries: [WorkoutSpanSummary]? = nil
    ) -> WorkoutLoad {
        guard let profile else { return trainingLoad(athlete: now?.athlete, on: day, heartRateHold: heartRateHold, summaries: summaries) }
        let (athlete, later) = Self.thresholdsSetLater(profile.athlete, now: now?.athlete)
        var load = trainingLoad(athlete: athlete, on: day, heartRateHold: heartRateHold, summaries: summaries)
        load.markSetLater(later)
        return load
    }

    /// `recorded` with the thresholds it lacks taken from `now`, and those taken.
    static func thresholdsSetLater(_ recorded: AthleteProfile, now: AthleteProfile?) -> (AthleteProfile, WorkoutLoad.Thresholds) {
        var athlete = recorded
        var later = WorkoutLoad.Thresholds()
        if athlete.functionalThresholdPower == nil, let ftp = now?.functionalThresholdPower {
            athlete.functionalThresholdPower = ftp
            later.functionalThresholdPower = ftp
        }
        if athlete.lactateThresholdHeartRate == nil, let lthr = now?.lactateThresholdHeartRate {
            athlete.lactateThresholdHeartRate = lthr
            later.lactateThresholdHeartRate = lthr
        }
        return (athlete, later)
    }
}

extension WorkoutStore {
    /// The profile `athlete` has now, the box's own for nil: what a workout's load borrows a
    /// threshold set after it from (`Workout.load(now:on:)`). Nil for an athlete removed since.
    public func profileNow(of athlete: AthleteName?) throws(WorkoutStoreError) -> WorkoutProfile? {
        guard let athlete else { return WorkoutProfile(try preferences()) }
        return try self.athlete(named: athlete).map { WorkoutProfile($0.preferences) }
    }

    /// The training load of each finished workout `filter` selects, in order of their start, with
    /// the profile each was recorded with and its rider's profile now (`Workout.load(now:on:)`: the
    /// whole of it for a workout stored before migration 5, the thresholds set since for one
    /// recorded without them). `calendar` gives each workout's day. A workout of one activity is
    /// read from its stored statistics and time at each heart-rate value; one of several is read
    /// whole and its load is the sum of its activities' (`Workout.trainingLoad`), and when `filter`
    /// names an activity type, of those activities only (the run of a bike-and-run).
    public func workoutLoads(matching filter: WorkoutFilter = WorkoutFilter(), calendar: Calendar) throws(WorkoutStoreError)
        -> [WorkoutLoadListing]
    {
        typealias Row = (
            id: Int64, start: Date, type: WorkoutActivityType, active: Duration, np: Double?, hold: Duration, activities: Int64,
            athlete: AthleteName?
        )
        let rows = try perform {
            var rows: [Row] = []
            try connection.statement(
                """
                SELECT w.id, w.start_date, w.activity_type, w.active_duration_ns, s.power_normalized, w.heart_rate_hold_ns,
                    (SELECT COUNT(*) FROM activities a WHERE a.workout_id = w.id), w.athlete
                FROM workouts w LEFT JOIN workout_statistics s ON s.workout_id = w.id
                WHERE w.duration_ns IS NOT NULL AND \(WorkoutFilter.sql(first: 1, connection.dialect))
                ORDER BY w.start_date, w.id
                """
            ).forEachRow(arguments: try arguments(of: filter)) { row in
                rows.append(
                    (row.int64(0), Date(timeIntervalSinceReferenceDate: row.double(1)), try activityType(row.text(2)),
                     .nanoseconds(row.int64(3)), row.optionalDouble(4), .nanoseconds(row.int64(5)), row.int64(6),
                     row.optionalText(7).flatMap(AthleteName.init(rawValue:))))
            }
            return rows
        }
        var now: [AthleteName?: WorkoutProfile] = [:]
        for athlete in Set(rows.map(\.athlete)) { now[athlete] = try profileNow(of: athlete) }
        return try perform {
            let heartRates = try connection.statement(
                "SELECT value, duration_ns FROM zone_value_durations WHERE workout_id = ? AND quantity_type = ?")
            return try rows.map { row in
                let day = CalendarDate(row.start, in: calendar)
                var load: WorkoutLoad
                if row.activities > 1 {
                    let workout = try readWorkout(WorkoutID(row.id))
                    load = workout.load(now: now[row.athlete], on: day, heartRateHold: row.hold)
                    if let type = filter.activityType {
                        let parts = zip(workout.activities, load.activities).filter { $0.0.activityType == type }.map(\.1)
                        if parts.count < load.activities.count {
                            let later = load.thresholdsSetLater
                            load = WorkoutLoad(summing: parts, athlete: nil)
                            load.functionalThresholdPower = parts.first?.functionalThresholdPower
                            load.markSetLater(later)
                        }
                    }
                    load.intensity = nil
                } else {
                    var times: [(value: Double, duration: Duration)] = []
                    try heartRates.forEachRow(row.id, Int64(QuantityType.heartRate.rawValue)) {
                        times.append(($0.double(0), .nanoseconds($0.int64(1))))
                    }
                    let recorded = try profile(of: row.id)
                    let (athlete, later) =
                        recorded.map { Workout.thresholdsSetLater($0.athlete, now: now[row.athlete]?.athlete) }
                        ?? (now[row.athlete]?.athlete, WorkoutLoad.Thresholds())
                    load = WorkoutLoad(
                        activeDuration: row.active, normalizedPower: row.np, heartRateTimes: times, zoneGroups: [:],
                        athlete: athlete, on: day)
                    load.markSetLater(later)
                }
                return WorkoutLoadListing(
                    id: WorkoutID(row.id), startDate: row.start, activityType: row.type, athlete: row.athlete, load: load)
            }
        }
    }
}
