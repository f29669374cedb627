public import SensorCore

extension WorkoutZoneGroup {
    /// Classifies the stored raw samples of a workout again, into any configuration (DESIGN.md §3
    /// "Zones", re-bucketing): the same sample-and-hold rule, pauses and end as the live classifier,
    /// so a workout recorded with 5 heart-rate zones can be compared with one recorded with 7.
    /// Re-bucketing into the configuration used live gives exactly the live group.
    ///
    /// Samples of other quantity types are ignored, and so are the samples the live classifier
    /// refuses: samples before the start, after the end or earlier than the sample, pause or resume
    /// before them. A NaN value is a hold end ("no value from here", `Workout.samplesWithHoldEnds`):
    /// the value before it stops being held there, as the live classifier's `endHold(at:)` does.
    ///
    /// - Parameters:
    ///   - samples: the workout's samples in the order they were recorded (time order); values in
    ///     the quantity type's canonical unit.
    ///   - configuration: the zones to sort them into.
    ///   - timeline: the workout's start, end and pauses.
    ///   - maximumHold: as for `ZoneClassifier`; nil for the quantity type's default.
    public init(
        rebucketing samples: [Sample], into configuration: WorkoutZoneConfiguration, timeline: WorkoutTimeline,
        maximumHold: Duration? = nil
    ) {
        let type = configuration.quantityType
        self = Self.rebucket(
            samples, into: configuration, timeline: timeline, maximumHold: maximumHold,
            time: \.time, value: { $0.type == type ? $0.value : nil })
    }

    /// Re-bucketing of `(time, value)` pairs of the configuration's quantity type; see the `Sample` variant.
    public init(
        rebucketing samples: [(time: Duration, value: Double)], into configuration: WorkoutZoneConfiguration,
        timeline: WorkoutTimeline, maximumHold: Duration? = nil
    ) {
        self = Self.rebucket(
            samples, into: configuration, timeline: timeline, maximumHold: maximumHold,
            time: \.time, value: \.value)
    }

    /// Feeds samples and the timeline's pauses to a classifier in time order (pauses and resumes
    /// before samples of the same time, which credits the same either way). `value` gives nil for
    /// samples to skip, NaN for a hold end.
    @inline(__always)
    private static func rebucket<Element>(
        _ samples: [Element], into configuration: WorkoutZoneConfiguration, timeline: WorkoutTimeline,
        maximumHold: Duration?, time: (Element) -> Duration, value: (Element) -> Double?
    ) -> WorkoutZoneGroup {
        var classifier = ZoneClassifier(
            configuration: configuration, maximumHold: maximumHold, start: timeline.start, reportsUpdates: false)
        var events = PauseEvents(pauses: timeline.pauses.map { ($0.lowerBound.attosecondCount, $0.upperBound.attosecondCount) })
        let end = timeline.end.attosecondCount
        func applyEvents(through limit: Int128) { events.apply(through: limit, to: &classifier) }
        for sample in samples {
            let sampleTime = time(sample).attosecondCount
            guard let sampleValue = value(sample), sampleTime <= end else { continue }
            applyEvents(through: sampleTime)
            guard sampleTime >= classifier.latestTime else { continue }
            classifier.apply(sampleValue, at: sampleTime)
        }
        applyEvents(through: end)
        classifier.applyEnd(at: end)
        return classifier.zoneGroup
    }
}

extension WorkoutZoneGroup {
    /// The groups `init(rebucketing:into:timeline:maximumHold:)` gives for a workout cut at each of
    /// `ends` (a timeline from `start` to that end, with `pauses` cut to it), worked out in one pass
    /// over the samples instead of one per end: what the laps of a long ride need (issue 31). The
    /// classifier runs once through the samples and pauses; at each end a copy of it takes what a
    /// run cut there would take at that instant (the resume of a pause the end falls in, samples of
    /// that time, the end), so each group is the one a run of its own gives. An end before `start`
    /// has none.
    ///
    /// - Returns: the groups in the order of `ends`; nil when `samples` are not in time order or
    ///   `pauses` (from `start`) are not in order and apart, for which only runs of their own say
    ///   what each cut gives.
    public static func rebucketing(
        _ samples: [Sample], into configuration: WorkoutZoneConfiguration, start: Duration, pauses: [Range<Duration>],
        cutAt ends: [Duration], maximumHold: Duration? = nil
    ) -> [WorkoutZoneGroup?]? {
        let pauses = pauses.compactMap { pause -> (Int128, Int128)? in
            let lower = max(pause.lowerBound, start)
            return lower < pause.upperBound ? (lower.attosecondCount, pause.upperBound.attosecondCount) : nil
        }
        guard zip(pauses, pauses.dropFirst()).allSatisfy({ $0.1 <= $1.0 }),
            zip(samples, samples.dropFirst()).allSatisfy({ $0.time <= $1.time })
        else { return nil }
        let type = configuration.quantityType
        var classifier = ZoneClassifier(
            configuration: configuration, maximumHold: maximumHold, start: start, reportsUpdates: false)
        var events = PauseEvents(pauses: pauses)
        func applyEvents(through limit: Int128) { events.apply(through: limit, to: &classifier) }
        var groups = [WorkoutZoneGroup?](repeating: nil, count: ends.count)
        var next = 0
        for index in ends.indices.sorted(by: { ends[$0] < ends[$1] }) where ends[index] >= start {
            let end = ends[index].attosecondCount
            // What a run cut at `end` does before that instant, it does here too.
            while next < samples.count, samples[next].time.attosecondCount < end {
                let sample = samples[next]
                next += 1
                guard sample.type == type else { continue }
                applyEvents(through: sample.time.attosecondCount)
                guard sample.time.attosecondCount >= classifier.latestTime else { continue }
                classifier.apply(sample.value, at: sample.time.attosecondCount)
            }
            applyEvents(through: end - 1)
            // At `end`: a pause under way resumes there (cut to it); one that begins there is none.
            var cut = classifier
            if events.isPaused { cut.applyResume(at: end) }
            for sample in samples[next...] {
                guard sample.time.attosecondCount == end else { break }
                guard sample.type == type, end >= cut.latestTime else { continue }
                cut.apply(sample.value, at: end)
            }
            cut.applyEnd(at: end)
            groups[index] = cut.zoneGroup
        }
        return groups
    }
}

extension ZoneClassifier {
    /// A stored sample's value at `time`: NaN is a hold end.
    @inline(__always)
    fileprivate mutating func apply(_ value: Double, at time: Int128) {
        if value.isNaN { applyEndHold(at: time) } else { apply(value: value, at: time) }
    }
}

/// A timeline's pauses as a classifier's events, in order: event 2k pauses at `pauses[k].0`, 2k+1
/// resumes at `pauses[k].1` (attoseconds).
private struct PauseEvents {
    let pauses: [(Int128, Int128)]
    private var next = 0

    init(pauses: [(Int128, Int128)]) { self.pauses = pauses }

    /// Whether the latest event applied is a pause that has not ended.
    var isPaused: Bool { next % 2 == 1 }

    /// Applies to `classifier` the events up to `limit`, in order.
    mutating func apply(through limit: Int128, to classifier: inout ZoneClassifier) {
        while next < 2 * pauses.count {
            let pause = pauses[next / 2]
            let time = next % 2 == 0 ? pause.0 : pause.1
            guard time <= limit else { return }
            if next % 2 == 0 { classifier.applyPause(at: time) } else { classifier.applyResume(at: time) }
            next += 1
        }
    }
}
