/// One measured value, stamped on arrival.
///
/// `Sample` is what crosses from the Bluetooth (or replay) thread to the workout engine through
/// the sample ring, so it is small (32 bytes) and `BitwiseCopyable`: no references, no strings.
@frozen
public struct Sample: Sendable, BitwiseCopyable, Hashable {
    /// Time of arrival as an offset from the session anchor (monotonic clock; the capture's own time in replay).
    public var time: Duration
    /// The value in `type.canonicalUnit` (bpm, W, rpm, m/s, s, kJ, %).
    public var value: Double
    /// Which sensor sent it.
    public var sensor: SensorID
    /// What it measures.
    public var type: QuantityType
    /// A rate repeated from the sensor's previous event: its revolution counter did not move
    /// (a crank cadence or wheel speed held between revolutions). It counts for statistics and
    /// zones as the value it repeats, but is no sign that anything turns (auto-pause).
    public var isHeld: Bool

    public init(sensor: SensorID, type: QuantityType, value: Double, time: Duration, isHeld: Bool = false) {
        self.sensor = sensor
        self.type = type
        self.value = value
        self.time = time
        self.isHeld = isHeld
    }
}

extension Duration {
    /// The duration as a `Double` number of seconds (attosecond precision is more than a Double holds).
    public var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}
