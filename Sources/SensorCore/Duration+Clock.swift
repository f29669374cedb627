extension Duration {
    /// The duration on a clock, rounded to the second: `1:02:03`, or `12:05` under an hour.
    public var clockText: String {
        let total = Int(seconds.rounded())
        let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? "\(hours):\(Self.twoDigits(minutes)):\(Self.twoDigits(seconds))" : "\(minutes):\(Self.twoDigits(seconds))"
    }

    /// Hours and minutes, rounded to the second first: `1:03`, `0:40` (a chart's time axis).
    public var hoursAndMinutesText: String {
        let total = Int(seconds.rounded())
        return "\(total / 3600):\(Self.twoDigits(total / 60 % 60))"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
