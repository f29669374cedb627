/// A Bluetooth device address (BD_ADDR, 48 bits; Core Specification Vol 2 Part B 1.2), written
/// most significant byte first as `C4:7E:11:22:33:44`. HCI carries it least significant byte first.
public struct BluetoothAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 48 bits in the low bits of the value.
    public let value: UInt64

    public init(_ value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// Six bytes as HCI transmits them, least significant first (`bytes[start]` is the last
    /// octet of the text form). Nil when fewer than six bytes remain at `start`.
    public init?(littleEndian bytes: [UInt8], at start: Int) {
        guard start >= 0, bytes.count - start >= 6 else { return nil }
        var value: UInt64 = 0
        for i in (0..<6).reversed() { value = value << 8 | UInt64(bytes[start + i]) }
        self.value = value
    }

    /// Parses `C4:7E:11:22:33:44` (either case; colons or hyphens).
    public init?(_ text: String) {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "-" }
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let octet = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(octet)
        }
        self.value = value
    }

    /// The six bytes least significant first, as HCI transmits them.
    public var littleEndianBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// `C4:7E:11:22:33:44`.
    public var description: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for i in (0..<6).reversed() {
            let octet = Int(value >> (8 * i) & 0xFF)
            text += [digits[octet >> 4], digits[octet & 0xF]]
            if i > 0 { text.append(UInt8(ascii: ":")) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func < (a: BluetoothAddress, b: BluetoothAddress) -> Bool { a.value < b.value }
}
