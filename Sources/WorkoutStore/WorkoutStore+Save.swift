public import Foundation
public import SensorCore
public import Workouts
import Zones

extension WorkoutStore {
    /// Stores a finished workout, with its samples, events, statistics, zone groups and the
    /// profile it was recorded with, in one transaction; returns its id. Times are kept to the
    /// nanosecond.
    ///
    /// - Parameter maximumHolds: the zone rule's holds the workout was classified with (defaults:
    ///   5 s heart rate, 3 s power); `workouts zones` re-buckets the samples with them.
    /// - Parameter bridge: the bridge that recorded it (this box's host name by default); the
    ///   workout also gets a new UUID.
    /// - Parameter athlete: the athlete it was recorded for; nil for the box's own profile.
    @discardableResult
    public func save(
        _ workout: Workout, maximumHolds: [QuantityType: Duration] = [:], bridge: BridgeID = .hostDefault, athlete: AthleteName? = nil
    ) throws(WorkoutStoreError) -> WorkoutID {
        try performTransaction {
            try insert(workout, maximumHolds: maximumHolds, id: nil, identity: WorkoutIdentity(bridge: bridge, athlete: athlete))
        }
    }

    /// The UUID and bridge of workout `id`.
    ///
    /// - Throws: `.notFound` when there is no such workout.
    public func identity(of id: WorkoutID) throws(WorkoutStoreError) -> WorkoutIdentity {
        try perform {
            let identity = try connection.statement("SELECT uuid, bridge, athlete FROM workouts WHERE id = ?").firstRow(id.rawValue) {
                Self.identity(uuid: $0.optionalText(0), bridge: $0.optionalText(1), athlete: $0.optionalText(2))
            }
            guard let identity else { throw WorkoutStoreError.notFound(id) }
            return identity
        }
    }

    /// The workout whose UUID is `uuid`, nil when there is none.
    public func workoutID(uuid: UUID) throws(WorkoutStoreError) -> WorkoutID? {
        try perform {
            try connection.statement("SELECT id FROM workouts WHERE uuid = ?").firstRow(uuid.uuidString.lowercased()) {
                WorkoutID($0.int64(0))
            }
        }
    }

    /// An identity from its columns, which migration 9 fills for every workout (a new one should
    /// they be missing).
    static func identity(uuid: String?, bridge: String?, athlete: String?) -> WorkoutIdentity {
        WorkoutIdentity(
            uuid: uuid.flatMap(UUID.init(uuidString:)) ?? UUID(), bridge: bridge.flatMap(BridgeID.init(rawValue:)) ?? .hostDefault,
            athlete: athlete.flatMap(AthleteName.init(rawValue:)))
    }

    /// The holds for every zoned type: those given, else the classifier's defaults.
    static func holds(_ given: [QuantityType: Duration]) -> [QuantityType: Duration] {
        Dictionary(
            uniqueKeysWithValues: ValueDurations.zonedTypes.map { ($0, given[$0] ?? ZoneClassifier.defaultMaximumHold(for: $0)) })
    }

    /// Inserts every row of `workout` (as `id`, or a new id) with `identity`; the caller holds a
    /// transaction.
    func insert(_ workout: Workout, maximumHolds: [QuantityType: Duration], id: WorkoutID?, identity: WorkoutIdentity) throws
        -> WorkoutID
    {
        let holds = Self.holds(maximumHolds)
        let startNanoseconds = workout.start.nanoseconds
        func offset(_ time: Duration) -> Int64 { time.nanoseconds - startNanoseconds }

        let workoutID = try insertWorkoutRow(
            [
                ("id", try id?.rawValue ?? newWorkoutID()), ("start_date", workout.startDate.timeIntervalSinceReferenceDate),
                ("anchor_offset_ns", startNanoseconds), ("duration_ns", offset(workout.end)),
                ("active_duration_ns", workout.activeDuration.nanoseconds), ("activity_type", workout.activityType.rawValue),
                ("heart_rate_hold_ns", holds[.heartRate]!.nanoseconds), ("power_hold_ns", holds[.cyclingPower]!.nanoseconds),
            ], identity: identity)

        try insertStatistics(workout.statistics, workout: workoutID)
        if let profile = workout.profile { try insertProfile(profile, workout: workoutID) }
        try insertTargets(workout.targets, workout: workoutID)
        try insertPlan(workout.plan, workout: workoutID)
        try insertSteps(workout.steps, workout: workoutID)

        // A workout has a configuration or two, shared by its groups and zone updates: a short list
        // compared with `==` (which sees the shared zones array at once) beats hashing them.
        var configurationIDs: [(configuration: WorkoutZoneConfiguration, id: Int64)] = []
        func configurationID(_ configuration: WorkoutZoneConfiguration) throws -> Int64 {
            if let known = configurationIDs.first(where: { $0.configuration == configuration }) { return known.id }
            let id = try self.configurationID(configuration)
            configurationIDs.append((configuration, id))
            return id
        }
        func insertZoneGroups(_ groups: [QuantityType: WorkoutZoneGroup], activity: Int64?) throws {
            for type in groups.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                let group = groups[type]!
                let groupID = try connection.statement(
                    """
                    INSERT INTO zone_groups (workout_id, activity_position, quantity_type, configuration_id)
                    VALUES (?, ?, ?, ?) RETURNING id
                    """
                ).firstRow(workoutID, activity, Int64(type.rawValue), try configurationID(group.configuration)) { $0.int64(0) }!
                let durations = try connection.statement(
                    "INSERT INTO zone_durations (zone_group_id, zone_index, duration_ns) VALUES (?, ?, ?)")
                for (index, duration) in group.durations.enumerated() {
                    try durations.run(groupID, index, duration.nanoseconds)
                }
            }
        }

