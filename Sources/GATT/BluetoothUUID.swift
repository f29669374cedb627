/// A Bluetooth UUID: 128 bits, with the SIG's 16- and 32-bit short forms built on the Base UUID
/// `00000000-0000-1000-8000-00805F9B34FB` (Core Specification Vol 3 Part B 2.5.1).
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 128 bits, most significant first: `high` holds bytes 0...7 of the canonical text form.
    public let high: UInt64
    public let low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A SIG-assigned 16- or 32-bit UUID (`0x2A37`).
    public init(_ short: UInt32) {
        self.init(high: UInt64(short) << 32 | BluetoothUUID.baseHigh, low: BluetoothUUID.baseLow)
    }

    /// The 16-bit short form when this UUID is one on the Base UUID, else nil.
    public var shortValue: UInt16? {
        guard low == BluetoothUUID.baseLow, high & 0xFFFF_FFFF == BluetoothUUID.baseHigh, high >> 48 == 0 else {
            return nil
        }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// Parses `2a37`, `0x2A37`, `00002a37` or the full `00002a37-0000-1000-8000-00805f9b34fb`
    /// (case-insensitive, hyphens optional in the 128-bit form).
    public init?(_ text: String) {
        if text.utf8.count == 4, text.utf8.allSatisfy({ UInt8(ascii: "+") != $0 && UInt8(ascii: "-") != $0 }),
            let short = UInt16(text, radix: 16)
        {
            // The common case, `2a37`, without the general parse.
            self.init(UInt32(short))
            return
        }
        var hex = Substring(text)
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) }
        let digits = hex.filter { $0 != "-" }
        guard digits.allSatisfy(\.isHexDigit) else { return nil }
        if digits.count == 4 || digits.count == 8, !hex.contains("-"), let value = UInt32(digits, radix: 16) {
            self.init(value)
        } else if digits.count == 32, hex.count == 32 || hex.count == 36,
            let high = UInt64(digits.prefix(16), radix: 16), let low = UInt64(digits.suffix(16), radix: 16)
        {
            if hex.count == 36 {
                // Hyphens, when present, must stand where the canonical form has them: 8-4-4-4-12.
                let parts = hex.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
                guard parts == [8, 4, 4, 4, 12] else { return nil }
            }
            self.init(high: high, low: low)
        } else {
            return nil
        }
    }

    /// `2a37` for SIG 16-bit UUIDs, else the canonical lower-case 128-bit form.
    public var description: String {
        if let short = shortValue {
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [12, 8, 4, 0].map { digits[Int(short >> $0 & 0xF)] }, as: UTF8.self)
        }
        let h = BluetoothUUID.hex(high, digits: 16)
        let l = BluetoothUUID.hex(low, digits: 16)
        return "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))"
    }

    /// The canonical 128-bit text form, even for SIG UUIDs (as BlueZ writes them).
    public var fullDescription: String {
        let h = BluetoothUUID.hex(high, digits: 16)
        let l = BluetoothUUID.hex(low, digits: 16)
        return "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))"
    }

    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    public static func < (a: BluetoothUUID, b: BluetoothUUID) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// SIG-assigned numbers this package uses (Assigned Numbers, section 3.4 and 3.8).
extension BluetoothUUID {
    // Services
    public static let heartRateService = BluetoothUUID(0x180D)
    public static let batteryService = BluetoothUUID(0x180F)
    public static let cyclingSpeedAndCadenceService = BluetoothUUID(0x1816)
    public static let cyclingPowerService = BluetoothUUID(0x1818)
    // Characteristics
    public static let batteryLevel = BluetoothUUID(0x2A19)
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
    public static let cscMeasurement = BluetoothUUID(0x2A5B)
    public static let sensorLocation = BluetoothUUID(0x2A5D)
    public static let cyclingPowerMeasurement = BluetoothUUID(0x2A63)
    public static let cyclingPowerVector = BluetoothUUID(0x2A64)
    public static let cyclingPowerFeature = BluetoothUUID(0x2A65)
}
