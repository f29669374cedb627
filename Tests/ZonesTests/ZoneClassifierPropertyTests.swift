import SensorCore
import Testing
import Zones

/// A random workout: samples, pauses, resumes and ticks in time order, then an end.
struct RandomWorkout {
    enum Event {
        case sample(Duration, Double)
        case pause(Duration)
        case resume(Duration)
        case tick(Duration)
    }

    var start: Duration
    var events: [Event] = []
    var end: Duration = .zero

    /// - Parameter gapsAndPauses: false for a stream whose holds cover the whole workout: first sample
    ///   at the start, samples at most one hold apart, the end within the last hold, no pauses.
    init(seed: UInt64, configuration: WorkoutZoneConfiguration, hold: Duration, gapsAndPauses: Bool) {
        var random = SplitMix64(seed: seed)
        start = .milliseconds(Int.random(in: 0..<10_000, using: &random))
        let holdMilliseconds = Int(hold.components.seconds) * 1000
        // Values on, just below and between the boundaries, and far outside them.
        var values = configuration.boundaryValues.flatMap { [$0, $0.nextDown, $0 + 0.5] }
        values += [-50, 0, 10_000]
        var time = start
        var paused = false
        for index in 0..<Int.random(in: 1...250, using: &random) {
            if index > 0 || gapsAndPauses {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: break  // two samples at the same time
                case 1 where gapsAndPauses:  // a dropout longer than the hold
                    time += .milliseconds(Int.random(in: holdMilliseconds...(4 * holdMilliseconds), using: &random))
                case 2:  // a step that is not a whole number of nanoseconds
                    time += Duration(secondsComponent: 0, attosecondsComponent: Int64.random(in: 1...999_999_999_999_999_999, using: &random))
                default:
                    time += .milliseconds(Int.random(in: 1...holdMilliseconds, using: &random))
                }
            }
            if gapsAndPauses, Int.random(in: 0..<12, using: &random) == 0 {
                events.append(paused ? .resume(time) : .pause(time))
                paused.toggle()
            }
            var value = Bool.random(using: &random)
                ? values.randomElement(using: &random)! : Double.random(in: 40...220, using: &random)
            // Now and then a hold end (NaN: a strap's "no contact", a refused value).
            if gapsAndPauses, Int.random(in: 0..<15, using: &random) == 0 { value = .nan }
            events.append(.sample(time, value))
            if Int.random(in: 0..<4, using: &random) == 0 {
                // A tick no later than the next event, as a builder ticks with every sample consumed.
                events.append(.tick(time + .milliseconds(Int.random(in: 0...holdMilliseconds, using: &random))))
            }
        }
        end = time + .milliseconds(Int.random(in: 0...(gapsAndPauses ? 3 : 1) * holdMilliseconds, using: &random))
        // Keep ticks in time order with the events after them: a tick may not pass the next sample.
        for index in events.indices {
            guard case .tick(let tick) = events[index] else { continue }
            let next = events[(index + 1)...].lazy.compactMap { event -> Duration? in
                switch event {
                case .sample(let t, _), .pause(let t), .resume(let t): t
                case .tick: nil
                }
            }.first ?? end
            events[index] = .tick(min(tick, next))
        }
    }

    var samples: [(time: Duration, value: Double)] {
        events.compactMap { if case .sample(let t, let v) = $0 { (t, v) } else { nil } }
    }

    /// Paused intervals, the last one closed by the end if the workout ended paused.
    var pauses: [Range<Duration>] {
        var ranges: [Range<Duration>] = []
        var pausedAt: Duration?
        for event in events {
            switch event {
            case .pause(let t): pausedAt = t
            case .resume(let t):
                if let p = pausedAt { ranges.append(p..<t) }
                pausedAt = nil
            default: break
            }
        }
        if let pausedAt { ranges.append(pausedAt..<end) }
        return ranges
    }

    /// Runs the events through a classifier, with or without the ticks.
    func classify(_ configuration: WorkoutZoneConfiguration, hold: Duration, ticks: Bool) throws
        -> (group: WorkoutZoneGroup, updates: [ZoneUpdate])
    {
        var classifier = ZoneClassifier(configuration: configuration, maximumHold: hold, start: start)
        var updates: [ZoneUpdate] = []
        for event in events {
            switch event {
            case .sample(let t, let v) where v.isNaN: try classifier.endHold(at: t)
            case .sample(let t, let v): try classifier.add(v, at: t)
            case .pause(let t): try classifier.pause(at: t)
            case .resume(let t): try classifier.resume(at: t)
            case .tick(let t): if ticks { classifier.tick(at: t) }
            }
            while let update = classifier.nextUpdate() { updates.append(update) }
        }
        try classifier.end(at: end)
        while let update = classifier.nextUpdate() { updates.append(update) }
        return (classifier.zoneGroup, updates)
    }
}

