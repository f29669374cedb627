/// Text made safe for XML 1.0 character data and attribute values (TCX, SVG).
public enum XMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'`, and replaces the characters XML 1.0 forbids (controls
    /// other than tab, line feed and carriage return; U+FFFE, U+FFFF) with U+FFFD (XML 1.0 §2.2).
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
