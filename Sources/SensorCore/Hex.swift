/// Hexadecimal text for payload bytes, as traces and the command line carry them (`16480003`).
public enum Hex {
    /// Why text is not a byte string.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        case oddLength(digits: Int)
        case invalidCharacter(Character, position: Int)

        public var description: String {
            switch self {
            case .oddLength(let digits): "\(digits) hex digits do not make whole bytes (two digits per byte)"
            case .invalidCharacter(let character, let position):
                "'\(character)' at position \(position) is not a hex digit"
            }
        }
    }

    /// Parses hex digits, two per byte, either case. Spaces, colons and hyphens between digits
    /// (`16 48 00 03`, `16:48:00:03`) and a leading `0x` are allowed.
    public static func decode(_ text: some StringProtocol) throws(Hex.Error) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        var digits = 0
        var utf8 = Substring(text).utf8[...]
        if utf8.starts(with: "0x".utf8) || utf8.starts(with: "0X".utf8) { utf8 = utf8.dropFirst(2) }
        for (position, byte) in utf8.enumerated() {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"):
                // Separators only between bytes, never inside one.
                if high != nil { throw .invalidCharacter(Character(Unicode.Scalar(byte)), position: position) }
                continue
            default:
                let character = String(decoding: Array(utf8.dropFirst(position).prefix(4)), as: UTF8.self).first ?? "?"
                throw .invalidCharacter(character, position: position)
            }
            digits += 1
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { throw .oddLength(digits: digits) }
        return bytes
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Lower-case hex, two digits per byte, no separators.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
