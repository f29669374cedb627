public import SensorCore

extension WorkoutZoneGroup {
    /// Classifies the stored raw samples of a workout again, into any configuration (DESIGN.md §3
    /// "Zones", re-bucketing): the same sample-and-hold rule, pauses and end as the live classifier,
    /// so a workout recorded with 5 heart-rate zones can be compared with one recorded with 7.
    /// Re-bucketing into the configuration used live gives exactly the live group.
    ///
    /// Samples of other quantity types are ignored, and so are the samples the live classifier
    /// refuses: NaN values, and samples before the start, after the end or earlier than the sample,
    /// pause or resume before them.
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
            time: \.time, value: { $0.type == type ? $0.value : .nan })
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
    /// before samples of the same time, which credits the same either way). `value` gives NaN for
    /// samples to skip.
    @inline(__always)
    private static func rebucket<Element>(
        _ samples: [Element], into configuration: WorkoutZoneConfiguration, timeline: WorkoutTimeline,
        maximumHold: Duration?, time: (Element) -> Duration, value: (Element) -> Double
    ) -> WorkoutZoneGroup {
        var classifier = ZoneClassifier(
            configuration: configuration, maximumHold: maximumHold, start: timeline.start, reportsUpdates: false)
        let pauses = timeline.pauses.map { ($0.lowerBound.attosecondCount, $0.upperBound.attosecondCount) }
        let end = timeline.end.attosecondCount
        // Events are the pauses' bounds in order: 2k pauses at pauses[k].lowerBound, 2k+1 resumes at its upperBound.
        var event = 0
        func applyEvents(through limit: Int128) {
            while event < 2 * pauses.count {
                let pause = pauses[event / 2]
                let eventTime = event % 2 == 0 ? pause.0 : pause.1
                guard eventTime <= limit else { return }
                if event % 2 == 0 { classifier.applyPause(at: eventTime) } else { classifier.applyResume(at: eventTime) }
                event += 1
            }
        }
        for sample in samples {
            let sampleValue = value(sample)
            let sampleTime = time(sample).attosecondCount
            guard !sampleValue.isNaN, sampleTime <= end else { continue }
            applyEvents(through: sampleTime)
            guard sampleTime >= classifier.latestTime else { continue }
            classifier.apply(value: sampleValue, at: sampleTime)
        }
        applyEvents(through: end)
        classifier.applyEnd(at: end)
        return classifier.zoneGroup
    }
}
