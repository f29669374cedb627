// `sensorbridge-bench zones`: live classification speed against the obvious alternative, and
// re-bucketing 1000 one-hour workouts. Prints {"classifyPerSecond": N, "rebucket1000HoursSeconds": s}
// with --json.
import Foundation
import SensorCore
import Zones

enum ZonesBenchmark {
    /// One hour of a ride: heart rate at 1 Hz and power at 4 Hz, in time order.
    private struct Ride {
        var samples: [Sample] = []
        var timeline: WorkoutTimeline
    }

    /// One measured stream: samples per second of CPU time, the zone changes seen and the time in
    /// all zones (which the fast and the naive classifier must agree on).
    private struct Rate {
        var perSecond: Double
        var changes: Int
        var total: Duration
    }

    static func run(json: Bool) {
        var random = SplitMix64(seed: 0x5EED_2025)
        let profile = AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)
        // The benchmark's inputs are fixed and valid; a failure here is a bug in this file.
        guard let heartRate5 = try? profile.heartRateZoneConfiguration(),
            let power6 = try? profile.cyclingPowerZoneConfiguration(model: .sixZones),
            let power7 = try? profile.cyclingPowerZoneConfiguration(model: .sevenZones),
            let heartRate7 = try? WorkoutZoneConfiguration(
                quantityType: .heartRate, boundaryValues: [110, 125, 140, 152, 163, 175])
        else { fatalError("benchmark zone configurations are invalid") }

        // Live classification, as the builder drives it: 56 rides back to back (about 1 M samples,
        // 80 % of them power), each sample routed to its type's classifier, updates taken after each.
        var rides: [Sample] = []
        for index in 0..<56 {
            rides += ride(&random).samples.map { sample in
                var shifted = sample
                shifted.time += .seconds(3600 * index)
                return shifted
            }
        }
        let heartRateOnly = rides.filter { $0.type == .heartRate }
        let configurations = (heartRate: heartRate5, power: power6)
        let fast = (rides: classify(rides, configurations), heartRate: classify(heartRateOnly, configurations))
        let naive = (
            rides: classifyNaively(rides, configurations), heartRate: classifyNaively(heartRateOnly, configurations)
        )
        guard fast.rides.total == naive.rides.total, fast.heartRate.total == naive.heartRate.total else {
            fatalError("the classifiers disagree: \(fast) against \(naive)")
        }

        // Re-bucketing: 1000 generated one-hour rides, heart rate from 5 into 7 zones and power from
        // 6 into Coggan's 7; only the re-bucketing is timed.
        var rebucketing = Duration.zero
        var rebucketedSamples = 0
        for _ in 0..<1000 {
            let workout = ride(&random)
            rebucketedSamples += workout.samples.count
            let began = Bench.threadCPUTime()
            let heartRate = WorkoutZoneGroup(rebucketing: workout.samples, into: heartRate7, timeline: workout.timeline)
            let power = WorkoutZoneGroup(rebucketing: workout.samples, into: power7, timeline: workout.timeline)
            rebucketing += Bench.threadCPUTime() - began
            guard heartRate.totalDuration + power.totalDuration <= workout.timeline.activeDuration * 2 else {
                fatalError("re-bucketing credited more than the active time")
            }
        }

