/// Body Sensor Location, characteristic 0x2A38 (GATT Specification Supplement 3.32; Heart Rate
/// Service 1.0 section 3.2): where a heart-rate sensor is worn, as one uint8.
public struct BodySensorLocation: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.bodySensorLocation

    /// The location. Values 7–255 are reserved for future use and decode as `.reserved(value)`.
    public enum Location: Sendable, Hashable {
        case other, chest, wrist, finger, hand, earLobe, foot
        case reserved(UInt8)

        static let assigned: [Location] = [.other, .chest, .wrist, .finger, .hand, .earLobe, .foot]
        static let names = ["other", "chest", "wrist", "finger", "hand", "earLobe", "foot"]

        public init(rawValue: UInt8) {
            self = Int(rawValue) < Location.assigned.count ? Location.assigned[Int(rawValue)] : .reserved(rawValue)
        }

        public var rawValue: UInt8 {
            if case .reserved(let value) = self { return value }
            return UInt8(Location.assigned.firstIndex(of: self) ?? 0)
        }

        /// The lowerCamelCase name (`earLobe`), or `reserved(9)`.
        public var name: String {
            if case .reserved(let value) = self { return "reserved(\(value))" }
            return Location.names[Int(rawValue)]
        }
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
