public import Foundation
public import SensorCore
public import Workouts
public import Zones

/// Which workouts a listing or a zone report covers.
public struct WorkoutFilter: Sendable, Hashable {
    /// Workouts that start at or after this instant.
    public var from: Date?
    /// Workouts that start before this instant.
    public var until: Date?
    /// Workouts of this type, or with an activity of this type (the run of a bike-and-run workout).
    public var activityType: WorkoutActivityType?
    /// Workouts recorded for this athlete.
    public var athlete: AthleteName?

    public init(from: Date? = nil, until: Date? = nil, activityType: WorkoutActivityType? = nil, athlete: AthleteName? = nil) {
        self.from = from
        self.until = until
        self.activityType = activityType
        self.athlete = athlete
    }

    /// The condition on `w`, the `workouts` table, with the filter's values (`WorkoutStore.arguments(of:)`)
    /// bound as `?first` to `?first+3` (those before are the query's own).
    static func sql(first: Int, _ dialect: StoreDialect) -> String {
        let (from, until, type, athlete) = ("?\(first)", "?\(first + 1)", "?\(first + 2)", "?\(first + 3)")
        // Each value's first use gives its type, which PostgreSQL cannot tell from `IS NULL`
        // alone (SQLite reads `DOUBLE PRECISION` as REAL).
        return """
            (CAST(\(from) AS DOUBLE PRECISION) IS NULL OR w.start_date >= \(from))
            AND (CAST(\(until) AS DOUBLE PRECISION) IS NULL OR w.start_date < \(until))
            AND (CAST(\(type) AS TEXT) IS NULL OR w.activity_type = \(type)
                OR EXISTS (SELECT 1 FROM activities a WHERE a.workout_id = w.id AND a.activity_type = \(type)))
            AND (CAST(\(athlete) AS TEXT) IS NULL OR \(dialect.isListed("w.athlete", in: athlete)))
            """
    }
}

extension WorkoutStore {
    /// The values of `filter` for `WorkoutFilter.sql`. The athlete is given as every spelling
    /// of the name among the store's workouts (`Émile`, `émile`, `EMILE` are one person), found
    /// here since neither database compares names as `AthleteName` does, in a list
    /// `StoreDialect.isListed` reads.
    func arguments(of filter: WorkoutFilter) throws -> [(any StoreValue)?] {
        var spellings: String?
        if let athlete = filter.athlete {
            var names: [String] = []
            try connection.statement("SELECT DISTINCT athlete FROM workouts WHERE athlete IS NOT NULL").forEachRow { row in
                let text = row.text(0)
                if AthleteName(rawValue: text) == athlete { names.append(text) }
            }
            spellings = StoreDialect.list(names)
        }
        return [filter.from?.timeIntervalSinceReferenceDate, filter.until?.timeIntervalSinceReferenceDate, filter.activityType?.rawValue, spellings]
    }
}

/// One line of `workouts list`: a stored workout without its samples.
public struct WorkoutListing: Sendable, Hashable {
    public let id: WorkoutID
    public let startDate: Date
    /// The workout's type (`multisport` for several activities).
    public let activityType: WorkoutActivityType
    /// For a workout of several activities listed by an activity type (`WorkoutFilter.activityType`)
    /// and holding others too: that type, whose activities alone the durations and figures are of
    /// (the run of a bike-and-run). Nil when they are the whole workout's.
    public var figuresOf: WorkoutActivityType? = nil
    /// Nil while the workout is unfinished.
    public let duration: Duration?
    public let activeDuration: Duration?
    /// Average heart rate in count/min, average and normalized power in W, when measured.
    public let averageHeartRate: Double?
    public let averagePower: Double?
    public let normalizedPower: Double?
    /// For an unfinished workout: how far its journal goes.
    public let recordedUntil: Duration?
    /// Its UUID and the bridge that recorded it.
    public let identity: WorkoutIdentity
    /// For an unfinished workout, the process recording it now; nil when its recording stopped.
    public let recording: RecordingProcess?

