import SensorCore
import Testing

/// Names from outside shown inert: nothing a terminal or a log reader acts on survives.
struct InertTextTests {
    @Test func controlEscapeAndFormatCharactersAreWrittenOut() {
        for (raw, shown) in [
            ("HRM-Pro", "HRM-Pro"), ("👨‍👩‍👧 team", "👨‍👩‍👧 team"), ("Émile's TICKR ❤️", "Émile's TICKR ❤️"), ("a\\x1b", "a\\x1b"),
            ("\u{1B}]0;owned\u{07}Strap", "\\x1b]0;owned\\x07Strap"), ("\u{1B}[2J\u{1B}[31mred", "\\x1b[2J\\x1b[31mred"),
            ("Strap\nsensorbridge serve: saved", "Strap\\nsensorbridge serve: saved"), ("a\r\tb\u{0}\u{7F}", "a\\r\\tb\\x00\\x7f"),
            ("\u{9B}31m", "\\u{009b}31m"), ("abc\u{202E}fed", "abc\\u{202e}fed"), ("zero\u{200B}width\u{FEFF}", "zero\\u{200b}width\\u{feff}"),
            ("line\u{2028}two\u{2029}", "line\\u{2028}two\\u{2029}"),
        ] {
            #expect(raw.inert == shown, "\(raw.debugDescription)")
            #expect(!raw.inert.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }
}
