/// Tells a power value no rider could produce from a power meter's values just before it (DESIGN 3,
/// "Valid values"): a value more than `factor` times the median of the same sensor's values of the
/// `window` before it, and more than `margin` above that median, is a spike.
///
/// It looks only behind, so a value is judged as it arrives, live and in a replay alike (the same
/// values at the same times give the same verdicts), and no figure waits for later values. The
/// price is that the first second of a real sprint looks like a spike when its jump is larger
/// than `margin` (2,000 W: no rider jumps from 200 W to 2,200 W within one pedal stroke, and a
/// sprint from 200 W to 1,200 W counts from its first value); a glitch smaller than that counts.
/// Every value within `SensorState.plausiblePower` enters the window, refused or not, so a
/// sustained jump counts once it is the median (half the window later).
public struct PowerSpikeDetector: Sendable {
    /// How far back the reference median looks.
    public static let window = Duration.seconds(5)
    /// A spike is more than this many times the median...
    public static let factor = 5.0
    /// ...and more than this many watts above it.
    public static let margin = 2000.0
    /// Fewer values than this in the window judge nothing (the start, after a silence).
    public static let minimumReferenceCount = 3
    /// At most this many values are kept (a meter notifying 4 times a second sends 20 in 5 s).
    static let capacity = 32

    private var times: [Duration] = []
    private var values: [Double] = []
    private var sorted: [Double] = []

    public init() {
        times.reserveCapacity(Self.capacity)
        values.reserveCapacity(Self.capacity)
        sorted.reserveCapacity(Self.capacity)
    }

    /// True when `power` (W) at `time` is a spike against the values before it; then notes it.
    /// Times come in order per sensor.
    public mutating func isSpike(_ power: Double, at time: Duration) -> Bool {
        var drop = 0
        while drop < times.count, time - times[drop] > Self.window { drop += 1 }
        // Room for this value: the oldest go first.
        drop = max(drop, times.count - Self.capacity + 1)
        if drop > 0 {
            times.removeFirst(drop)
            values.removeFirst(drop)
        }
        var spike = false
        if values.count >= Self.minimumReferenceCount {
            sorted.removeAll(keepingCapacity: true)
            sorted.append(contentsOf: values)
            let median = Self.median(sorting: &sorted)
            spike = power > median * Self.factor && power - median > Self.margin
        }
        if SensorState.plausiblePower.contains(power) {
            times.append(time)
            values.append(power)
        }
        return spike
    }

    /// The median of `values`, which are sorted in place (the mean of the middle two for an even
    /// count); not empty.
    static func median(sorting values: inout [Double]) -> Double {
        values.sort()
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }
}
