/// The colours of zones, by zone index, for everything that draws them: the SVG chart, the web
/// pages and the live page's tiles, and (by `Color.ansi256`) a terminal.
///
/// Low to high: grey, blue, green, yellow, orange, red, then purple, pink and brown for models
/// with more than six zones. Zone N has the same colour in every model, heart rate and power
/// alike (a five-zone model ends at orange), so one colour never stands for two zone numbers on
/// one screen.
public enum ZonePalette {
    /// One zone's colour.
    public struct Color: Sendable, Hashable {
        /// `#rrggbb`, for SVG and CSS.
        public let hex: String
        /// The nearest colour of the xterm 256-colour palette (`ESC[38;5;Nm` for text, `ESC[48;5;Nm`
        /// for the background): the nearest, by squared distance in RGB, among the 6x6x6 cube (16 to
        /// 231) and the grey ramp (232 to 255), whose values all terminals share; the 16 system
        /// colours (0 to 15) are left out because each terminal's theme sets its own.
        public let ansi256: Int

        public init(hex: String, ansi256: Int) {
            self.hex = hex
            self.ansi256 = ansi256
        }
    }

    /// The nine colours, low to high.
    public static let colors: [Color] = [
        Color(hex: "#9e9e9e", ansi256: 247),  // grey
        Color(hex: "#42a5f5", ansi256: 75),  // blue
        Color(hex: "#66bb6a", ansi256: 71),  // green
        Color(hex: "#fdd835", ansi256: 221),  // yellow
        Color(hex: "#ffa726", ansi256: 214),  // orange
        Color(hex: "#ef5350", ansi256: 203),  // red
        Color(hex: "#ab47bc", ansi256: 133),  // purple
        Color(hex: "#ec407a", ansi256: 204),  // pink
        Color(hex: "#8d6e63", ansi256: 95),  // brown
    ]

    /// The colours of a model of `count` zones (0 to 9), by zone index: the first `count`.
    public static func colors(count: Int) -> [Color] { Array(colors.prefix(max(count, 0))) }

    /// `colors(count:)` as `#rrggbb`.
    public static func hexColors(count: Int) -> [String] { colors(count: count).map(\.hex) }
}
