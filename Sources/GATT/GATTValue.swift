public import SensorCore

/// A decoded value of any characteristic this package knows: what a notification source or
/// `sensorbridge decode` gets from `(uuid, bytes)`.
public enum GATTValue: Sendable, Hashable {
    case heartRateMeasurement(HeartRateMeasurement)
    case cyclingPowerMeasurement(CyclingPowerMeasurement)
    case cyclingPowerVector(CyclingPowerVector)
    case cscMeasurement(CSCMeasurement)
    case cyclingPowerFeature(CyclingPowerFeature)
    case sensorLocation(SensorLocation)
    case bodySensorLocation(BodySensorLocation)
    case batteryLevel(BatteryLevel)

    /// The UUIDs `decode(uuid:bytes:)` understands.
    public static let supportedUUIDs: [BluetoothUUID] = [
        HeartRateMeasurement.uuid, CyclingPowerMeasurement.uuid, CyclingPowerVector.uuid, CSCMeasurement.uuid,
        CyclingPowerFeature.uuid, SensorLocation.uuid, BodySensorLocation.uuid, BatteryLevel.uuid,
    ]

    /// Whether `decode(uuid:bytes:)` knows this characteristic.
    public static func isSupported(_ uuid: BluetoothUUID) -> Bool { supportedUUIDs.contains(uuid) }

    /// Decodes `bytes` as the characteristic `uuid`; nil when the characteristic is not one this
    /// package decodes (check `isSupported` to tell that apart up front).
    public static func decode(uuid: BluetoothUUID, bytes: [UInt8]) throws(GATTDecodingError) -> GATTValue? {
        switch uuid.shortValue {
        case 0x2A37: .heartRateMeasurement(try HeartRateMeasurement(decoding: bytes))
        case 0x2A63: .cyclingPowerMeasurement(try CyclingPowerMeasurement(decoding: bytes))
        case 0x2A64: .cyclingPowerVector(try CyclingPowerVector(decoding: bytes))
        case 0x2A5B: .cscMeasurement(try CSCMeasurement(decoding: bytes))
        case 0x2A65: .cyclingPowerFeature(try CyclingPowerFeature(decoding: bytes))
        case 0x2A5D: .sensorLocation(try SensorLocation(decoding: bytes))
        case 0x2A38: .bodySensorLocation(try BodySensorLocation(decoding: bytes))
        case 0x2A19: .batteryLevel(try BatteryLevel(decoding: bytes))
        default: nil
        }
    }

    public var uuid: BluetoothUUID {
        switch self {
        case .heartRateMeasurement: HeartRateMeasurement.uuid
        case .cyclingPowerMeasurement: CyclingPowerMeasurement.uuid
        case .cyclingPowerVector: CyclingPowerVector.uuid
        case .cscMeasurement: CSCMeasurement.uuid
        case .cyclingPowerFeature: CyclingPowerFeature.uuid
        case .sensorLocation: SensorLocation.uuid
        case .bodySensorLocation: BodySensorLocation.uuid
        case .batteryLevel: BatteryLevel.uuid
        }
    }

    public var trailingByteCount: Int {
        switch self {
        case .heartRateMeasurement(let v): v.trailingByteCount
        case .cyclingPowerMeasurement(let v): v.trailingByteCount
        case .cyclingPowerVector(let v): v.trailingByteCount
        case .cscMeasurement(let v): v.trailingByteCount
        case .cyclingPowerFeature(let v): v.trailingByteCount
        case .sensorLocation(let v): v.trailingByteCount
        case .bodySensorLocation(let v): v.trailingByteCount
        case .batteryLevel(let v): v.trailingByteCount
        }
    }
}

// MARK: - JSON fields

