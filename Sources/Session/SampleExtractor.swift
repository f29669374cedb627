public import GATT
public import SensorCore
public import Workouts

/// Turns decoded notifications of one sensor into samples: heart rate, RR intervals and energy
/// from 2A37; power, pedal power balance (when referred to the left pedal), cadence and wheel
/// speed from 2A63; cadence and speed from 2A5B; battery level from 2A19. Keeps the per-sensor
/// state cadence and speed need (the previous counters).
public struct SampleExtractor: Sendable {
    public let sensor: SensorID
    private var cadence = CadenceCalculator()
    private var speed: SpeedCalculator
    private var spikes = PowerSpikeDetector()

    /// - Parameter wheelCircumference: metres, for wheel speed.
    public init(sensor: SensorID, wheelCircumference: Double = 2.105) {
        self.sensor = sensor
        speed = SpeedCalculator(circumference: wheelCircumference)
    }

    /// Appends the samples of `value`, received at `time`, to `samples`. Only valid values count:
    /// a heart-rate measurement whose strap reports no skin contact, or with a heart rate of 0 or
    /// outside `SensorState.plausibleHeartRate`, gives no sample at all (its RR intervals and energy
    /// are the same noise), and the sensor's state is returned: `.noContact` or `.invalid`. nil when
    /// the value counted.
    /// A power of 0 W is valid (coasting). A power, cadence or speed measurement with a value no
    /// person could produce (outside `SensorState.plausiblePower`, `plausibleCadence` or
    /// `plausibleSpeed`, or a power spike by `PowerSpikeDetector`) gives no sample at all either
    /// (one impossible field makes the measurement suspect; the cumulative counters behind cadence
    /// and speed still advance, so the next value's delta is right), and returns `.invalid`.
    @discardableResult
    public mutating func extract(_ value: GATTValue, at time: Duration, into samples: inout [Sample]) -> SensorState? {
        func add(_ type: QuantityType, _ v: Double, isHeld: Bool = false) {
            samples.append(Sample(sensor: sensor, type: type, value: v, time: time, isHeld: isHeld))
        }
        switch value {
        case .heartRateMeasurement(let m):
            if m.sensorContact == .notDetected { return .noContact }
            guard SensorState.plausibleHeartRate.contains(Double(m.heartRate)) else { return .invalid }
            add(.heartRate, Double(m.heartRate))
            for rr in m.rrIntervals { add(.rrInterval, rr.seconds) }
            if let energy = m.energyExpended { add(.energyExpended, Double(energy)) }
        case .cyclingPowerMeasurement(let m):
            let power = Double(m.instantaneousPower)
            let spike = spikes.isSpike(power, at: time)
            let rpm = m.crankRevolutionData.flatMap { cadence.update($0, at: time) }
            let v = m.wheelRevolutionData.flatMap { speed.update($0, at: time) }
            guard !spike, SensorState.plausiblePower.contains(power), Self.plausible(rpm: rpm, speed: v) else {
                return .invalid
            }
            add(.cyclingPower, power)
            if let balance = m.pedalPowerBalancePercent, m.pedalPowerBalanceReference == .left {
                add(.pedalPowerBalance, balance)
            }
            if let rpm { add(.cyclingCadence, rpm, isHeld: !cadence.revolved) }
            if let v { add(.cyclingSpeed, v, isHeld: !speed.revolved) }
            if let energy = m.accumulatedEnergy { add(.accumulatedEnergy, Double(energy)) }
        case .cscMeasurement(let m):
            let rpm = m.crankRevolutionData.flatMap { cadence.update($0, at: time) }
            let v = m.wheelRevolutionData.flatMap { speed.update($0, at: time) }
            guard Self.plausible(rpm: rpm, speed: v) else { return .invalid }
            // A rate the counter did not move for is held: no sign that anything turns.
            if let rpm { add(.cyclingCadence, rpm, isHeld: !cadence.revolved) }
            if let v { add(.cyclingSpeed, v, isHeld: !speed.revolved) }
        case .batteryLevel(let b):
            add(.batteryLevel, Double(b.percent))
        case .cyclingPowerVector, .cyclingPowerFeature, .sensorLocation, .bodySensorLocation:
            break
        }
        return nil
    }

    private static func plausible(rpm: Double?, speed: Double?) -> Bool {
        (rpm.map { SensorState.plausibleCadence.contains($0) } ?? true)
            && (speed.map { SensorState.plausibleSpeed.contains($0) } ?? true)
    }
}
