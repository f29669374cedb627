/// The name of a field of a GATT characteristic value, as the decoders report it in errors and
/// as `sensorbridge decode` prints it: the Bluetooth SIG GATT Specification Supplement's field
/// name in lowerCamelCase.
public enum GATTField: String, Sendable, Hashable, CaseIterable {
    case flags
    // Heart Rate Measurement (GSS 3.113)
    case heartRate
    case energyExpended
    case rrIntervals
    // Cycling Power Measurement (GSS 3.64)
    case instantaneousPower
    case pedalPowerBalance
    case accumulatedTorque
    case wheelRevolutions
    case lastWheelEventTime
    case crankRevolutions
    case lastCrankEventTime
    case maximumForceMagnitude
    case minimumForceMagnitude
    case maximumTorqueMagnitude
    case minimumTorqueMagnitude
    case extremeAngles
    case topDeadSpotAngle
    case bottomDeadSpotAngle
    case accumulatedEnergy
    // Cycling Power Vector (GSS 3.65)
    case firstCrankMeasurementAngle
    case instantaneousForceMagnitudes
    case instantaneousTorqueMagnitudes
    // Single-value characteristics
    case cyclingPowerFeature
    case sensorLocation
    case bodySensorLocation
    case batteryLevel
}
