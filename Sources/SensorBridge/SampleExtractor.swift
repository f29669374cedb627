public import GATT
public import SensorCore

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

    /// Appends the samples of `value`, received at `time`, to `samples`.
    public mutating func extract(_ value: GATTValue, at time: Duration, into samples: inout [Sample]) {
        func add(_ type: QuantityType, _ v: Double) {
            samples.append(Sample(sensor: sensor, type: type, value: v, time: time))
        }
        switch value {
        case .heartRateMeasurement(let m):
            add(.heartRate, Double(m.heartRate))
            for rr in m.rrIntervals { add(.rrInterval, rr.seconds) }
            if let energy = m.energyExpended { add(.energyExpended, Double(energy)) }
        case .cyclingPowerMeasurement(let m):
            add(.cyclingPower, Double(m.instantaneousPower))
            if let balance = m.pedalPowerBalancePercent, m.pedalPowerBalanceReference == .left {
                add(.pedalPowerBalance, balance)
            }
            if let crank = m.crankRevolutionData, let rpm = cadence.update(crank, at: time) { add(.cyclingCadence, rpm) }
            if let wheel = m.wheelRevolutionData, let v = speed.update(wheel, at: time) { add(.cyclingSpeed, v) }
            if let energy = m.accumulatedEnergy { add(.accumulatedEnergy, Double(energy)) }
        case .cscMeasurement(let m):
            if let crank = m.crankRevolutionData, let rpm = cadence.update(crank, at: time) { add(.cyclingCadence, rpm) }
            if let wheel = m.wheelRevolutionData, let v = speed.update(wheel, at: time) { add(.cyclingSpeed, v) }
        case .batteryLevel(let b):
            add(.batteryLevel, Double(b.percent))
        case .cyclingPowerVector, .cyclingPowerFeature, .sensorLocation, .bodySensorLocation:
            break
        }
    }
}
