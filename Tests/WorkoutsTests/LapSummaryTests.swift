import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// Lap summaries worked out in one pass (issue 31) against the per-lap scans they replaced,
/// written out here as the reference: the same figures, to the bit, on random rides.
@Suite struct LapSummaryTests {
    @Test(arguments: 0..<150)
    func lapSummariesEqualThePerLapScan(seed: UInt64) throws {
        var random = SplitMix64(seed: 0x31_1a95 &+ seed)
        // Every fifth ride has one type's samples out of time order, as no recording makes them:
        // those are summed span by span, and must agree all the same.
        let workout = try Self.randomRide(&random, typeOutOfOrder: seed % 5 == 4)
        let configurations = workout.zoneGroupsByType.mapValues(\.configuration)
        let summaries = workout.lapSummaries()
        #expect(summaries.count == workout.laps.count)
        for (lap, summary) in zip(workout.laps, summaries) {
            Self.expectEqual(summary, Reference(of: lap, in: workout, configurations: configurations), seed: seed)
        }
        // A span of its own (an activity's), bounds anywhere.
        let bounds = [Self.instant(&random, in: workout), Self.instant(&random, in: workout)].sorted()
        let span = bounds[0]..<bounds[1]
        let single = WorkoutSpanSummary(
            of: span, in: workout, configurations: configurations, samplesByType: workout.zonedSamplesByType)
        Self.expectEqual(single, Reference(of: span, in: workout, configurations: configurations), seed: seed)
    }

    static func expectEqual(_ summary: WorkoutSpanSummary, _ reference: Reference, seed: UInt64) {
        #expect(summary.range == reference.range, "seed \(seed)")
        #expect(summary.timerTime == reference.timerTime, "seed \(seed) lap \(reference.range)")
        #expect(summary.statistics == reference.statistics, "seed \(seed) lap \(reference.range)")
        #expect(summary.zoneGroups == reference.zoneGroups, "seed \(seed) lap \(reference.range)")
    }

