import Foundation
import SensorCore
public import Workouts
import Zones

extension WorkoutStore {
    /// The stored workout `id`, equal to the one that was saved. Its `profile` is nil when it was
    /// stored before the store kept one (migration 5).
    ///
    /// - Throws: `.notFound`, `.recording` for a workout being recorded now, `.unfinished` for a
    ///   recording that stopped before it was finished, `.invalidData` for rows outside the model.
    public func workout(_ id: WorkoutID) throws(WorkoutStoreError) -> Workout {
        try perform { try readWorkout(id) }
    }

    /// `workout(_:)` within a read the caller performs.
    func readWorkout(_ id: WorkoutID) throws -> Workout {
        do {
            let row = try connection.statement(
                """
                SELECT start_date, anchor_offset_ns, duration_ns, active_duration_ns, activity_type FROM workouts
                WHERE id = ?
                """
            ).firstRow(id.rawValue) {
                (
                    Date(timeIntervalSinceReferenceDate: $0.double(0)), Duration.nanoseconds($0.int64(1)),
                    $0.optionalInt64(2), $0.optionalInt64(3), $0.text(4)
                )
            }
            guard let (startDate, start, durationNanoseconds, activeNanoseconds, activityName) = row else {
                throw WorkoutStoreError.notFound(id)
            }
            guard let durationNanoseconds, let activeNanoseconds else {
                guard let recording = recordingProcess(id) else { throw WorkoutStoreError.unfinished(id) }
                let bridge = try connection.statement("SELECT bridge FROM workouts WHERE id = ?").firstRow(id.rawValue) {
                    $0.optionalText(0)
                }
                throw WorkoutStoreError.recording(id, bridge: bridge.flatMap { $0 }, processID: recording.processID)
            }
            let workoutID = id.rawValue
            func time(_ offset: Int64) -> Duration { start + .nanoseconds(offset) }

            var activities: [WorkoutActivity] = []
            try connection.statement(
                "SELECT activity_type, start_ns, end_ns FROM activities WHERE workout_id = ? ORDER BY position"
            ).forEachRow(workoutID) { row in
                activities.append(
                    WorkoutActivity(
                        activityType: try activityType(row.text(0)), start: time(row.int64(1)), end: time(row.int64(2)),
                        zoneGroupsByType: [:]))
            }
            var workoutGroups: [QuantityType: WorkoutZoneGroup] = [:]
            for (position, group) in try zoneGroups(of: workoutID) {
                if let position {
                    guard activities.indices.contains(position) else {
                        throw WorkoutStoreError.invalidData(path: path, reason: "a zone group of workout \(id) has no activity")
                    }
                    activities[position].zoneGroupsByType[group.configuration.quantityType] = group
                } else {
                    workoutGroups[group.configuration.quantityType] = group
                }
            }
            let timeline = try Self.timeline(of: workoutID, start: start, in: connection)

            return Workout(
                startDate: startDate, start: start, end: time(durationNanoseconds),
                activeDuration: .nanoseconds(activeNanoseconds), pauses: timeline.pauses,
                activityType: try activityType(activityName), statistics: try statistics(of: workoutID),
                zoneGroupsByType: workoutGroups, activities: activities,
                laps: try ranges("laps", of: workoutID, start: start), events: try events(of: workoutID, start: start),
                zoneUpdates: try zoneUpdates(of: workoutID, start: start),
                samples: try SampleChunk.samples(of: workoutID, start: start, in: connection, path: path),
                sensors: try sensors(of: workoutID), sensorStates: try sensorStates(of: workoutID),
                profile: try profile(of: workoutID), targets: try targets(of: workoutID), plan: try plan(of: workoutID),
                steps: try steps(of: workoutID))
        }
    }

