/// ISO 8601 / RFC 3339 times without Foundation's formatter (which loads ICU and costs several
/// megabytes of memory in a small tool): `2026-11-29T07:00:00Z`, `2026-11-29T07:00:00.250Z`,
/// `2026-11-29T08:00:00+01:00`. Times are seconds since 1970-01-01T00:00:00Z, as `Date` keeps them.
public enum ISO8601 {
    /// Parses a date-time with a `T` (or space) separator, optional fraction and a `Z` or ±HH:MM
    /// offset; nil for anything else, including impossible dates such as February 30.
    public static func parse(_ text: String) -> Double? { parseWithOffset(text)?.seconds }

    /// As `parse`, with the offset the text gives (seconds east of UTC, 0 for `Z`).
    public static func parseWithOffset(_ text: String) -> (seconds: Double, offset: Int)? {
        let b = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var value = 0
            for i in from..<(from + count) {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard b.count >= 20, let year = number(0, 4), b[4] == UInt8(ascii: "-"), let month = number(5, 2),
            b[7] == UInt8(ascii: "-"), let day = number(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t")
                || b[10] == UInt8(ascii: " "),
            let hour = number(11, 2), b[13] == UInt8(ascii: ":"), let minute = number(14, 2),
            b[16] == UInt8(ascii: ":"), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var index = 19
        var fractionDigits = 0
        var fractionScale = 1.0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, (48...57).contains(b[index]) {
                if index - start < 9 {
                    fractionDigits = fractionDigits * 10 + Int(b[index] - 48)
                    fractionScale *= 10
                }
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        if b[index] == UInt8(ascii: "Z") || b[index] == UInt8(ascii: "z") {
            index += 1
        } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-") {
            guard let h = number(index + 1, 2), index + 3 < b.count, b[index + 3] == UInt8(ascii: ":"),
                let m = number(index + 4, 2), h < 24, m < 60
            else { return nil }
            offset = (h * 3600 + m * 60) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        // One division, so that `2026-...T07:00:00.250Z` is exactly 1795935600250 / 1000.
        return ((Double(seconds) * fractionScale + Double(fractionDigits)) / fractionScale, offset)
    }

    /// `2026-11-29T07:00:00Z`, with `.250` milliseconds when the time has a fraction (rounded to the millisecond).
    public static func format(_ secondsSince1970: Double) -> String {
        let milliseconds = Int64((secondsSince1970 * 1000).rounded())
        let (wholeSeconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        var seconds = Int(wholeSeconds)
        var fraction = Int(millis)
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        let (days, secondOfDay) = floorDivide(seconds, 86400)
        let (year, month, day) = civilFromDays(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if fraction != 0 { text += "." + String(String(fraction + 1000).dropFirst()) }
        return text + "Z"
    }

    /// `2026-11-29T08:00:00+01:00`: the time as the wall clock `offset` seconds east of UTC shows
    /// it (whole minutes; `Z` for 0, as `format`), with milliseconds as `format` writes them, or
    /// always (`.000`) when `alwaysMilliseconds`.
    public static func format(_ secondsSince1970: Double, offset: Int, alwaysMilliseconds: Bool = false) -> String {
        let offset = offset / 60 * 60
        var text = String(format(secondsSince1970 + Double(offset)).dropLast())
        if alwaysMilliseconds, !text.contains(".") { text += ".000" }
        return text + offsetText(offset)
    }

    /// `Z` for 0, else `+01:00`, `-05:00`, `+05:45` (seconds east of UTC, whole minutes).
    public static func offsetText(_ offset: Int) -> String {
        guard offset / 60 != 0 else { return "Z" }
        let minutes = abs(offset) / 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// The UTC calendar day of a time.
    public static func calendarDay(_ secondsSince1970: Double) -> (year: Int, month: Int, day: Int) {
        civilFromDays(floorDivide(Int(secondsSince1970.rounded(.down)), 86400).0)
    }

    static func floorDivide(_ a: Int, _ b: Int) -> (Int, Int) {
        let q = a >= 0 ? a / b : (a - b + 1) / b
        return (q, a - q * b)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    /// The date of a day count since 1970-01-01 (H. Hinnant's civil_from_days).
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
