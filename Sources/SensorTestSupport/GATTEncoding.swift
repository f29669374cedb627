public import GATT

/// Little-endian writer for test payloads: the inverse of `ByteReader`.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public mutating func uint8(_ v: UInt8) { bytes.append(v) }
    public mutating func uint16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    public mutating func int16(_ v: Int16) { uint16(UInt16(bitPattern: v)) }
    public mutating func uint24(_ v: UInt32) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    public mutating func uint32(_ v: UInt32) { uint16(UInt16(v & 0xFFFF)); uint16(UInt16(v >> 16)) }
}

/// Test-only encoders: each value back to the bytes a sensor would send, following the value's
/// own flags (so a uint8 heart rate stays one byte). Trailing bytes are not reproduced.
extension HeartRateMeasurement {
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.uint8(flags)
        if heartRateIsUInt16 { w.uint16(heartRate) } else { w.uint8(UInt8(truncatingIfNeeded: heartRate)) }
        if flags & 0x08 != 0 { w.uint16(energyExpended ?? 0) }
        if flags & 0x10 != 0 { rrIntervals.forEach { w.uint16($0.rawValue) } }
        return w.bytes
    }
}

extension CyclingPowerMeasurement {
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.uint16(flags)
        w.int16(instantaneousPower)
        if let v = pedalPowerBalance { w.uint8(v) }
        if let v = accumulatedTorque { w.uint16(v) }
        if let v = wheelRevolutionData { w.uint32(v.cumulativeRevolutions); w.uint16(v.lastEventTime) }
        if let v = crankRevolutionData { w.uint16(v.cumulativeRevolutions); w.uint16(v.lastEventTime) }
        if let v = extremeForceMagnitudes { w.int16(v.maximum); w.int16(v.minimum) }
        if let v = extremeTorqueMagnitudes { w.int16(v.maximum); w.int16(v.minimum) }
        if let v = extremeAngles { w.uint24(v.packed) }
        if let v = topDeadSpotAngle { w.uint16(v) }
        if let v = bottomDeadSpotAngle { w.uint16(v) }
        if let v = accumulatedEnergy { w.uint16(v) }
        return w.bytes
    }
}

extension CyclingPowerVector {
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.uint8(flags)
        if let v = crankRevolutionData { w.uint16(v.cumulativeRevolutions); w.uint16(v.lastEventTime) }
        if let v = firstCrankMeasurementAngle { w.uint16(v) }
        instantaneousForceMagnitudes.forEach { w.int16($0) }
        instantaneousTorqueMagnitudes.forEach { w.int16($0) }
        return w.bytes
    }
}

extension CSCMeasurement {
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.uint8(flags)
        if let v = wheelRevolutionData { w.uint32(v.cumulativeRevolutions); w.uint16(v.lastEventTime) }
        if let v = crankRevolutionData { w.uint16(v.cumulativeRevolutions); w.uint16(v.lastEventTime) }
        return w.bytes
    }
}

extension CyclingPowerFeature {
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.uint32(rawValue)
        return w.bytes
    }
}

extension SensorLocation {
    public func encoded() -> [UInt8] { [location.rawValue] }
}

extension BodySensorLocation {
    public func encoded() -> [UInt8] { [location.rawValue] }
}

extension BatteryLevel {
    public func encoded() -> [UInt8] { [percent] }
}
