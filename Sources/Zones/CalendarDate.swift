import SensorCore

/// A day of the proleptic Gregorian calendar, without a time or a time zone: a birth date, or the
/// day a workout was recorded. Foundation-free so that `Zones` stays pure logic.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year, 1...9999.
    public let year: Int
    /// The month, 1...12.
    public let month: Int
    /// The day of the month, 1...28, 29, 30 or 31.
    public let day: Int

    /// Nil when the day does not exist (February 30, month 13, year 0).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CalendarDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses ISO 8601 `YYYY-MM-DD` (exactly four, two and two digits); nil for anything else or a day that does not exist.
    public init?(iso8601 text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Whole years from this date to `later` (an age): one more on each anniversary. Someone born on
    /// February 29 turns a year older on March 1 in common years. Negative when `later` is earlier.
    public func wholeYears(until later: CalendarDate) -> Int {
        let years = later.year - year
        return (later.month, later.day) < (month, day) ? years - 1 : years
    }

    /// Days since 1970-01-01 (negative before it), for counting days across months and years.
    public var dayNumber: Int { ISO8601.daysFromCivil(year: year, month: month, day: day) }

    /// The day `dayNumber` days after 1970-01-01; nil outside years 1...9999.
    public init?(dayNumber: Int) {
        let date = ISO8601.civilFromDays(dayNumber)
        self.init(year: date.year, month: date.month, day: date.day)
    }

    /// The day `days` days later (earlier when negative); nil outside years 1...9999.
    public func adding(days: Int) -> CalendarDate? { CalendarDate(dayNumber: dayNumber + days) }

    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
