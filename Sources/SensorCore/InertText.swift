/// Text that came from outside (a Bluetooth name chosen by whoever made or spoofs the device, a
/// name in a shared store or a file) made inert for a terminal, a log and every other face: each
/// control, escape or invisible formatting character is written out visibly, so the text cannot
/// move the cursor, set a window title, clear the screen, colour what follows, reorder a line
/// (bidirectional overrides) or start a new log line.
extension String {
    /// `self` on one line with every C0 control and DEL as `\n`, `\r`, `\t` or `\xNN`, and every
    /// C1 control, bidirectional or invisible format character and line or paragraph separator as
    /// `\u{NNNN}`. Text without any of them is returned unchanged (`Émile`, `Wahoo TICKR 9A3F`).
    public var inert: String {
        guard unicodeScalars.contains(where: Self.needsEscape) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            guard Self.needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\x" + Self.hex(scalar.value, digits: 2)
            default:
                result += "\\u{" + Self.hex(scalar.value, digits: 4) + "}"
            }
        }
        return result
    }

    /// Each line of `self` made inert (`inert`), the line breaks kept: a message of several lines
    /// that quotes text from outside.
    public var inertLines: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { String($0).inert }.joined(separator: "\n")
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: return true
        // Zero-width (non-)joiners are format characters that written words and emoji need.
        case 0x200C, 0x200D: return false
        default:
            switch scalar.properties.generalCategory {
            // Format characters (bidirectional overrides and isolates, zero-width characters, the
            // byte-order mark) and the line and paragraph separators.
            case .format, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: false)
        return String(repeating: "0", count: Swift.max(0, digits - text.count)) + text
    }
}
