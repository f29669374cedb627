import SensorCore
import Zones

/// The samples of one quantity type, read at increasing times by the zone rule's sample-and-hold:
/// at time t, the latest sample at or before t, if t is within its hold. What a FIT `record`
/// holds for each second.
struct FITHeldSeries: Sendable {
    private let samples: [Sample]
    private let hold: Duration
    /// The index of the first sample after the last time read.
    private var next = 0

    /// - Parameter hold: nil for `ZoneClassifier.defaultMaximumHold(for: type)` (5 s for heart rate, 3 s otherwise).
    init(_ samples: [Sample], of type: QuantityType, hold: Duration? = nil) {
        self.samples = samples.filter { $0.type == type && !$0.value.isNaN }
        self.hold = hold ?? ZoneClassifier.defaultMaximumHold(for: type)
    }

    /// The held value at `time`; times must not decrease from one call to the next.
    mutating func value(at time: Duration) -> Double? {
        while next < samples.count, samples[next].time <= time { next += 1 }
        guard next > 0 else { return nil }
        let latest = samples[next - 1]
        return time < latest.time + hold ? latest.value : nil
    }
}