    public var isFinished: Bool { duration != nil }
}

/// A workout whose recording stopped before it was finished (a crash, a power cut, `kill -9`), or
/// one that is recording now.
public struct UnfinishedWorkout: Sendable, Hashable {
    public let id: WorkoutID
    public let startDate: Date
    public let activityType: WorkoutActivityType
    /// The latest sample or event saved, from the start.
    public let recordedUntil: Duration
    /// Whether a running process is still recording it (its recording lock is held).
    public let isRecording: Bool
}

/// The calendar periods of a zone report: a day, an ISO week (Monday to Sunday), a month.
public enum ZoneReportPeriod: String, Sendable, Hashable, CaseIterable {
    case day, week, month

    public var component: Calendar.Component {
        switch self {
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        }
    }
}

/// Time in zone over the workouts of one period, all in one configuration.
public struct ZoneTotals: Sendable, Hashable {
    /// The first instant of the period (a Monday for ISO weeks, the 1st for months) in the report's calendar.
    public let periodStart: Date
    /// Workouts in the period with samples of the quantity.
    public let workoutCount: Int
    public let zoneGroup: WorkoutZoneGroup
}

extension WorkoutStore {
    /// Workouts in order of their start, unfinished ones included.
    public func workouts(matching filter: WorkoutFilter = WorkoutFilter()) throws(WorkoutStoreError) -> [WorkoutListing] {
        try perform {
            var listings: [WorkoutListing] = []
            try connection.statement(
                """
                SELECT w.id, w.start_date, w.activity_type, w.duration_ns, w.active_duration_ns,
                    s.heart_rate_average, s.power_average, s.power_normalized, r.recorded_until_ns, w.uuid, w.bridge, w.athlete
                FROM workouts w
                LEFT JOIN workout_statistics s ON s.workout_id = w.id
                LEFT JOIN recordings r ON r.workout_id = w.id
                WHERE \(WorkoutFilter.sql(first: 1, connection.dialect))
                ORDER BY w.start_date, w.id
                """
            ).forEachRow(arguments: try arguments(of: filter)) { row in
                listings.append(
                    WorkoutListing(
                        id: WorkoutID(row.int64(0)), startDate: Date(timeIntervalSinceReferenceDate: row.double(1)),
                        activityType: try activityType(row.text(2)), duration: row.optionalInt64(3).map { .nanoseconds($0) },
                        activeDuration: row.optionalInt64(4).map { .nanoseconds($0) }, averageHeartRate: row.optionalDouble(5),
                        averagePower: row.optionalDouble(6), normalizedPower: row.optionalDouble(7),
                        recordedUntil: row.optionalInt64(8).map { .nanoseconds($0) },
                        identity: Self.identity(uuid: row.optionalText(9), bridge: row.optionalText(10), athlete: row.optionalText(11)),
                        recording: row.optionalInt64(3) == nil ? recordingProcess(WorkoutID(row.int64(0))) : nil))
            }
            guard let type = filter.activityType else { return listings }
            // A finished workout with activities of other types too is listed with the figures of
            // its activities of this type (the run of a bike-and-run).
            let mixed = try workouts(withActivitiesOtherThan: type)
            return try listings.map { listing in
                guard listing.isFinished, mixed.contains(listing.id.rawValue) else { return listing }
                return try Self.listing(listing, figuresOf: type, in: readWorkout(listing.id))
            }
        }
    }

    /// The multisport workouts with an activity of another type than `type`.
    private func workouts(withActivitiesOtherThan type: WorkoutActivityType) throws -> Set<Int64> {
        var ids: Set<Int64> = []
        try connection.statement(
            """
            SELECT DISTINCT a.workout_id FROM activities a JOIN workouts w ON w.id = a.workout_id
            WHERE w.activity_type = 'multisport' AND a.activity_type <> ?
            """
        ).forEachRow(type.rawValue) { ids.insert($0.int64(0)) }
        return ids
    }

