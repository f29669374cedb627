import SensorCore
import Workouts
import Zones

/// Keeping `ValueDurations` in `zone_value_durations`.
extension ValueDurations {
    /// Writes the durations of the zoned quantities in `samples` for `workout`.
    static func insert(
        _ samples: [Sample], workout: Int64, start: Duration, timeline: WorkoutTimeline,
        holds: [QuantityType: Duration], into connection: any StoreDatabase
    ) throws {
        let statement = try connection.statement(
            "INSERT INTO zone_value_durations (workout_id, quantity_type, value, duration_ns) VALUES (?, ?, ?, ?)")
        for type in zonedTypes {
            let durations = ValueDurations(
                samples, of: type, start: start, timeline: timeline,
                hold: holds[type] ?? ZoneClassifier.defaultMaximumHold(for: type))
            for (value, duration) in zip(durations.values, durations.durations) {
                try statement.run(workout, Int64(type.rawValue), value, duration)
            }
        }
    }

    /// The quantity types that have zones.
    static let zonedTypes: [QuantityType] = [.heartRate, .cyclingPower]

    /// Migration 2: computes the durations of every finished workout from its stored samples.
    static func backfill(_ connection: SQLiteConnection) throws {
        var workouts: [(id: Int64, start: Duration, holds: [QuantityType: Duration])] = []
        try connection.statement(
            """
            SELECT id, anchor_offset_ns, heart_rate_hold_ns, power_hold_ns FROM workouts
            WHERE duration_ns IS NOT NULL ORDER BY id
            """
        ).forEachRow { row in
            workouts.append(
                (
                    row.int64(0), .nanoseconds(row.int64(1)),
                    [.heartRate: .nanoseconds(row.int64(2)), .cyclingPower: .nanoseconds(row.int64(3))]
                ))
        }
        for workout in workouts {
            let timeline = try WorkoutStore.timeline(of: workout.id, start: workout.start, in: connection)
            let samples = try SampleChunk.samples(of: workout.id, start: workout.start, in: connection, path: connection.path)
            try insert(
                samples, workout: workout.id, start: workout.start, timeline: timeline, holds: workout.holds,
                into: connection)
        }
    }
}