        if json {
            var object = JSONObject()
            object.append("classifyPerSecond", .number(fast.rides.perSecond.rounded()))
            object.append("rebucket1000HoursSeconds", .number((rebucketing.seconds * 1000).rounded() / 1000))
            print(JSONValue.object(object).serialized)
            return
        }
        func line(_ name: String, _ count: Int, _ fast: Rate, _ naive: Rate) -> String {
            let share = String(format: "%.1f", 100 * Double(fast.changes) / Double(count))
            return "  \(name) \(count) samples, \(share) % change zone\n"
                + "    ZoneClassifier (updates taken)         \(millions(fast.perSecond)) M samples/s\n"
                + "    naive Quantity + zones.first(where:)   \(millions(naive.perSecond)) M samples/s"
                + "   ratio \(String(format: "%.1f", fast.perSecond / naive.perSecond))x"
        }
        print("zones: live classification, best of 7 runs, per second of one thread's CPU time")
        print(line("56 one-hour rides (heart rate 1 Hz, power 4 Hz):", rides.count, fast.rides, naive.rides))
        print(line("their heart rate only:", heartRateOnly.count, fast.heartRate, naive.heartRate))
        print("zones: re-bucket 1000 one-hour rides (\(rebucketedSamples) samples), heart rate into 7 zones and power")
        print("  into 7 zones: \(String(format: "%.3f", rebucketing.seconds)) s of CPU time "
            + "(\(millions(Double(rebucketedSamples) / rebucketing.seconds)) M samples/s)")
    }

    /// Feeds `samples` to one `ZoneClassifier` per type as a live builder does, taking the updates
    /// after every sample; the best of 7 runs.
    private static func classify(
        _ samples: [Sample], _ configurations: (heartRate: WorkoutZoneConfiguration, power: WorkoutZoneConfiguration)
    ) -> Rate {
        var best = Duration.seconds(1000)
        var changes = 0
        var total = Duration.zero
        for _ in 0..<7 {
            let began = Bench.threadCPUTime()
            var heartRate = ZoneClassifier(configuration: configurations.heartRate)
            var power = ZoneClassifier(configuration: configurations.power)
            changes = 0
            for sample in samples {
                if sample.type == .heartRate {
                    try? heartRate.add(sample.value, at: sample.time)
                    if heartRate.hasPendingUpdates {
                        while let _ = heartRate.nextUpdate() { changes += 1 }
                    }
                } else {
                    try? power.add(sample.value, at: sample.time)
                    if power.hasPendingUpdates {
                        while let _ = power.nextUpdate() { changes += 1 }
                    }
                }
            }
            best = min(best, Bench.threadCPUTime() - began)
            total = heartRate.zoneGroup.totalDuration + power.zoneGroup.totalDuration
        }
        return Rate(perSecond: Double(samples.count) / best.seconds, changes: changes, total: total)
    }

    /// The same with `NaiveClassifier` (no end, so both credit up to the last sample); the best of 3 runs.
    private static func classifyNaively(
        _ samples: [Sample], _ configurations: (heartRate: WorkoutZoneConfiguration, power: WorkoutZoneConfiguration)
    ) -> Rate {
        var best = Duration.seconds(1000)
        var changes = 0
        var total = Duration.zero
        for _ in 0..<3 {
            let began = Bench.threadCPUTime()
            var heartRate = NaiveClassifier(configuration: configurations.heartRate, maximumHold: .seconds(5))
            var power = NaiveClassifier(configuration: configurations.power, maximumHold: .seconds(3))
            for sample in samples {
                if sample.type == .heartRate {
                    heartRate.add(sample.value, at: sample.time)
                } else {
                    power.add(sample.value, at: sample.time)
                }
            }
            changes = heartRate.changes.count + power.changes.count
            best = min(best, Bench.threadCPUTime() - began)
            total = heartRate.totals.values.reduce(.zero, +) + power.totals.values.reduce(.zero, +)
        }
        return Rate(perSecond: Double(samples.count) / best.seconds, changes: changes, total: total)
    }

    /// A one-hour ride starting at 0: heart rate drifting between 100 and 185 bpm each second,
    /// power around an interval target (150 to 380 W) with noise each 250 ms, a 2-minute pause and
    /// a 20-second power dropout at random times.
    private static func ride(_ random: inout SplitMix64) -> Ride {
        let pauseStart = Duration.seconds(600 + Int(random.next() % 2400))
        let pause = pauseStart..<(pauseStart + .seconds(120))
        let dropoutStart = Duration.milliseconds(250 * Int(random.next() % 14_000))
        let dropout = dropoutStart..<(dropoutStart + .seconds(20))
        // The timeline is valid by construction: one pause inside [0, 3600 s].
        guard let timeline = try? WorkoutTimeline(end: .seconds(3600), pauses: [pause]) else {
            fatalError("benchmark timeline is invalid")
        }
        var ride = Ride(timeline: timeline)
        ride.samples.reserveCapacity(18_000)
        var heartRate = 120.0
        var target = 200.0
        for quarter in 0..<14_400 {
            let time = Duration.milliseconds(250 * quarter)
            if quarter % 4 == 0 {
                heartRate = min(185, max(100, heartRate + random.uniform(-1.5, 1.6)))
                ride.samples.append(Sample(sensor: SensorID(0), type: .heartRate, value: heartRate.rounded(), time: time))
            }
            if quarter % 1200 == 0 { target = random.uniform(150, 380) }
            if !dropout.contains(time) {
                let power = (target + random.uniform(-40, 40)).rounded()
                ride.samples.append(Sample(sensor: SensorID(1), type: .cyclingPower, value: power, time: time))
            }
        }
        return ride
    }

    private static func millions(_ perSecond: Double) -> String { String(format: "%.1f", perSecond / 1e6) }
}

/// The obvious way to write it: a `Quantity` per sample, the zone found with `first(where:)` over
/// `WorkoutZone.contains`, durations in a dictionary. Same hold rule, no pauses.
private struct NaiveClassifier {
    let configuration: WorkoutZoneConfiguration
    let maximumHold: Duration
    var totals: [Int: Duration] = [:]
    var changes: [(time: Duration, zone: Int)] = []
    var previous: (time: Duration, zone: Int)?

    init(configuration: WorkoutZoneConfiguration, maximumHold: Duration) {
        self.configuration = configuration
        self.maximumHold = maximumHold
    }

    mutating func add(_ value: Double, at time: Duration) {
        let quantity = Quantity(value, configuration.unit)
        guard let zone = configuration.zones.first(where: { $0.contains(quantity) }) else { return }
        if let previous {
            totals[previous.zone, default: .zero] += min(time, previous.time + maximumHold) - previous.time
        }
        if previous?.zone != zone.index { changes.append((time, zone.index)) }
        previous = (time, zone.index)
    }
}
