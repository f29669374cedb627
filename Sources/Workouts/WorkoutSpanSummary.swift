public import SensorCore
public import Zones

/// The figures of one span of a workout (a lap, an activity, the whole): its times, statistics and
/// time in zone. What `workouts show` prints for each lap and what a FIT lap or session message says.
public struct WorkoutSpanSummary: Sendable {
    /// The span, from the session anchor.
    public var range: Range<Duration>
    /// Time not paused within the span.
    public var timerTime: Duration
    public var statistics: WorkoutStatistics
    /// Time in zone within the span, by quantity type.
    public var zoneGroups: [QuantityType: WorkoutZoneGroup]

    /// The summary of a span, worked out from the workout's samples by the rules of the stored
    /// workout: statistics as `StatisticsAccumulator` builds them (fed the span's samples, hold ends,
    /// pauses and end, plus the last power sample before the span, whose hold reaches into it), and time
    /// in zone as the difference of two re-bucketings of the whole workout, cut at the span's end
    /// and at its start, so the held sample and the pauses count exactly as in the stored groups
    /// and the spans of a workout add up to its totals. For many spans, `summaries(of:...)`.
    ///
    /// - Parameters:
    ///   - configurations: the zones to sort into (those of the stored zone groups).
    ///   - samplesByType: the workout's samples of each zoned type, in order.
    public init(
        of range: Range<Duration>, in workout: Workout, configurations: [QuantityType: WorkoutZoneConfiguration],
        samplesByType: [QuantityType: [Sample]]
    ) {
        self = Self.summaries(of: [range], in: workout, configurations: configurations, samplesByType: samplesByType)[0]
    }

    /// The summaries of many spans of one workout (its laps), each as `init(of:in:...)` gives it,
    /// in time linear in the samples and spans (issue 31: a lap every 10 s of a 24-hour ride once
    /// cost laps × samples): the samples are indexed once (`WorkoutSpanIndex`), and time in zone
    /// comes from one re-bucketing pass cut at every span's bounds. Samples or pauses out of order,
    /// which a recording never gives, are summed span by span as before. A span has a zone group of
    /// a type only when the type has time in it: a run's lap has no power zones, as the run has none.
    public static func summaries(
        of ranges: [Range<Duration>], in workout: Workout, configurations: [QuantityType: WorkoutZoneConfiguration],
        samplesByType: [QuantityType: [Sample]]
    ) -> [WorkoutSpanSummary] {
        let index = WorkoutSpanIndex(workout)
        var summaries = ranges.map { range in
            let pauses = index.pauses(overlapping: range).compactMap { Self.clamp($0, to: range) }
            return WorkoutSpanSummary(
                range: range, timerTime: pauses.reduce(range.upperBound - range.lowerBound) { $0 - ($1.upperBound - $1.lowerBound) },
                statistics: statistics(of: range, in: workout, index: index), zoneGroups: [:])
        }
        let cuts = ranges.flatMap { [$0.lowerBound, $0.upperBound] }
        for (type, configuration) in configurations {
            let all = samplesByType[type] ?? []
            if let groups = WorkoutZoneGroup.rebucketing(
                all, into: configuration, start: workout.start, pauses: workout.pauses, cutAt: cuts)
            {
                for position in summaries.indices {
                    guard let atStart = groups[2 * position], let atEnd = groups[2 * position + 1],
                        let group = try? atEnd.subtracting(atStart), group.totalDuration > .zero
                    else { continue }
                    summaries[position].zoneGroups[type] = group
                }
                continue
            }
            for position in summaries.indices {
                let range = ranges[position]
                let samples = Array(all.prefix { $0.time <= range.upperBound })
                guard let atEnd = Self.rebucket(samples, configuration, workout, until: range.upperBound),
                    let atStart = Self.rebucket(samples, configuration, workout, until: range.lowerBound),
                    let group = try? atEnd.subtracting(atStart), group.totalDuration > .zero
                else { continue }
                summaries[position].zoneGroups[type] = group
            }
        }
        return summaries
    }

    private init(range: Range<Duration>, timerTime: Duration, statistics: WorkoutStatistics, zoneGroups: [QuantityType: WorkoutZoneGroup]) {
        self.range = range
        self.timerTime = timerTime
        self.statistics = statistics
        self.zoneGroups = zoneGroups
    }