    /// A workout's start, end and pauses, from its `workouts` and `pauses` rows.
    static func timeline(of workout: Int64, start: Duration, in connection: any StoreDatabase) throws -> WorkoutTimeline {
        let duration = try connection.statement("SELECT duration_ns FROM workouts WHERE id = ?")
            .firstRow(workout) { $0.optionalInt64(0) } ?? nil
        var pauses: [Range<Duration>] = []
        try connection.statement("SELECT start_ns, end_ns FROM pauses WHERE workout_id = ? ORDER BY position")
            .forEachRow(workout) { pauses.append((start + .nanoseconds($0.int64(0)))..<(start + .nanoseconds($0.int64(1)))) }
        return try WorkoutTimeline(start: start, end: start + .nanoseconds(duration ?? 0), pauses: pauses)
    }

    func activityType(_ name: String) throws -> WorkoutActivityType {
        guard let type = WorkoutActivityType(rawValue: name) else {
            throw WorkoutStoreError.invalidData(path: path, reason: "unknown activity type \(name)")
        }
        return type
    }

    /// The zone groups of a workout with the position of their activity (nil for the whole workout).
    private func zoneGroups(of workout: Int64) throws -> [(activity: Int?, group: WorkoutZoneGroup)] {
        var rows: [(id: Int64, activity: Int?, configuration: Int64)] = []
        try connection.statement(
            "SELECT id, activity_position, configuration_id FROM zone_groups WHERE workout_id = ? ORDER BY id"
        ).forEachRow(workout) { rows.append(($0.int64(0), $0.optionalInt(1), $0.int64(2))) }
        let durations = try connection.statement(
            "SELECT duration_ns FROM zone_durations WHERE zone_group_id = ? ORDER BY zone_index")
        return try rows.map { row in
            var values: [Duration] = []
            try durations.forEachRow(row.id) { values.append(.nanoseconds($0.int64(0))) }
            let configuration = try configuration(id: row.configuration)
            return (row.activity, try WorkoutZoneGroup(configuration: configuration, durations: values))
        }
    }

    private func statistics(of workout: Int64) throws -> WorkoutStatistics {
        let statistics = try connection.statement(
            """
            SELECT heart_rate_average, heart_rate_minimum, heart_rate_maximum, heart_rate_count, power_average,
                power_maximum, power_normalized, power_energy_kj, power_count, cadence_average, cadence_maximum,
                cadence_count, energy_expended_kj, rmssd_ms, rr_pair_count, dropped_samples, malformed_notifications,
                rr_interval_count, rr_artefact_count, heart_rate_held_ns, heart_rate_held_average
            FROM workout_statistics WHERE workout_id = ?
            """
        ).firstRow(workout) { r in
            WorkoutStatistics(
                heartRate: r.optionalInt(3).map {
                    .init(
                        average: r.double(0), minimum: r.double(1), maximum: r.double(2), count: $0,
                        heldDuration: .nanoseconds(r.optionalInt64(19) ?? 0), heldAverage: r.optionalDouble(20))
                },
                cyclingPower: r.optionalInt(8).map {
                    .init(
                        average: r.double(4), maximum: r.double(5), normalized: r.optionalDouble(6), energy: r.double(7),
                        count: $0)
                },
                cadence: r.optionalInt(11).map { .init(average: r.double(9), maximum: r.double(10), count: $0) },
                energyExpended: r.optionalDouble(12), rmssd: r.optionalDouble(13), rrPairCount: r.int(14),
                rrIntervalCount: r.int(17), rrArtefactCount: r.int(18), droppedSamples: r.int(15),
                malformedNotifications: r.int(16))
        }
        guard let statistics else {
            throw WorkoutStoreError.invalidData(path: path, reason: "workout \(workout) has no statistics")
        }
        return statistics
    }

    private func ranges(_ table: String, of workout: Int64, start: Duration) throws -> [Range<Duration>] {
        var ranges: [Range<Duration>] = []
        try connection.statement("SELECT start_ns, end_ns FROM \(table) WHERE workout_id = ? ORDER BY position")
            .forEachRow(workout) { ranges.append((start + .nanoseconds($0.int64(0)))..<(start + .nanoseconds($0.int64(1)))) }
        return ranges
    }

