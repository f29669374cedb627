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
    /// A power of 0 W is valid (coasting).
    @discardableResult
    public mutating func extract(_ value: GATTValue, at time: Duration, into samples: inout [Sample]) -> SensorState? {
        func add(_ type: QuantityType, _ v: Double, isHeld: Bool = false) {
            samples.append(Sample(sensor: sensor, type: type, value: v, time: time, isHeld: isHeld))
        }
        /// Cadence and speed from revolution counters; a rate the counter did not move for is held.
        func addRevolutions(_ crank: CrankRevolutionData?, _ wheel: WheelRevolutionData?) {
            if let crank, let rpm = cadence.update(crank, at: time) { add(.cyclingCadence, rpm, isHeld: !cadence.revolved) }
            if let wheel, let v = speed.update(wheel, at: time) { add(.cyclingSpeed, v, isHeld: !speed.revolved) }
        }
        switch value {
        case .heartRateMeasurement(let m):
            if m.sensorContact == .notDetected { return .noContact }
            guard SensorState.plausibleHeartRate.contains(Double(m.heartRate)) else { return .invalid }
            add(.heartRate, Double(m.heartRate))
            for rr in m.rrIntervals { add(.rrInterval, rr.seconds) }
            if let energy = m.energyExpended { add(.energyExpended, Double(energy)) }
        case .cyclingPowerMeasurement(let m):
            add(.cyclingPower, Double(m.instantaneousPower))
            if let balance = m.pedalPowerBalancePercent, m.pedalPowerBalanceReference == .left {
                add(.pedalPowerBalance, balance)
            }
            addRevolutions(m.crankRevolutionData, m.wheelRevolutionData)
            if let energy = m.accumulatedEnergy { add(.accumulatedEnergy, Double(energy)) }
        case .cscMeasurement(let m):
            addRevolutions(m.crankRevolutionData, m.wheelRevolutionData)
        case .batteryLevel(let b):
            add(.batteryLevel, Double(b.percent))
        case .cyclingPowerVector, .cyclingPowerFeature, .sensorLocation, .bodySensorLocation:
            break
        }
        return nil
    }
}