    /// A ride of 1 to 10 minutes on a 250 ms grid (so samples, pauses and lap bounds often fall on
    /// one instant): heart rate, power (now and then 0) and cadence, their types interleaved
    /// at random, each type in time order unless `typeOutOfOrder`; up to 4 pauses, touching now
    /// and then; up to 30 laps covering it.
    static func randomRide(_ random: inout SplitMix64, typeOutOfOrder: Bool) throws -> Workout {
        let tick = Duration.milliseconds(250)
        let start = tick * Int.random(in: 0...40, using: &random)
        let ticks = Int.random(in: 240...2400, using: &random)
        let end = start + tick * ticks
        func grid(_ count: Int) -> [Int] { (0..<count).map { _ in Int.random(in: 0...ticks, using: &random) }.sorted() }

        let pauseBounds = grid(2 * Int.random(in: 0...4, using: &random))
        let pauses = stride(from: 0, to: pauseBounds.count, by: 2).compactMap { index -> Range<Duration>? in
            pauseBounds[index] < pauseBounds[index + 1] ? (start + tick * pauseBounds[index])..<(start + tick * pauseBounds[index + 1]) : nil
        }
        let lapBounds = [0] + Array(Set(grid(Int.random(in: 0...29, using: &random)))).sorted().filter { $0 > 0 && $0 < ticks } + [ticks]
        let laps = zip(lapBounds, lapBounds.dropFirst()).map { (start + tick * $0)..<(start + tick * $1) }

        var byType: [[Sample]] = [
            grid(ticks / 2).map { Sample(sensor: SensorID(1), type: .heartRate, value: Double(Int.random(in: 100...195, using: &random)), time: start + tick * $0) },
            grid(ticks).map {
                let watts = Int.random(in: 0...60, using: &random) == 0 ? 0 : Double(Int.random(in: 80...380, using: &random))
                return Sample(sensor: SensorID(2), type: .cyclingPower, value: watts, time: start + tick * $0)
            },
            grid(ticks / 3).map { Sample(sensor: SensorID(2), type: .cyclingCadence, value: Double(Int.random(in: 60...110, using: &random)), time: start + tick * $0) },
        ]
        if typeOutOfOrder { byType[Int.random(in: 0...1, using: &random)].shuffle(using: &random) }
        var samples: [Sample] = []
        while let type = byType.indices.filter({ !byType[$0].isEmpty }).randomElement(using: &random) {
            samples.append(byType[type].removeFirst())
        }

        let heartRate = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 160, 180])
        let power = try WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 200, 250, 300, 350])
        return Workout(
            startDate: Date(timeIntervalSince1970: 1_800_000_000), start: start, end: end,
            activeDuration: pauses.reduce(end - start) { $0 - ($1.upperBound - $1.lowerBound) }, pauses: pauses,
            activityType: .cycling, statistics: WorkoutStatistics(),
            zoneGroupsByType: [.heartRate: WorkoutZoneGroup(configuration: heartRate), .cyclingPower: WorkoutZoneGroup(configuration: power)],
            activities: [], laps: laps, events: [], zoneUpdates: [], samples: samples, sensors: [:])
    }

    static func instant(_ random: inout SplitMix64, in workout: Workout) -> Duration {
        workout.start + .milliseconds(250 * Int.random(in: 0...Int((workout.end - workout.start) / .milliseconds(250)), using: &random))
    }

    /// What `WorkoutSpanSummary(of:in:configurations:samplesByType:)` did before issue 31: every
    /// lap scans every sample and pause, and re-buckets the workout from its start twice.
    struct Reference {
        var range: Range<Duration>
        var timerTime: Duration
        var statistics: WorkoutStatistics
        var zoneGroups: [QuantityType: WorkoutZoneGroup] = [:]

        init(of range: Range<Duration>, in workout: Workout, configurations: [QuantityType: WorkoutZoneConfiguration]) {
            self.range = range
            let pauses = workout.pauses.compactMap { WorkoutSpanSummary.clamp($0, to: range) }
            timerTime = pauses.reduce(range.upperBound - range.lowerBound) { $0 - ($1.upperBound - $1.lowerBound) }
            statistics = Self.statistics(of: range, in: workout)
            for (type, configuration) in configurations {
                let all = workout.zonedSamplesByType[type] ?? []
                let samples = Array(all.prefix { $0.time <= range.upperBound })
                guard let atEnd = Self.rebucket(samples, configuration, workout, until: range.upperBound),
                    let atStart = Self.rebucket(samples, configuration, workout, until: range.lowerBound),
                    let group = try? atEnd.subtracting(atStart)
                else { continue }
                // A type with no time in the span has no zone group there.
                if group.totalDuration > .zero { zoneGroups[type] = group }
            }
        }

        static func rebucket(
            _ samples: [Sample], _ configuration: WorkoutZoneConfiguration, _ workout: Workout, until end: Duration
        ) -> WorkoutZoneGroup? {
            let pauses = workout.pauses.compactMap { WorkoutSpanSummary.clamp($0, to: workout.start..<end) }
            guard let timeline = try? WorkoutTimeline(start: workout.start, end: end, pauses: pauses) else { return nil }
            return WorkoutZoneGroup(rebucketing: samples, into: configuration, timeline: timeline)
        }

        static func statistics(of range: Range<Duration>, in workout: Workout) -> WorkoutStatistics {
            var accumulator = StatisticsAccumulator(
                start: range.lowerBound, powerHold: ZoneClassifier.defaultMaximumHold(for: .cyclingPower))
            var events: [(time: Duration, pause: Bool)] = []
            var paused = false
            for pause in workout.pauses {
                if pause.contains(range.lowerBound) { paused = true }
                if range.lowerBound < pause.lowerBound, pause.lowerBound < range.upperBound { events.append((pause.lowerBound, true)) }
                if range.lowerBound < pause.upperBound, pause.upperBound < range.upperBound { events.append((pause.upperBound, false)) }
            }
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
}
