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

    /// A duration as people write it: `300` (seconds), `90s`, `5m`, `1h`, `1h30m`, `2.5m`; nil for
    /// anything else (a unit it does not know, a bare number after a unit, nothing), for no time
    /// and for more than a million years (which no duration the commands take comes near).
    public init?(written text: String) {
        var seconds = 0.0
        var number = ""
        var sawUnit = false
        for character in text.lowercased() {
            if character.isNumber || character == "." {
                number.append(character)
            } else if let unit = ["h": 3600.0, "m": 60, "s": 1][String(character)], let value = Double(number) {
                seconds += value * unit
                number = ""
                sawUnit = true
            } else {
                return nil
            }
        }
        if !number.isEmpty {
            guard !sawUnit, let value = Double(number) else { return nil }
            seconds += value
        }
        guard seconds.isFinite, seconds > 0, seconds < 3.2e13 else { return nil }
        self = .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
