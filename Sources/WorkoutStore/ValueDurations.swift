import SensorCore
import Zones

/// The active time the zone rule credits to each distinct value of one quantity in one workout
/// (table `zone_value_durations`, schema version 2).
///
/// The rule (DESIGN.md §3 "Zones") credits a sample at `t[i]` with `[t[i], min(t[i+1], t[i] + hold))`,
/// intersected with active time and cut at the end. That time depends on the sample times, the
/// pauses, the end and the hold, never on the zones; so time in any configuration's zone is the sum
/// of these durations over the values in the zone, exactly what re-bucketing the raw samples with
/// `WorkoutZoneGroup(rebucketing:into:timeline:maximumHold:)` gives. `workouts zones` over a thousand
/// workouts reads a few hundred rows per workout instead of every sample.
///
/// This follows the classifier's re-bucketing step by step: samples are taken in order, NaN values
/// and samples after the end or earlier than the latest event are skipped, and pauses and resumes
/// come before samples of the same time.
struct ValueDurations: Equatable {
    /// Distinct values, increasing, with their credited time in nanoseconds (each positive).
    var values: [Double] = []
    var durations: [Int64] = []

    /// - Parameters:
    ///   - times: sample times in nanoseconds from the workout's start, in the order received.
    ///   - values: the samples' values, one per time.
    ///   - pauses: paused intervals in nanoseconds from the start, in order.
    ///   - end: the workout's duration in nanoseconds.
    ///   - hold: the zone rule's maximum hold in nanoseconds (positive).
    init(times: [Int64], values sampleValues: [Double], pauses: [Range<Int64>], end: Int64, hold: Int64) {
        var credited: [Double: Int64] = [:]
        var latest: Int64 = 0
        var creditedUntil: Int64 = 0
        var paused = false
        var held: Double?
        var holdEnd: Int64 = 0
        var event = 0

        func credit(until time: Int64) {
            defer { creditedUntil = time }
            guard let held else { return }
            let stop = min(time, holdEnd)
            if stop > creditedUntil { credited[held, default: 0] += stop - creditedUntil }
        }
        // Events 2k and 2k+1 are the pause and the resume of pauses[k].
        func applyEvents(through limit: Int64) {
            while event < 2 * pauses.count {
                let pause = pauses[event / 2]
                let time = event % 2 == 0 ? pause.lowerBound : pause.upperBound
                guard time <= limit else { return }
                latest = time
                if event % 2 == 0 {
                    credit(until: time)
                    paused = true
                } else {
                    creditedUntil = time
                    paused = false
                }
                event += 1
            }
        }

        for (time, value) in zip(times, sampleValues) {
            guard !value.isNaN, time <= end else { continue }
            applyEvents(through: time)
            guard time >= latest else { continue }
            latest = time
            if !paused { credit(until: time) }
            held = value
            let (end, overflow) = time.addingReportingOverflow(hold)
            holdEnd = overflow ? .max : end
        }
        applyEvents(through: end)
        if !paused { credit(until: end) }

        for (value, duration) in credited.sorted(by: { $0.key < $1.key }) where duration > 0 {
            values.append(value)
            durations.append(duration)
        }
    }

    init(values: [Double], durations: [Int64]) {
        self.values = values
        self.durations = durations
    }

    /// The same durations sorted into `configuration`'s zones.
    func zoneDurations(in configuration: WorkoutZoneConfiguration) -> [Int64] {
        var zones = [Int64](repeating: 0, count: configuration.zones.count)
        for (value, duration) in zip(values, durations) {
            if let zone = configuration.zoneIndex(for: value) { zones[zone] += duration }
        }
        return zones
    }

    /// The durations of `type` in a workout's samples.
    init(_ samples: [Sample], of type: QuantityType, start: Duration, timeline: WorkoutTimeline, hold: Duration) {
        let startNanoseconds = start.nanoseconds
        var times: [Int64] = []
        var values: [Double] = []
        for sample in samples where sample.type == type {
            times.append(sample.time.nanoseconds - startNanoseconds)
            values.append(sample.value)
        }
        self.init(
            times: times, values: values,
            pauses: timeline.pauses.map { ($0.lowerBound - start).nanoseconds..<($0.upperBound - start).nanoseconds },
            end: (timeline.end - start).nanoseconds, hold: hold.nanoseconds)
    }

    // MARK: Storage

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