        try insertZoneGroups(workout.zoneGroupsByType, activity: nil)
        for (position, activity) in workout.activities.enumerated() {
            try connection.statement(
                "INSERT INTO activities (workout_id, position, activity_type, start_ns, end_ns) VALUES (?, ?, ?, ?, ?)"
            ).run(workoutID, position, activity.activityType.rawValue, offset(activity.start), offset(activity.end))
            try insertZoneGroups(activity.zoneGroupsByType, activity: Int64(position))
        }
        for (table, ranges) in [("laps", workout.laps), ("pauses", workout.pauses)] {
            let statement = try connection.statement(
                "INSERT INTO \(table) (workout_id, position, start_ns, end_ns) VALUES (?, ?, ?, ?)")
            for (position, range) in ranges.enumerated() {
                try statement.run(workoutID, position, offset(range.lowerBound), offset(range.upperBound))
            }
        }
        try insertEvents(workout.events, workout: workoutID, firstPosition: 0, start: workout.start)

        let updates = try connection.statement(
            """
            INSERT INTO zone_updates (workout_id, position, quantity_type, configuration_id, offset_ns, previous_zone,
                current_zone, last_sample_offset_ns, durations)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (position, update) in workout.zoneUpdates.enumerated() {
            try updates.run(
                workoutID, position, Int64(update.quantityType.rawValue),
                try configurationID(update.zoneGroup.configuration), offset(update.time), update.previousZoneIndex,
                update.currentZoneIndex, offset(update.lastSampleTime), update.zoneGroup.durations.map(\.nanoseconds))
        }

        try insertSensors(workout.sensors, workout: workoutID)
        try insertSensorStates(workout.sensorStates, workout: workoutID)
        _ = try SampleChunk.insert(
            workout.samples, start: workout.start, workout: workoutID, firstPosition: 0, into: connection)
        let timeline = try WorkoutTimeline(start: workout.start, end: workout.end, pauses: workout.pauses)
        try ValueDurations.insert(
            workout.samplesWithHoldEnds, workout: workoutID, start: workout.start, timeline: timeline, holds: holds,
            into: connection)
        if try connection.userVersion >= Schema.bestEffortsVersion {
            try insertBestEfforts(workout.bestEfforts(), workout: workoutID)
        }
        return WorkoutID(workoutID)
    }

    func insertEvents(_ events: some Sequence<WorkoutEvent>, workout: Int64, firstPosition: Int64, start: Duration) throws {
        let statement = try connection.statement(
            """
            INSERT INTO events (workout_id, position, offset_ns, kind, activity_type, device, cause, sensor_state)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var position = firstPosition
        for event in events {
            var activityType: String?
            var device: String?
            var sensorState: String?
            switch event.kind {
            case .activity(let type): activityType = type.rawValue
            case .sensorLost(let name), .sensorRegained(let name): device = name
            case .sensorState(let name, let state): (device, sensorState) = (name, state.rawValue)
            case .pause, .resume, .lap: break
            }
            try statement.run(
                workout, position, event.time.nanoseconds - start.nanoseconds, event.name, activityType, device,
                event.cause.rawValue, sensorState)
            position += 1
        }
    }

    func insertSensorStates(_ states: [String: [SensorState: Duration]], workout: Int64) throws {
        let statement = try connection.statement(
            "INSERT INTO sensor_state_durations (workout_id, sensor, state, duration_ns) VALUES (?, ?, ?, ?)")
        for (sensor, durations) in states.sorted(by: { $0.key < $1.key }) {
            for (state, duration) in durations.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where duration > .zero {
                try statement.run(workout, sensor, state.rawValue, duration.nanoseconds)
            }
        }
    }

