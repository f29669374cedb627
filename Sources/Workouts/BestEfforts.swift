import SensorCore
import Zones

/// One best effort: the highest (or lowest) mean of a quantity over `seconds` seconds of a
/// workout, and where that stretch began.
public struct BestEffort: Sendable, Hashable {
    public var seconds: Int
    /// The mean over the stretch: W for power, count/min for heart rate.
    public var value: Double
    /// Where the stretch began, from the workout's start.
    public var offset: Duration

    public init(seconds: Int, value: Double, offset: Duration) {
        self.seconds = seconds
        self.value = value
        self.offset = offset
    }
}

/// A workout's best efforts (DESIGN.md §3 "Best efforts"): for each of `durations`, its
/// mean-maximal power (the power-duration curve), its highest mean heart rate and its lowest.
///
/// Each is found in the series the workout's normalized power is computed from: the value held at
/// each whole second of active time that a sample covers by the zone rule's hold (3 s for power,
/// 5 s for heart rate; a hold ends early where the sensor stopped counting). Paused seconds and
/// seconds no sample covers (a dropout longer than the hold) are left out, so a stretch is that
/// many seconds of riding, joined across a pause. A duration longer than the series has no effort.
public struct BestEfforts: Sendable, Hashable {
    /// The durations, in seconds: 1 s to 60 min, as the power-duration curves of training
    /// platforms (5 s sprint, 1 min anaerobic, 5 min VO2max, 20 min threshold, 60 min).
    public static let durations = [
        1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300, 360, 480, 600, 720, 900, 1200, 1800, 2400, 3600,
    ]

    /// Mean-maximal power, by duration, shortest first.
    public var power: [BestEffort]
    /// The highest mean heart rate, by duration.
    public var heartRate: [BestEffort]
    /// The lowest mean heart rate, by duration: an upper bound on the resting heart rate.
    public var lowestHeartRate: [BestEffort]

    public init(power: [BestEffort] = [], heartRate: [BestEffort] = [], lowestHeartRate: [BestEffort] = []) {
        self.power = power
        self.heartRate = heartRate
        self.lowestHeartRate = lowestHeartRate
    }

    public var isEmpty: Bool { power.isEmpty && heartRate.isEmpty && lowestHeartRate.isEmpty }

    /// `1 s`, `90 s`, `5 min`, `1 h`: a duration as tables and charts name it.
    public static func durationText(_ seconds: Int) -> String {
        seconds >= 3600 && seconds % 3600 == 0
            ? "\(seconds / 3600) h" : seconds >= 60 && seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }

    /// The best efforts of a series of values one whole second apart, in order: for each of
    /// `durations` up to the series' length, the stretch of that many consecutive values with the
    /// highest mean (the lowest with `highest` false), the earliest of equal ones.
    public static func extremes(of series: [(second: Int64, value: Double)], highest: Bool) -> [BestEffort] {
        guard !series.isEmpty else { return [] }
        // Prefix sums: the mean of values i..<i+d is (sums[i+d] - sums[i]) / d.
        var sums = [0.0]
        sums.reserveCapacity(series.count + 1)
        for entry in series { sums.append(sums[sums.count - 1] + entry.value) }
        return durations.prefix { $0 <= series.count }.map { seconds in
            var best = 0
            var bestSum = sums[seconds]
            for start in stride(from: 1, through: series.count - seconds, by: 1) {
                let sum = sums[start + seconds] - sums[start]
                if highest ? sum > bestSum : sum < bestSum {
                    best = start
                    bestSum = sum
                }
            }
            return BestEffort(seconds: seconds, value: bestSum / Double(seconds), offset: .seconds(series[best].second))
        }
    }
}

extension Workout {
    /// The workout's best efforts, worked out from its samples (`BestEfforts`).
    public func bestEfforts() -> BestEfforts {
        let samples = samplesWithHoldEnds
        var efforts = BestEfforts()
        for type in [QuantityType.cyclingPower, .heartRate] {
            var integrator = HeldValueIntegrator(hold: ZoneClassifier.defaultMaximumHold(for: type), keepingSeconds: true)
            func offset(_ time: Duration) -> Int64 { (time - start).clampedNanoseconds }
            // Pauses and resumes in order, interleaved with the samples as they happened.
            var events = pauses.flatMap { [(time: $0.lowerBound, pause: true), (time: $0.upperBound, pause: false)] }[...]
            for sample in samples where sample.type == type {
                while let event = events.first, event.time <= sample.time {
                    if event.pause { integrator.pause(at: offset(event.time)) } else { integrator.resume(at: offset(event.time)) }
                    events.removeFirst()
                }
                if sample.value.isNaN { integrator.endHold(at: offset(sample.time)) } else { integrator.add(sample.value, at: offset(sample.time)) }
            }
            for event in events where event.time < end {
                if event.pause { integrator.pause(at: offset(event.time)) } else { integrator.resume(at: offset(event.time)) }
            }
            integrator.end(at: offset(end))
            let series = integrator.seconds ?? []
            if type == .cyclingPower {
                efforts.power = BestEfforts.extremes(of: series, highest: true)
            } else {
                efforts.heartRate = BestEfforts.extremes(of: series, highest: true)
                efforts.lowestHeartRate = BestEfforts.extremes(of: series, highest: false)
            }
        }
        return efforts
    }
}