    /// `listing` with the durations and figures of `workout`'s activities of `type` alone: their
    /// spans and active time summed, heart rate and power averaged over their samples, and NP the
    /// fourth root of their NPs' fourth powers weighted by active time (one activity's NP as it is).
    static func listing(_ listing: WorkoutListing, figuresOf type: WorkoutActivityType, in workout: Workout) -> WorkoutListing {
        let parts = zip(workout.activities, workout.activitySummaries()).filter { $0.0.activityType == type }
        func average(_ figures: [(value: Double, weight: Double)]) -> Double? {
            let weight = figures.reduce(0) { $0 + $1.weight }
            return weight > 0 ? figures.reduce(0) { $0 + $1.value * $1.weight } / weight : nil
        }
        let statistics = parts.map(\.1.statistics)
        let normalized = parts.compactMap { _, summary in
            summary.statistics.cyclingPower?.normalized.map { (value: $0, weight: summary.timerTime.seconds) }
        }
        var part = WorkoutListing(
            id: listing.id, startDate: listing.startDate, activityType: listing.activityType,
            duration: parts.reduce(.zero) { $0 + ($1.0.end - $1.0.start) }, activeDuration: parts.reduce(.zero) { $0 + $1.1.timerTime },
            averageHeartRate: average(statistics.compactMap { $0.heartRate.map { ($0.average, Double($0.count)) } }),
            averagePower: average(statistics.compactMap { $0.cyclingPower.map { ($0.average, Double($0.count)) } }),
            normalizedPower: normalized.count == 1
                ? normalized[0].value : average(normalized.map { (pow($0.value, 4), $0.weight) }).map { pow($0, 0.25) },
            recordedUntil: listing.recordedUntil, identity: listing.identity, recording: listing.recording)
        part.figuresOf = type
        return part
    }

    /// The finished workout that started last, or nil when there is none.
    public func latestWorkoutID() throws(WorkoutStoreError) -> WorkoutID? {
        try perform {
            try connection.statement(
                "SELECT id FROM workouts WHERE duration_ns IS NOT NULL ORDER BY start_date DESC, id DESC LIMIT 1"
            ).firstRow { WorkoutID($0.int64(0)) }
        }
    }

    /// Deletes a workout, finished or not, with everything stored for it.
    ///
    /// - Throws: `.notFound`; `.recordingInProgress` while a running process records it.
    public func deleteWorkout(_ id: WorkoutID) throws(WorkoutStoreError) {
        if let lockPath = recordingLockPath(id), RecordingLock.isHeld(at: lockPath) {
            throw .recordingInProgress(id)
        }
        try performTransaction {
            try connection.statement("DELETE FROM workouts WHERE id = ?").run(id.rawValue)
            guard connection.changes > 0 else { throw WorkoutStoreError.notFound(id) }
        }
        if let lockPath = recordingLockPath(id) { RecordingLock.remove(at: lockPath) }
    }

    /// The raw samples of a finished or unfinished workout, in the order it received them.
    public func samples(of id: WorkoutID) throws(WorkoutStoreError) -> [Sample] {
        try perform {
            guard let start = try anchorOffset(of: id) else { throw WorkoutStoreError.notFound(id) }
            return try SampleChunk.samples(of: id.rawValue, start: start, in: connection, path: path)
        }
    }

    /// The start, end and pauses of a finished workout: what re-bucketing its samples needs.
    public func timeline(of id: WorkoutID) throws(WorkoutStoreError) -> WorkoutTimeline {
        try perform {
            guard let start = try anchorOffset(of: id) else { throw WorkoutStoreError.notFound(id) }
            return try Self.timeline(of: id.rawValue, start: start, in: connection)
        }
    }

    func anchorOffset(of id: WorkoutID) throws -> Duration? {
        try connection.statement("SELECT anchor_offset_ns FROM workouts WHERE id = ?")
            .firstRow(id.rawValue) { .nanoseconds($0.int64(0)) }
    }