/// The specification written the slow, obvious way, to check the classifier against.
enum ReferenceModel {
    /// Each sample credits [t, min(next, t + hold, end)) minus the pauses to the zone found with
    /// `WorkoutZone.contains`; a hold end (NaN) credits nothing.
    static func durations(of workout: RandomWorkout, _ configuration: WorkoutZoneConfiguration, hold: Duration)
        -> [Duration]
    {
        var totals = Array(repeating: Duration.zero, count: configuration.zones.count)
        let samples = workout.samples
        for (index, sample) in samples.enumerated() {
            let next = index + 1 < samples.count ? samples[index + 1].time : workout.end
            let stop = min(next, sample.time + hold, workout.end)
            guard stop > sample.time, !sample.value.isNaN else { continue }
            var credited = stop - sample.time
            for pause in workout.pauses {
                let overlap = min(stop, pause.upperBound) - max(sample.time, pause.lowerBound)
                if overlap > .zero { credited -= overlap }
            }
            let quantity = Quantity(sample.value, configuration.unit)
            let zone = configuration.zones.first { $0.contains(quantity) }!
            totals[zone.index] += credited
        }
        return totals
    }

    /// The changes of the current zone: a sample's zone from its time, none from the end of its hold
    /// when the next sample (or the end) comes strictly later, none from a hold end.
    static func changes(of workout: RandomWorkout, _ configuration: WorkoutZoneConfiguration, hold: Duration)
        -> [(time: Duration, previous: Int?, current: Int?)]
    {
        var changes: [(time: Duration, previous: Int?, current: Int?)] = []
        var current: Int?
        func change(to zone: Int?, at time: Duration) {
            if zone != current { changes.append((time, current, zone)) }
            current = zone
        }
        let samples = workout.samples
        for (index, sample) in samples.enumerated() {
            if index > 0, samples[index - 1].time + hold < sample.time {
                change(to: nil, at: samples[index - 1].time + hold)
            }
            change(to: sample.value.isNaN ? nil : configuration.zoneIndex(for: sample.value), at: sample.time)
        }
        if let last = samples.last, last.time + hold < workout.end { change(to: nil, at: last.time + hold) }
        return changes
    }
}

@Suite struct ZoneClassifierPropertyTests {
    static let configurations = [
        try! AthleteProfile(age: 40, restingHeartRate: 50).heartRateZoneConfiguration(),
        try! AthleteProfile(functionalThresholdPower: 250).cyclingPowerZoneConfiguration(model: .sevenZones),
        try! WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [150, 151]),
    ]

    @Test(arguments: 0..<150)
    func matchesTheSpecificationOnRandomStreams(seed: UInt64) throws {
        let configuration = Self.configurations[Int(seed) % Self.configurations.count]
        let hold = ZoneClassifier.defaultMaximumHold(for: configuration.quantityType)
        let gapsAndPauses = seed % 5 != 0
        let workout = RandomWorkout(seed: seed, configuration: configuration, hold: hold, gapsAndPauses: gapsAndPauses)
        let live = try workout.classify(configuration, hold: hold, ticks: true)

        // Time in zone is exactly what the obvious implementation of the rule gives...
        #expect(live.group.durations == ReferenceModel.durations(of: workout, configuration, hold: hold), "seed \(seed)")
        // ... never more than the active time, and all of it when holds cover the workout.
        let timeline = try WorkoutTimeline(start: workout.start, end: workout.end, pauses: workout.pauses)
        #expect(live.group.totalDuration <= timeline.activeDuration, "seed \(seed)")
        if !gapsAndPauses { #expect(live.group.totalDuration == timeline.activeDuration, "seed \(seed)") }

        // One update per change of the current zone, with the same times and zones.
        let changes = ReferenceModel.changes(of: workout, configuration, hold: hold)
        #expect(live.updates.count == changes.count, "seed \(seed)")
        for (update, change) in zip(live.updates, changes) {
            #expect(update.time == change.time && update.previousZoneIndex == change.previous
                && update.currentZoneIndex == change.current, "seed \(seed)")
        }
        // Ticks decide only when a stale sensor is noticed, never what the updates say.
        #expect(try workout.classify(configuration, hold: hold, ticks: false).updates == live.updates, "seed \(seed)")

        // Re-bucketing the raw samples into the same configuration gives the live group exactly.
        let rebucketed = WorkoutZoneGroup(
            rebucketing: workout.samples, into: configuration, timeline: timeline, maximumHold: hold)
        #expect(rebucketed == live.group, "seed \(seed)")
        let asSamples = workout.samples.map {
            Sample(sensor: SensorID(0), type: configuration.quantityType, value: $0.value, time: $0.time)
        }
        #expect(WorkoutZoneGroup(rebucketing: asSamples, into: configuration, timeline: timeline, maximumHold: hold)
            == live.group, "seed \(seed)")
    }
}
