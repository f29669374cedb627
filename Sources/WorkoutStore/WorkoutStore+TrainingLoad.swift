public import Foundation
public import SensorCore
public import Workouts
public import Zones

/// A finished workout's training load, for `workouts load`.
public struct WorkoutLoadListing: Sendable, Hashable {
    public let id: WorkoutID
    public let startDate: Date
    public let activityType: WorkoutActivityType
    /// Without an intensity class (the zone groups are not read for a history).
    public let load: WorkoutLoad
}

extension Workout {
    /// The active time the zone rule credits to each distinct value of `type`, by increasing value:
    /// what `zone_value_durations` keeps for a stored workout. `hold` is the zone rule's (the
    /// default for the type when nil).
    public func timeAtEachValue(of type: QuantityType, hold: Duration? = nil) -> [(value: Double, duration: Duration)] {
        guard let timeline = try? WorkoutTimeline(start: start, end: end, pauses: pauses) else { return [] }
        let durations = ValueDurations(
            samples, of: type, start: start, timeline: timeline, hold: hold ?? ZoneClassifier.defaultMaximumHold(for: type))
        return zip(durations.values, durations.durations).map { ($0, .nanoseconds($1)) }
    }

    /// The workout's training load with the profile it was recorded with, else `fallback` (the
    /// person's profile now, for a workout stored before workouts kept theirs).
    /// - Parameter day: the workout's day, for an age from a birth date.
    public func load(fallback: WorkoutProfile? = nil, on day: CalendarDate?) -> WorkoutLoad {
        WorkoutLoad(
            activeDuration: activeDuration, normalizedPower: statistics.cyclingPower?.normalized,
            heartRateTimes: timeAtEachValue(of: .heartRate), zoneGroups: zoneGroupsByType,
            athlete: (profile ?? fallback)?.athlete, on: day)
    }
}

extension WorkoutStore {
    /// The training load of each finished workout `filter` selects, in order of their start, from the
    /// stored statistics, time at each heart-rate value and the profile each was recorded with
    /// (`fallback` for a workout stored before migration 5). `calendar` gives each workout's day.
    public func workoutLoads(
        matching filter: WorkoutFilter = WorkoutFilter(), calendar: Calendar, fallback: WorkoutProfile?
    ) throws(WorkoutStoreError) -> [WorkoutLoadListing] {
        try perform {
            var rows: [(id: Int64, start: Date, type: WorkoutActivityType, active: Duration, np: Double?)] = []
            try connection.statement(
                """
                SELECT w.id, w.start_date, w.activity_type, w.active_duration_ns, s.power_normalized
                FROM workouts w LEFT JOIN workout_statistics s ON s.workout_id = w.id
                WHERE w.duration_ns IS NOT NULL AND \(WorkoutFilter.sql(first: 1, connection.dialect))
                ORDER BY w.start_date, w.id
                """
            ).forEachRow(arguments: try arguments(of: filter)) { row in
                rows.append(
                    (row.int64(0), Date(timeIntervalSinceReferenceDate: row.double(1)), try activityType(row.text(2)),
                     .nanoseconds(row.int64(3)), row.optionalDouble(4)))
            }
            let heartRates = try connection.statement(
                "SELECT value, duration_ns FROM zone_value_durations WHERE workout_id = ? AND quantity_type = ?")
            return try rows.map { row in
                var times: [(value: Double, duration: Duration)] = []
                try heartRates.forEachRow(row.id, Int64(QuantityType.heartRate.rawValue)) { times.append(($0.double(0), .nanoseconds($0.int64(1)))) }
                let day = CalendarDate(row.start, in: calendar)
                let load = WorkoutLoad(
                    activeDuration: row.active, normalizedPower: row.np, heartRateTimes: times, zoneGroups: [:],
                    athlete: (try profile(of: row.id) ?? fallback)?.athlete, on: day)
                return WorkoutLoadListing(id: WorkoutID(row.id), startDate: row.start, activityType: row.type, load: load)
            }
        }
    }
}