    /// The stored figures of a whole workout or activity.
    public init(
        range: Range<Duration>, pauses: [Range<Duration>], statistics: WorkoutStatistics,
        zoneGroups: [QuantityType: WorkoutZoneGroup]
    ) {
        self.range = range
        timerTime = pauses.compactMap { Self.clamp($0, to: range) }
            .reduce(range.upperBound - range.lowerBound) { $0 - ($1.upperBound - $1.lowerBound) }
        self.statistics = statistics
        self.zoneGroups = zoneGroups
    }

    /// `range` cut to `span`, nil when nothing of it is inside.
    public static func clamp(_ range: Range<Duration>, to span: Range<Duration>) -> Range<Duration>? {
        let lower = max(range.lowerBound, span.lowerBound)
        let upper = min(range.upperBound, span.upperBound)
        return lower < upper ? lower..<upper : nil
    }

    /// Time in zone from the workout's start to `end`.
    private static func rebucket(
        _ samples: [Sample], _ configuration: WorkoutZoneConfiguration, _ workout: Workout, until end: Duration
    ) -> WorkoutZoneGroup? {
        let pauses = workout.pauses.compactMap { clamp($0, to: workout.start..<end) }
        guard let timeline = try? WorkoutTimeline(start: workout.start, end: end, pauses: pauses) else { return nil }
        return WorkoutZoneGroup(rebucketing: samples, into: configuration, timeline: timeline)
    }

    private static func statistics(of range: Range<Duration>, in workout: Workout, index: WorkoutSpanIndex) -> WorkoutStatistics {
        var accumulator = StatisticsAccumulator(
            start: range.lowerBound, powerHold: ZoneClassifier.defaultMaximumHold(for: .cyclingPower))
        // Pauses and resumes strictly inside the span, in order; a span that starts paused begins paused.
        var events: [(time: Duration, pause: Bool)] = []
        var paused = false
        for pause in index.pauses(overlapping: range) {
            if pause.contains(range.lowerBound) { paused = true }
            if range.lowerBound < pause.lowerBound, pause.lowerBound < range.upperBound { events.append((pause.lowerBound, true)) }
            if range.lowerBound < pause.upperBound, pause.upperBound < range.upperBound { events.append((pause.upperBound, false)) }
        }
        // The last power sample before the span stands for its hold into it: added while paused, so
        // it counts for energy and normalized power but not for the average.
        let carried = index.lastSample(of: .cyclingPower, before: range.lowerBound).flatMap { $0.value.isNaN ? nil : $0 }
        if carried != nil || paused { accumulator.pause(at: range.lowerBound) }
        if let carried { accumulator.add(carried) }
        if carried != nil, !paused { accumulator.resume(at: range.lowerBound) }
        var next = 0
        for sample in index.samples(in: range) {
            while next < events.count, events[next].time <= sample.time {
                if events[next].pause { accumulator.pause(at: events[next].time) } else { accumulator.resume(at: events[next].time) }
                next += 1
            }
            if sample.value.isNaN { accumulator.endHold(of: sample.type, at: sample.time) } else { accumulator.add(sample) }
        }
        for event in events[next...] {
            if event.pause { accumulator.pause(at: event.time) } else { accumulator.resume(at: event.time) }
        }
        accumulator.end(at: range.upperBound)
        return accumulator.statistics
    }
}

extension Workout {
    /// The samples of each zoned type (heart rate, cycling power), in order, with their hold ends
    /// (`samplesWithHoldEnds`).
    public var zonedSamplesByType: [QuantityType: [Sample]] {
        var samplesByType: [QuantityType: [Sample]] = [:]
        for sample in samplesWithHoldEnds where WorkoutStateMachine.zonedTypes.contains(sample.type) {
            samplesByType[sample.type, default: []].append(sample)
        }
        return samplesByType
    }

    /// Each lap's figures, in order, with time in the workout's zones.
    public func lapSummaries() -> [WorkoutSpanSummary] {
        let configurations = zoneGroupsByType.mapValues(\.configuration)
        let samplesByType = zonedSamplesByType
        return WorkoutSpanSummary.summaries(of: laps, in: self, configurations: configurations, samplesByType: samplesByType)
    }
}
