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
    /// workout: statistics as `StatisticsAccumulator` builds them (fed the span's samples, pauses
    /// and end, plus the last power sample before the span, whose hold reaches into it), and time
    /// in zone as the difference of two re-bucketings of the whole workout, cut at the span's end
    /// and at its start, so the held sample and the pauses count exactly as in the stored groups
    /// and the spans of a workout add up to its totals.
    ///
    /// - Parameters:
    ///   - configurations: the zones to sort into (those of the stored zone groups).
    ///   - samplesByType: the workout's samples of each zoned type, in order.
    public init(
        of range: Range<Duration>, in workout: Workout, configurations: [QuantityType: WorkoutZoneConfiguration],
        samplesByType: [QuantityType: [Sample]]
    ) {
        self.range = range
        let pauses = workout.pauses.compactMap { Self.clamp($0, to: range) }
        timerTime = pauses.reduce(range.upperBound - range.lowerBound) { $0 - ($1.upperBound - $1.lowerBound) }
        statistics = Self.statistics(of: range, in: workout)
        zoneGroups = [:]
        for (type, configuration) in configurations {
            let all = samplesByType[type] ?? []
            let samples = Array(all.prefix { $0.time <= range.upperBound })
            guard let atEnd = Self.rebucket(samples, configuration, workout, until: range.upperBound),
                let atStart = Self.rebucket(samples, configuration, workout, until: range.lowerBound),
                let group = try? atEnd.subtracting(atStart)
            else { continue }
            zoneGroups[type] = group
        }
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

    private static func statistics(of range: Range<Duration>, in workout: Workout) -> WorkoutStatistics {
        var accumulator = StatisticsAccumulator(
            start: range.lowerBound, powerHold: ZoneClassifier.defaultMaximumHold(for: .cyclingPower))
        // Pauses and resumes strictly inside the span, in order; a span that starts paused begins paused.
        var events: [(time: Duration, pause: Bool)] = []
        var paused = false
        for pause in workout.pauses {
            if pause.contains(range.lowerBound) { paused = true }
            if range.lowerBound < pause.lowerBound, pause.lowerBound < range.upperBound { events.append((pause.lowerBound, true)) }
            if range.lowerBound < pause.upperBound, pause.upperBound < range.upperBound { events.append((pause.upperBound, false)) }
        }
        // The last power sample before the span stands for its hold into it: added while paused, so
        // it counts for energy and normalized power but not for the average.
        let carried = workout.samples.last { $0.type == .cyclingPower && $0.time < range.lowerBound }
        if carried != nil || paused { accumulator.pause(at: range.lowerBound) }
        if let carried { accumulator.add(carried) }
        if carried != nil, !paused { accumulator.resume(at: range.lowerBound) }
        var next = 0
        for sample in workout.samples where range.contains(sample.time) {
            while next < events.count, events[next].time <= sample.time {
                if events[next].pause { accumulator.pause(at: events[next].time) } else { accumulator.resume(at: events[next].time) }
                next += 1
            }
            accumulator.add(sample)
        }
        for event in events[next...] {
            if event.pause { accumulator.pause(at: event.time) } else { accumulator.resume(at: event.time) }
        }
        accumulator.end(at: range.upperBound)
        return accumulator.statistics
    }
}

extension Workout {
    /// The samples of each zoned type (heart rate, cycling power), in order.
    public var zonedSamplesByType: [QuantityType: [Sample]] {
        var samplesByType: [QuantityType: [Sample]] = [:]
        for sample in samples where WorkoutStateMachine.zonedTypes.contains(sample.type) {
            samplesByType[sample.type, default: []].append(sample)
        }
        return samplesByType
    }

    /// Each lap's figures, in order, with time in the workout's zones.
    public func lapSummaries() -> [WorkoutSpanSummary] {
        let configurations = zoneGroupsByType.mapValues(\.configuration)
        let samplesByType = zonedSamplesByType
        return laps.map { WorkoutSpanSummary(of: $0, in: self, configurations: configurations, samplesByType: samplesByType) }
    }
}