    func events(of workout: Int64, start: Duration) throws -> [WorkoutEvent] {
        var events: [WorkoutEvent] = []
        try connection.statement(
            """
            SELECT offset_ns, kind, activity_type, device, cause, sensor_state FROM events WHERE workout_id = ?
            ORDER BY position
            """
        ).forEachRow(workout) { row in
            let kind: WorkoutEvent.Kind
            switch (row.text(1), row.optionalText(2), row.optionalText(3)) {
            case ("pause", _, _): kind = .pause
            case ("resume", _, _): kind = .resume
            case ("lap", _, _): kind = .lap
            case ("activity", let type?, _): kind = .activity(try activityType(type))
            case ("sensorLost", _, let device?): kind = .sensorLost(device)
            case ("sensorRegained", _, let device?): kind = .sensorRegained(device)
            case ("sensorState", _, let device?) where row.optionalText(5).flatMap(SensorState.init(rawValue:)) != nil:
                kind = .sensorState(device, SensorState(rawValue: row.text(5))!)
            case (let name, _, _):
                throw WorkoutStoreError.invalidData(path: path, reason: "unknown event \(name) in workout \(workout)")
            }
            guard let cause = WorkoutEvent.Cause(rawValue: row.text(4)) else {
                throw WorkoutStoreError.invalidData(path: path, reason: "unknown event cause \(row.text(4)) in workout \(workout)")
            }
            events.append(WorkoutEvent(time: start + .nanoseconds(row.int64(0)), kind: kind, cause: cause))
        }
        return events
    }

    private func sensorStates(of workout: Int64) throws -> [String: [SensorState: Duration]] {
        var states: [String: [SensorState: Duration]] = [:]
        try connection.statement("SELECT sensor, state, duration_ns FROM sensor_state_durations WHERE workout_id = ?")
            .forEachRow(workout) { row in
                guard let state = SensorState(rawValue: row.text(1)) else {
                    throw WorkoutStoreError.invalidData(path: path, reason: "unknown sensor state \(row.text(1)) in workout \(workout)")
                }
                states[row.text(0), default: [:]][state] = .nanoseconds(row.int64(2))
            }
        return states
    }

    private func zoneUpdates(of workout: Int64, start: Duration) throws -> [ZoneUpdate] {
        typealias Row = (configuration: Int64, time: Int64, previous: Int?, current: Int?, lastSample: Int64, durations: [Int64]?)
        var rows: [Row] = []
        try connection.statement(
            """
            SELECT configuration_id, offset_ns, previous_zone, current_zone, last_sample_offset_ns, durations
            FROM zone_updates WHERE workout_id = ? ORDER BY position
            """
        ).forEachRow(workout) {
            rows.append(($0.int64(0), $0.int64(1), $0.optionalInt(2), $0.optionalInt(3), $0.int64(4), $0.blob(5)))
        }
        return try rows.map { row in
            let configuration = try configuration(id: row.configuration)
            let group = try WorkoutZoneGroup(
                configuration: configuration, durations: (row.durations ?? []).map { .nanoseconds($0) })
            guard row.previous.map(configuration.zones.indices.contains) ?? true,
                row.current.map(configuration.zones.indices.contains) ?? true
            else {
                throw WorkoutStoreError.invalidData(
                    path: path, reason: "a zone update of workout \(workout) names a zone that does not exist")
            }
            return ZoneUpdate(
                time: start + .nanoseconds(row.time), previousZoneIndex: row.previous, currentZoneIndex: row.current,
                zoneGroup: group, lastSampleTime: start + .nanoseconds(row.lastSample))
        }
    }

    func sensors(of workout: Int64) throws -> [SensorID: String] {
        var sensors: [SensorID: String] = [:]
        try connection.statement("SELECT sensor, name FROM sensors WHERE workout_id = ?").forEachRow(workout) {
            sensors[SensorID(UInt16(clamping: $0.int64(0)))] = $0.text(1)
        }
        return sensors
    }
}
