/// Sensor Location, characteristic 0x2A5D (GATT Specification Supplement 3.196): where a
/// cycling power or speed/cadence sensor sits, as one uint8.
public struct SensorLocation: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.sensorLocation

    /// The location. Values 17–255 are reserved for future use and decode as `.reserved(value)`,
    /// not as an error, so a newer sensor still works.
    public enum Location: AssignedValue {
        case other, topOfShoe, inShoe, hip, frontWheel, leftCrank, rightCrank, leftPedal, rightPedal
        case frontHub, rearDropout, chainstay, rearWheel, rearHub, chest, spider, chainRing
        case reserved(UInt8)

        public var reservedValue: UInt8? {
            if case .reserved(let value) = self { return value }
            return nil
        }

        public static let assigned: [Location] = [
            .other, .topOfShoe, .inShoe, .hip, .frontWheel, .leftCrank, .rightCrank, .leftPedal, .rightPedal,
            .frontHub, .rearDropout, .chainstay, .rearWheel, .rearHub, .chest, .spider, .chainRing,
        ]
        public static let names = [
            "other", "topOfShoe", "inShoe", "hip", "frontWheel", "leftCrank", "rightCrank", "leftPedal", "rightPedal",
            "frontHub", "rearDropout", "chainstay", "rearWheel", "rearHub", "chest", "spider", "chainRing",
        ]
    }

    public var location: Location
    public var trailingByteCount: Int

    public init(_ location: Location, trailingByteCount: Int = 0) {
        self.location = location
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        location = Location(rawValue: try reader.uint8(.sensorLocation))
        trailingByteCount = reader.remaining
    }
}
