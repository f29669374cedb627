public import Foundation
public import Workouts

/// A finished workout's best efforts, for `workouts best` and `profile suggest`.
public struct WorkoutBestEfforts: Sendable, Hashable {
    public let id: WorkoutID
    public let startDate: Date
    /// The athlete it was recorded for; nil for the box's own profile.
    public let athlete: AthleteName?
    public let efforts: BestEfforts
}

extension WorkoutStore {
    /// The best efforts of each finished workout `filter` selects (of the whole workout, whatever
    /// activity type the filter names), in order of their start: those stored with it, or for a
    /// workout stored before migration 13, worked out from its samples (nothing is written).
    public func bestEfforts(matching filter: WorkoutFilter = WorkoutFilter()) throws(WorkoutStoreError) -> [WorkoutBestEfforts] {
        try perform {
            var rows: [(id: Int64, start: Date, athlete: AthleteName?, measured: Bool)] = []
            try connection.statement(
                """
                SELECT w.id, w.start_date, w.athlete,
                    CASE WHEN COALESCE(s.heart_rate_count, 0) + COALESCE(s.power_count, 0) > 0 THEN 1 ELSE 0 END
                FROM workouts w LEFT JOIN workout_statistics s ON s.workout_id = w.id
                WHERE w.duration_ns IS NOT NULL AND \(WorkoutFilter.sql(first: 1, connection.dialect))
                ORDER BY w.start_date, w.id
                """
            ).forEachRow(arguments: try arguments(of: filter)) { row in
                rows.append(
                    (row.int64(0), Date(timeIntervalSinceReferenceDate: row.double(1)),
                     row.optionalText(2).flatMap(AthleteName.init(rawValue:)), row.int64(3) == 1))
            }
            let stored = try connection.statement(
                "SELECT kind, seconds, value, offset_ns FROM best_efforts WHERE workout_id = ? ORDER BY kind, seconds")
            return try rows.map { row in
                var efforts = BestEfforts()
                try stored.forEachRow(row.id) { effort in
                    let entry = BestEffort(seconds: Int(effort.int64(1)), value: effort.double(2), offset: .nanoseconds(effort.int64(3)))
                    switch effort.text(0) {
                    case "power": efforts.power.append(entry)
                    case "heartRate": efforts.heartRate.append(entry)
                    default: efforts.lowestHeartRate.append(entry)
                    }
                }
                if efforts.isEmpty, row.measured { efforts = try readWorkout(WorkoutID(row.id)).bestEfforts() }
                return WorkoutBestEfforts(id: WorkoutID(row.id), startDate: row.start, athlete: row.athlete, efforts: efforts)
            }
        }
    }
}