extension GATTValue {
    /// The decoded fields as `sensorbridge decode` prints them: lowerCamelCase SIG field names in
    /// specification order, SI and display units (seconds, N·m, percent), absent optional
    /// fields left out, and `trailingBytes` when non-zero.
    public var fields: JSONObject {
        var out = JSONObject()
        switch self {
        case .heartRateMeasurement(let m):
            out.append("heartRate", .number(Double(m.heartRate)))
            out.append("sensorContact", .string(m.sensorContact.rawValue))
            if let energy = m.energyExpended { out.append("energyExpended", .number(Double(energy))) }
            if m.flags & 0x10 != 0 { out.append("rrIntervals", .array(m.rrIntervals.map { .number($0.seconds) })) }
        case .cyclingPowerMeasurement(let m):
            out.append("instantaneousPower", .number(Double(m.instantaneousPower)))
            if let balance = m.pedalPowerBalancePercent {
                out.append("pedalPowerBalance", .number(balance))
                out.append("pedalPowerBalanceReference", .string(m.pedalPowerBalanceReference.rawValue))
            }
            if let torque = m.accumulatedTorqueNewtonMetres {
                out.append("accumulatedTorque", .number(torque))
                out.append("accumulatedTorqueSource", .string(m.accumulatedTorqueSource.rawValue))
            }
            if let wheel = m.wheelRevolutionData { GATTValue.append(wheel, to: &out) }
            if let crank = m.crankRevolutionData { GATTValue.append(crank, to: &out) }
            if let force = m.extremeForceMagnitudes {
                out.append("maximumForceMagnitude", .number(Double(force.maximum)))
                out.append("minimumForceMagnitude", .number(Double(force.minimum)))
            }
            if let torque = m.extremeTorqueMagnitudes {
                out.append("maximumTorqueMagnitude", .number(Double(torque.maximum) / 32))
                out.append("minimumTorqueMagnitude", .number(Double(torque.minimum) / 32))
            }
            if let angles = m.extremeAngles {
                out.append("maximumAngle", .number(Double(angles.maximum)))
                out.append("minimumAngle", .number(Double(angles.minimum)))
            }
            if let top = m.topDeadSpotAngle { out.append("topDeadSpotAngle", .number(Double(top))) }
            if let bottom = m.bottomDeadSpotAngle { out.append("bottomDeadSpotAngle", .number(Double(bottom))) }
            if let energy = m.accumulatedEnergy { out.append("accumulatedEnergy", .number(Double(energy))) }
            out.append("offsetCompensationIndicator", .bool(m.offsetCompensationIndicator))
        case .cyclingPowerVector(let v):
            if let crank = v.crankRevolutionData { GATTValue.append(crank, to: &out) }
            if let angle = v.firstCrankMeasurementAngle {
                out.append("firstCrankMeasurementAngle", .number(Double(angle)))
            }
            if v.flags & 0x04 != 0 {
                out.append(
                    "instantaneousForceMagnitudes", .array(v.instantaneousForceMagnitudes.map { .number(Double($0)) }))
            }
            if v.flags & 0x08 != 0 {
                out.append(
                    "instantaneousTorqueMagnitudes",
                    .array(v.instantaneousTorqueMagnitudes.map { .number(Double($0) / 32) }))
            }
            out.append("instantaneousMeasurementDirection", .string(v.instantaneousMeasurementDirection.rawValue))
        case .cscMeasurement(let m):
            if let wheel = m.wheelRevolutionData { GATTValue.append(wheel, to: &out) }
            if let crank = m.crankRevolutionData { GATTValue.append(crank, to: &out) }
        case .cyclingPowerFeature(let f):
            out.append("features", .array(f.features.map { .string($0.name) }))
            out.append("sensorMeasurementContext", .string(f.sensorMeasurementContext.rawValue))
            out.append("distributedSystemSupport", .string(f.distributedSystemSupport.rawValue))
        case .sensorLocation(let s):
            out.append("sensorLocation", .string(s.location.name))
        case .bodySensorLocation(let b):
            out.append("bodySensorLocation", .string(b.location.name))
        case .batteryLevel(let b):
            out.append("batteryLevel", .number(Double(b.percent)))
        }
        if trailingByteCount > 0 { out.append("trailingBytes", .number(Double(trailingByteCount))) }
        return out
    }

    private static func append(_ wheel: WheelRevolutionData, to out: inout JSONObject) {
        out.append("wheelRevolutions", .number(Double(wheel.cumulativeRevolutions)))
        out.append("lastWheelEventTime", .number(wheel.lastEventSeconds))
    }

    private static func append(_ crank: CrankRevolutionData, to out: inout JSONObject) {
        out.append("crankRevolutions", .number(Double(crank.cumulativeRevolutions)))
        out.append("lastCrankEventTime", .number(crank.lastEventSeconds))
    }
}
