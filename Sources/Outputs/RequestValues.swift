public import Foundation
public import SensorCore
import Workouts
public import WorkoutStore
public import Zones

/// A value of a request that cannot be used, in words that say what to give instead. The
/// command line shows it as a usage error, the API as 400.
public struct RequestError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The named values of a request: the command line's options or the API's query and body. Both
/// read them through the same rules; `spelled` writes a name as the person typed it (`--quantity`
/// on the command line, `quantity` in a query), so messages name what they know.
public struct RequestValues {
    private let lookup: (String) -> String?
    private let spelling: (String) -> String

    public init(spelling: @escaping (String) -> String, _ lookup: @escaping (String) -> String?) {
        self.spelling = spelling
        self.lookup = lookup
    }

    /// A query's values, named as they are.
    public init(_ values: [String: String]) {
        self.init(spelling: { $0 }) { values[$0] }
    }

    public subscript(_ name: String) -> String? { lookup(name) }

    /// `name` as the person wrote it.
    public func spelled(_ name: String) -> String { spelling(name) }

    /// A whole number within `range`, nil when absent; `example` shows one in messages.
    public func wholeNumber(_ name: String, in range: ClosedRange<Int>, example: String) throws(RequestError) -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw RequestError("\(spelled(name)) needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        guard (Double(range.lowerBound)...Double(range.upperBound)).contains(value) else {
            throw RequestError("\(spelled(name)) \(text) is out of range; give a value from \(range.lowerBound) to \(range.upperBound)")
        }
        guard value.rounded() == value else {
            throw RequestError("\(spelled(name)) needs a whole number, like \(example), not '\(text)'")
        }
        return Int(value)
    }

    /// A day written `YYYY-MM-DD`, nil when absent.
    public func day(_ name: String) throws(RequestError) -> CalendarDate? {
        guard let text = self[name] else { return nil }
        guard let date = CalendarDate(iso8601: text) else {
            throw RequestError("\(spelled(name)) \(text) is not a day; write it as YYYY-MM-DD, for example 2026-11-02")
        }
        return date
    }

    /// The quantity with zones a value names (`heart-rate`, `power`).
    public func zonedQuantity(_ name: String) throws(RequestError) -> QuantityType? {
        guard let text = self[name] else { return nil }
        guard let type = QuantityType(identifier: text), WorkoutStateMachine.zonedTypes.contains(type) else {
            throw RequestError("\(spelled(name)) \(text) has no zones; give heart-rate or power")
        }
        return type
    }

    /// Which workouts: `from` and `to` (days in `calendar`, both included) and `activity`. Whose
    /// they are is the caller's to add.
    public func workoutFilter(calendar: Calendar) throws(RequestError) -> WorkoutFilter {
        func startOfDay(_ date: CalendarDate, plus days: Int = 0) -> Date? {
            calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day + days))
        }
        var filter = WorkoutFilter()
        if let from = try day("from") { filter.from = startOfDay(from) }
        if let to = try day("to") { filter.until = startOfDay(to, plus: 1) }
        if let from = filter.from, let until = filter.until, until <= from {
            throw RequestError("\(spelled("to")) is before \(spelled("from")); give a \(spelled("to")) on or after the \(spelled("from")) day")
        }
        if let text = self["activity"] {
            guard let type = WorkoutActivityType(name: text) else {
                let names = WorkoutActivityType.selectable.map(\.rawValue).joined(separator: ", ")
                throw RequestError("\(spelled("activity")) \(text) is not an activity type; give one of \(names)")
            }
            filter.activityType = type
        }
        return filter
    }
}

extension WorkoutZoneConfiguration {
    /// Zones from boundaries written `120,140,155,170` (2 to 8, increasing, and plausible for
    /// `type`); `label` names where they came from in messages.
    public init(boundaries text: String, _ type: QuantityType, label: String) throws(RequestError) {
        var values: [Double] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let value = Double(trimmed) else {
                throw RequestError("\(label): '\(trimmed)' is not a number; give boundaries such as 120,140,155,170")
            }
            values.append(value)
        }
        do {
            self = try WorkoutZoneConfiguration(quantityType: type, boundaryValues: values)
            try ZonePlausibility.check(self)
        } catch {
            throw RequestError("\(label) \(text): \(error)")
        }
    }
}