    /// Time in `configuration`'s zones over the finished workouts `filter` selects, summed by
    /// `period` of their start in `calendar`, in order. Each workout is re-bucketed from its raw
    /// samples with its own pauses, end and hold, so workouts recorded with other zones compare;
    /// the work is done on the stored time at each value (`zone_value_durations`), which gives the
    /// same durations as re-bucketing every sample. When `filter` names an activity type, a
    /// multisport workout counts only the time of its activities of that type (the run of a
    /// bike-and-run), worked out from its samples (`Workout.timeAtEachValue(of:in:hold:)`).
    public func zoneTotals(
        in configuration: WorkoutZoneConfiguration, by period: ZoneReportPeriod, calendar: Calendar,
        matching filter: WorkoutFilter = WorkoutFilter()
    ) throws(WorkoutStoreError) -> [ZoneTotals] {
        try perform {
            var periods: [Date: (workouts: Int, durations: [Int64])] = [:]
            func add(_ values: [(value: Double, duration: Int64)], of date: Date) {
                let start = calendar.dateInterval(of: period.component, for: date)?.start ?? date
                var entry = periods[start] ?? (0, Array(repeating: 0, count: configuration.zones.count))
                entry.workouts += 1
                var zoneOfValue: (value: Double, zone: Int?) = (.nan, nil)
                for (value, duration) in values {
                    if value != zoneOfValue.value { zoneOfValue = (value, configuration.zoneIndex(for: value)) }
                    if let zone = zoneOfValue.zone { entry.durations[zone] += duration }
                }
                periods[start] = entry
            }
            let multisport = try filter.activityType.map(workouts(withActivitiesOtherThan:)) ?? []
            var current: (id: Int64, date: Date, values: [(value: Double, duration: Int64)])?
            var split: [(id: Int64, date: Date)] = []
            func close() {
                guard let workout = current else { return }
                if multisport.contains(workout.id) { split.append((workout.id, workout.date)) } else { add(workout.values, of: workout.date) }
            }
            try connection.statement(
                """
                SELECT w.id, w.start_date, v.value, v.duration_ns
                FROM workouts w JOIN zone_value_durations v ON v.workout_id = w.id AND v.quantity_type = ?1
                WHERE \(WorkoutFilter.sql(first: 2, connection.dialect))
                ORDER BY w.start_date, w.id, v.value
                """
            ).forEachRow(arguments: [Int64(configuration.quantityType.rawValue)] + (try arguments(of: filter))) { row in
                let workout = row.int64(0)
                if workout != current?.id {
                    close()
                    current = (workout, Date(timeIntervalSinceReferenceDate: row.double(1)), [])
                }
                current?.values.append((row.double(2), row.int64(3)))
            }
            close()
            let type = configuration.quantityType
            let hold = type == .heartRate ? "heart_rate_hold_ns" : "power_hold_ns"
            for (id, date) in split {
                let workout = try readWorkout(WorkoutID(id))
                let stored = try connection.statement("SELECT \(hold) FROM workouts WHERE id = ?").firstRow(id) { $0.int64(0) }
                var credited: [Double: Int64] = [:]
                for activity in workout.activities where activity.activityType == filter.activityType {
                    for (value, duration) in workout.timeAtEachValue(
                        of: type, in: activity.start..<activity.end, hold: stored.map { .nanoseconds($0) })
                    {
                        credited[value, default: 0] += duration.clampedNanoseconds
                    }
                }
                guard !credited.isEmpty else { continue }
                add(credited.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, of: date)
            }
            return try periods.sorted { $0.key < $1.key }.map { start, entry in
                ZoneTotals(
                    periodStart: start, workoutCount: entry.workouts,
                    zoneGroup: try WorkoutZoneGroup(
                        configuration: configuration, durations: entry.durations.map { .nanoseconds($0) }))
            }
        }
    }
}
