/// CSC Measurement, characteristic 0x2A5B (GATT Specification Supplement 3.58;
/// Cycling Speed and Cadence Service 1.0 section 3.1).
///
/// Layout: flags (uint8), wheel revolution data (bit 0: uint32 revolutions, uint16 last
/// event time in 1/1024 s), crank revolution data (bit 1: uint16 revolutions, uint16 last
/// event time in 1/1024 s). Bits 2–7 are reserved and ignored.
public struct CSCMeasurement: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.cscMeasurement

    public var flags: UInt8
    public var wheelRevolutionData: WheelRevolutionData?
    public var crankRevolutionData: CrankRevolutionData?
    public var trailingByteCount: Int

    public init(
        flags: UInt8, wheelRevolutionData: WheelRevolutionData? = nil,
        crankRevolutionData: CrankRevolutionData? = nil, trailingByteCount: Int = 0
    ) {
        self.flags = flags
        self.wheelRevolutionData = wheelRevolutionData
        self.crankRevolutionData = crankRevolutionData
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        flags = try reader.uint8(.flags)
        if flags & 0x01 != 0 {
            wheelRevolutionData = WheelRevolutionData(
                cumulativeRevolutions: try reader.uint32(.wheelRevolutions),
                lastEventTime: try reader.uint16(.lastWheelEventTime),
                ticksPerSecond: 1024)
        } else {
            wheelRevolutionData = nil
        }
        if flags & 0x02 != 0 {
            crankRevolutionData = CrankRevolutionData(
                cumulativeRevolutions: try reader.uint16(.crankRevolutions),
                lastEventTime: try reader.uint16(.lastCrankEventTime))
        } else {
            crankRevolutionData = nil
        }
        trailingByteCount = reader.remaining
    }
}
