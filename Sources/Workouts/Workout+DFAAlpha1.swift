import SensorCore
import Zones

/// One window of a workout's DFA α1, for charts and thresholds.
public struct DFAAlpha1Point: Sendable, Hashable {
    /// Seconds from the workout's start to the window's newest beat.
    public var offset: Double
    public var alpha1: Double
    /// The heart rate and power held at that time (the zone rule's bounded hold), if any.
    public var heartRate: Double?
    public var power: Double?

    public init(offset: Double, alpha1: Double, heartRate: Double? = nil, power: Double? = nil) {
        self.offset = offset
        self.alpha1 = alpha1
        self.heartRate = heartRate
        self.power = power
    }
}

/// A workout's DFA α1: every window that gave a value, in time order.
public struct DFAAlpha1Series: Sendable, Hashable {
    public var points: [DFAAlpha1Point]
    /// Windows refused for too few beats or too many artefacts.
    public var refusedWindows: Int
    /// The RR intervals judged (received while active).
    public var intervalCount: Int

    public init(points: [DFAAlpha1Point], refusedWindows: Int = 0, intervalCount: Int = 0) {
        self.points = points
        self.refusedWindows = refusedWindows
        self.intervalCount = intervalCount
    }

    /// The mean α1 over the windows; nil without one.
    public var mean: Double? {
        points.isEmpty ? nil : points.reduce(0) { $0 + $1.alpha1 } / Double(points.count)
    }

    /// The heart rates and powers where α1 crosses 0.75 and 0.5 (`DFAThresholds`).
    public var thresholds: DFAThresholds { DFAThresholds(points) }
}

extension Workout {
    /// The rolling DFA α1 of the workout's RR intervals (`DFAAlpha1Windows`), worked out from its
    /// samples: intervals count while active, and a pause or a hold end of the strap (its values
    /// stopped counting) ends a run, as for RMSSD. Each window carries the heart rate and power
    /// held at its newest beat.
    public func dfaAlpha1() -> DFAAlpha1Series {
        var windows = DFAAlpha1Windows()
        var found: [DFAAlpha1Window] = []
        var heartRates: [Sample] = []
        var powers: [Sample] = []
        let pauses = self.pauses.sorted { $0.lowerBound < $1.lowerBound }
        var pausesBegun = 0
        for sample in samplesWithHoldEnds {
            switch sample.type {
            case .heartRate: heartRates.append(sample)
            case .cyclingPower: powers.append(sample)
            case .rrInterval:
                while pausesBegun < pauses.count, pauses[pausesBegun].lowerBound <= sample.time {
                    pausesBegun += 1
                    found += windows.endRun()
                }
                let paused = pausesBegun > 0 && pauses[pausesBegun - 1].upperBound > sample.time
                if sample.value.isNaN {
                    found += windows.endRun()
                } else if !paused {
                    found += windows.add(sample.value, at: sample.time)
                }
            default: break
            }
        }
        found += windows.endRun()
        let heldHeartRate = Self.heldValues(heartRates, at: found.map(\.time), hold: ZoneClassifier.defaultMaximumHold(for: .heartRate))
        let heldPower = Self.heldValues(powers, at: found.map(\.time), hold: ZoneClassifier.defaultMaximumHold(for: .cyclingPower))
        let points = found.indices.map { index in
            DFAAlpha1Point(
                offset: (found[index].time - start).seconds, alpha1: found[index].alpha1,
                heartRate: heldHeartRate[index], power: heldPower[index])
        }
        return DFAAlpha1Series(points: points, refusedWindows: windows.refused, intervalCount: windows.intervalCount)
    }

    /// The value each time falls in the hold of: the latest sample at or before it, less than
    /// `hold` before it and not a hold end (NaN). Samples and times in order.
    static func heldValues(_ samples: [Sample], at times: [Duration], hold: Duration) -> [Double?] {
        var next = 0
        return times.map { time in
            while next < samples.count, samples[next].time <= time { next += 1 }
            guard next > 0 else { return nil }
            let latest = samples[next - 1]
            return !latest.value.isNaN && time - latest.time < hold ? latest.value : nil
        }
    }
}
