/// Body Sensor Location, characteristic 0x2A38 (GATT Specification Supplement 3.32; Heart Rate
/// Service 1.0 section 3.2): where a heart-rate sensor is worn, as one uint8.
public struct BodySensorLocation: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.bodySensorLocation

    /// The location. Values 7–255 are reserved for future use and decode as `.reserved(value)`.
    public enum Location: AssignedValue {
        case other, chest, wrist, finger, hand, earLobe, foot
        case reserved(UInt8)

        public var reservedValue: UInt8? {
            if case .reserved(let value) = self { return value }
            return nil
        }

        public static let assigned: [Location] = [.other, .chest, .wrist, .finger, .hand, .earLobe, .foot]
        public static let names = ["other", "chest", "wrist", "finger", "hand", "earLobe", "foot"]
    }

    public var location: Location
    public var trailingByteCount: Int

    public init(_ location: Location, trailingByteCount: Int = 0) {
        self.location = location
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        location = Location(rawValue: try reader.uint8(.bodySensorLocation))
        trailingByteCount = reader.remaining
    }
}
