public import SensorCore
public import Zones

/// The active time the zone rule credits to each distinct value of one quantity in one workout
/// (what the store keeps in `zone_value_durations`, schema version 2, and what training load weighs).
///
/// The rule (DESIGN.md §3 "Zones") credits a sample at `t[i]` with `[t[i], min(t[i+1], t[i] + hold))`,
/// intersected with active time and cut at the end. That time depends on the sample times, the
/// pauses, the end and the hold, never on the zones; so time in any configuration's zone is the sum
/// of these durations over the values in the zone, exactly what re-bucketing the raw samples with
/// `WorkoutZoneGroup(rebucketing:into:timeline:maximumHold:)` gives. `workouts zones` over a thousand
/// workouts reads a few hundred rows per workout instead of every sample.
///
/// This follows the classifier's re-bucketing step by step: samples are taken in order, samples
/// after the end or earlier than the latest event are skipped, a NaN value ends the hold of the
/// value before it (a hold end, `Workout.samplesWithHoldEnds`), and pauses and resumes come before
/// samples of the same time.
public struct ValueDurations: Sendable, Equatable {
    /// Distinct values, increasing, with their credited time in nanoseconds (each positive).
    public var values: [Double] = []
    public var durations: [Int64] = []

    /// - Parameters:
    ///   - times: sample times in nanoseconds from the workout's start, in the order received.
    ///   - values: the samples' values, one per time.
    ///   - pauses: paused intervals in nanoseconds from the start, in order.
    ///   - end: the workout's duration in nanoseconds.
    ///   - hold: the zone rule's maximum hold in nanoseconds (positive).
    public init(times: [Int64], values sampleValues: [Double], pauses: [Range<Int64>], end: Int64, hold: Int64) {
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
            guard time <= end else { continue }
            applyEvents(through: time)
            guard time >= latest else { continue }
            latest = time
            if !paused { credit(until: time) }
            guard !value.isNaN else {
                holdEnd = min(holdEnd, time)
                continue
            }
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

    public init(values: [Double], durations: [Int64]) {
        self.values = values
        self.durations = durations
    }

    /// The same durations sorted into `configuration`'s zones.
    public func zoneDurations(in configuration: WorkoutZoneConfiguration) -> [Int64] {
        var zones = [Int64](repeating: 0, count: configuration.zones.count)
        for (value, duration) in zip(values, durations) {
            if let zone = configuration.zoneIndex(for: value) { zones[zone] += duration }
        }
        return zones
    }

    /// The durations of `type` in a workout's samples.
    public init(_ samples: [Sample], of type: QuantityType, start: Duration, timeline: WorkoutTimeline, hold: Duration) {
        let startNanoseconds = start.clampedNanoseconds
        var times: [Int64] = []
        var values: [Double] = []
        for sample in samples where sample.type == type {
            times.append(sample.time.clampedNanoseconds - startNanoseconds)
            values.append(sample.value)
        }
        self.init(
            times: times, values: values,
            pauses: timeline.pauses.map { ($0.lowerBound - start).clampedNanoseconds..<($0.upperBound - start).clampedNanoseconds },
            end: (timeline.end - start).clampedNanoseconds, hold: hold.clampedNanoseconds)
    }
}
