/// Heart Rate Measurement, characteristic 0x2A37 (GATT Specification Supplement 3.113;
/// Heart Rate Service 1.0 section 3.1).
///
/// Layout: flags (uint8), heart rate (uint8 or uint16 by flag bit 0), energy expended
/// (uint16, bit 3), RR intervals (uint16 each, bit 4, to the end of the value).
public struct HeartRateMeasurement: GATTCharacteristicValue {
    public static let uuid = BluetoothUUID.heartRateMeasurement

    /// Sensor Contact Status, flag bits 1–2: bit 2 says the feature is supported, bit 1 that
    /// contact is detected. Values 0 and 1 both mean "not supported".
    public enum SensorContact: String, Sendable, Hashable {
        case notSupported, notDetected, detected
    }

    /// The flags octet as sent (reserved bits 5–7 included, and ignored).
    public var flags: UInt8
    /// Heart rate, beats per minute. Sent as uint8 or, with flag bit 0, uint16.
    public var heartRate: UInt16
    public var sensorContact: SensorContact
    /// Energy expended since the last reset, kilojoules (flag bit 3).
    public var energyExpended: UInt16?
    /// Beat-to-beat intervals, oldest first (flag bit 4). Empty when the flag is clear.
    public var rrIntervals: [RRInterval]
    public var trailingByteCount: Int

    /// Whether the heart rate was sent as uint16 (flag bit 0).
    public var heartRateIsUInt16: Bool { flags & 0x01 != 0 }

    public init(
        flags: UInt8, heartRate: UInt16, sensorContact: SensorContact, energyExpended: UInt16?,
        rrIntervals: [RRInterval], trailingByteCount: Int = 0
    ) {
        self.flags = flags
        self.heartRate = heartRate
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
        self.trailingByteCount = trailingByteCount
    }

    public init(decoding bytes: [UInt8]) throws(GATTDecodingError) {
        var reader = ByteReader(bytes)
        flags = try reader.uint8(.flags)
        heartRate = flags & 0x01 != 0 ? try reader.uint16(.heartRate) : UInt16(try reader.uint8(.heartRate))
        switch flags >> 1 & 0x03 {
        case 2: sensorContact = .notDetected
        case 3: sensorContact = .detected
        default: sensorContact = .notSupported
        }
        energyExpended = flags & 0x08 != 0 ? try reader.uint16(.energyExpended) : nil
        if flags & 0x10 != 0 {
            // The RR intervals fill the rest of the value; an odd stray byte after them is trailing.
            rrIntervals = reader.uint16Array(RRInterval.init(rawValue:))
        } else {
            rrIntervals = []
        }
        trailingByteCount = reader.remaining
    }
}

/// One RR interval: the time between two successive R waves, in units of 1/1024 s as sent.
public struct RRInterval: RawRepresentable, Sendable, Hashable, BitwiseCopyable {
    /// The interval in 1/1024 s, as transmitted.
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The interval in seconds (exact: 1/1024 is a power of two).
    public var seconds: Double { Double(rawValue) / 1024 }

    /// The interval as a `Duration`, exact to the nanosecond rounding of 1/1024 s steps.
    public var duration: Duration { .nanoseconds(Int64(rawValue) * 1_000_000_000 / 1024) }
}