    func insertSensors(_ sensors: [SensorID: String], workout: Int64) throws {
        let statement = try connection.statement("INSERT INTO sensors (workout_id, sensor, name) VALUES (?, ?, ?)")
        for (sensor, name) in sensors.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try statement.run(workout, Int64(sensor.rawValue), name)
        }
    }

    /// Writes `efforts` for `workout`. `insert` writes none into a store of a schema before
    /// migration 13 (made by a test from the first migrations).
    func insertBestEfforts(_ efforts: BestEfforts, workout: Int64) throws {
        let statement = try connection.statement(
            "INSERT INTO best_efforts (workout_id, kind, seconds, value, offset_ns) VALUES (?, ?, ?, ?, ?)")
        for (kind, list) in [("power", efforts.power), ("heartRate", efforts.heartRate), ("lowestHeartRate", efforts.lowestHeartRate)] {
            for effort in list {
                try statement.run(workout, kind, Int64(effort.seconds), effort.value, effort.offset.nanoseconds)
            }
        }
    }

    /// A store of a schema before migration 12 (made by a test from the first migrations) has no
    /// RR artefact counts and gets none.
    private func insertStatistics(_ s: WorkoutStatistics, workout: Int64) throws {
        var columns: [(name: String, value: (any StoreValue)?)] = [
            ("workout_id", workout), ("heart_rate_average", s.heartRate?.average),
            ("heart_rate_minimum", s.heartRate?.minimum), ("heart_rate_maximum", s.heartRate?.maximum),
            ("heart_rate_count", s.heartRate?.count), ("power_average", s.cyclingPower?.average),
            ("power_maximum", s.cyclingPower?.maximum), ("power_normalized", s.cyclingPower?.normalized),
            ("power_energy_kj", s.cyclingPower?.energy), ("power_count", s.cyclingPower?.count),
            ("cadence_average", s.cadence?.average), ("cadence_maximum", s.cadence?.maximum),
            ("cadence_count", s.cadence?.count), ("energy_expended_kj", s.energyExpended), ("rmssd_ms", s.rmssd),
            ("rr_pair_count", s.rrPairCount), ("dropped_samples", s.droppedSamples),
            ("malformed_notifications", s.malformedNotifications),
        ]
        let version = try connection.userVersion
        if version >= Schema.rrArtefactsVersion {
            columns += [("rr_interval_count", s.rrIntervalCount), ("rr_artefact_count", s.rrArtefactCount)]
        }
        if version >= Schema.sexAndWeightVersion, let heartRate = s.heartRate {
            columns += [("heart_rate_held_ns", heartRate.heldDuration.nanoseconds), ("heart_rate_held_average", heartRate.heldAverage)]
        }
        let names = columns.map(\.name).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try connection.statement("INSERT INTO workout_statistics (\(names)) VALUES (\(marks))").run(arguments: columns.map(\.value))
    }

    /// Inserts a `workouts` row of `columns` and `identity` and returns its id; the caller holds a
    /// transaction. A store of a schema before migration 9 (made by a test from the first
    /// migrations) has no identity columns and gets none.
    /// A column whose value is nil is left to its default (the database gives the id).
    func insertWorkoutRow(_ columns: [(name: String, value: (any StoreValue)?)], identity: WorkoutIdentity) throws -> Int64 {
        var columns = columns.filter { $0.name != "id" || $0.value != nil }
        let version = try connection.userVersion
        if version >= Schema.identityVersion { columns += [("uuid", identity.uuidText), ("bridge", identity.bridge.rawValue)] }
        if version >= Schema.athletesVersion { columns.append(("athlete", identity.athlete?.rawValue)) }
        let names = columns.map(\.name).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return try connection.statement("INSERT INTO workouts (\(names)) VALUES (\(marks)) RETURNING id")
            .firstRow(arguments: columns.map(\.value)) { $0.int64(0) }!
    }

    /// The id for a new workout on SQLite: one above the highest ever given
    /// (`Schema.workoutIDHighWater`), so that a deleted workout's id is never given again; nil
    /// (SQLite's choice) in a store from before that migration, which only tests open. PostgreSQL's
    /// identity column never gives an id twice: nil there too. The caller holds the inserting
    /// transaction.
    func newWorkoutID() throws -> Int64? {
        guard connection.dialect == .sqlite, try connection.userVersion >= Schema.workoutIDHighWaterVersion else { return nil }
        return try connection.statement("SELECT id + 1 FROM workout_id_high_water").firstRow { $0.int64(0) }
    }
}
