/// Cycling Power Vector, characteristic 0x2A64 (GATT Specification Supplement 3.65;
/// Cycling Power Service 1.1 section 3.5).
///
/// Layout: flags (uint8), then crank revolution data (bit 0), first crank measurement angle
/// (bit 1), and one array of sint16 magnitudes to the end of the value: forces in newtons
/// (bit 2) or torques in 1/32 N·m (bit 3). Bits 4–5 give the measurement direction; bits 6–7
/// are reserved and ignored.
public struct CyclingPowerVector: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.cyclingPowerVector

    /// Instantaneous Measurement Direction, flag bits 4–5.
    public enum MeasurementDirection: String, Sendable, Hashable {
        case unknown, tangential, radial, lateral
    }

    public var flags: UInt8
    /// Cumulative crank revolutions and last crank event time (flag bit 0).
    public var crankRevolutionData: CrankRevolutionData?
    /// Angle of the first magnitude in the array, degrees (flag bit 1).
    public var firstCrankMeasurementAngle: UInt16?
    /// Instantaneous force magnitudes, newtons (flag bit 2). Empty when absent.
    public var instantaneousForceMagnitudes: [Int16]
    /// Instantaneous torque magnitudes in 1/32 N·m (flag bit 3). Empty when absent.
    public var instantaneousTorqueMagnitudes: [Int16]
    public var trailingByteCount: Int

    /// Flag bits 4–5.
    public var instantaneousMeasurementDirection: MeasurementDirection {
        switch flags >> 4 & 0x03 {
        case 1: .tangential
        case 2: .radial
        case 3: .lateral
        default: .unknown
        }
    }

    public init(
        flags: UInt8, crankRevolutionData: CrankRevolutionData? = nil, firstCrankMeasurementAngle: UInt16? = nil,
        instantaneousForceMagnitudes: [Int16] = [], instantaneousTorqueMagnitudes: [Int16] = [],
        trailingByteCount: Int = 0
    ) {
        self.flags = flags
        self.crankRevolutionData = crankRevolutionData
        self.firstCrankMeasurementAngle = firstCrankMeasurementAngle
        self.instantaneousForceMagnitudes = instantaneousForceMagnitudes
        self.instantaneousTorqueMagnitudes = instantaneousTorqueMagnitudes
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        flags = try reader.uint8(.flags)
        if flags & 0x0C == 0x0C {
            // Both arrays run to the end of the value, so the split between them is undefined;
            // the specification makes them mutually exclusive.
            throw .malformed(.flags, at: 0, "force and torque magnitude arrays are both flagged; they exclude each other")
        }
        if flags & 0x01 != 0 {
            crankRevolutionData = CrankRevolutionData(
                cumulativeRevolutions: try reader.uint16(.crankRevolutions),
                lastEventTime: try reader.uint16(.lastCrankEventTime))
        } else {
            crankRevolutionData = nil
        }
        firstCrankMeasurementAngle = flags & 0x02 != 0 ? try reader.uint16(.firstCrankMeasurementAngle) : nil
        instantaneousForceMagnitudes =
            flags & 0x04 != 0 ? reader.uint16Array(Int16.init(bitPattern:)) : []
        instantaneousTorqueMagnitudes =
            flags & 0x08 != 0 ? reader.uint16Array(Int16.init(bitPattern:)) : []
        trailingByteCount = reader.remaining
    }
}
