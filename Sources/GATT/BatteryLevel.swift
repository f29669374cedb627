/// Battery Level, characteristic 0x2A19 (GATT Specification Supplement 3.27; Battery Service
/// 1.1 section 3.1): the remaining charge as a uint8 percentage, 0–100.
public struct BatteryLevel: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.batteryLevel

    /// Remaining charge, percent (0...100).
    public var percent: UInt8
    public var trailingByteCount: Int

    public init(percent: UInt8, trailingByteCount: Int = 0) {
        self.percent = percent
        self.trailingByteCount = trailingByteCount
    }

    /// Values 101–255 are outside the characteristic's range and are `malformed`.
    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        percent = try reader.uint8(.batteryLevel)
        guard percent <= 100 else {
            throw .malformed(.batteryLevel, at: 0, "\(percent) is not a percentage (0-100)")
        }
        trailingByteCount = reader.remaining
    }
}
