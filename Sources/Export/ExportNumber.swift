/// Numbers as text in exported files: a dot, no exponent, no trailing zeros.
public enum ExportNumber {
    /// `value` rounded to `decimals` places (0 to 6): `183`, `89.5`, `8.333`.
    public static func text(_ value: Double, decimals: Int = 0) -> String {
        let scale = [1.0, 10, 100, 1000, 10000, 100_000, 1_000_000][min(max(decimals, 0), 6)]
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return rounded.description
    }
}
