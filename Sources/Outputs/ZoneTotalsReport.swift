public import Foundation
public import SensorCore
import Workouts
public import WorkoutStore
public import Zones

/// Time in zone by day, week or month over many stored workouts, all re-bucketed into one
/// configuration: `workouts zones` and `GET /api/zones/totals`.
public enum ZoneTotalsReport {
    /// What to sum: a quantity, a period, the zones (given, the rider's now, or those redrawn as N
    /// zones) and which workouts.
    public struct Request {
        public var quantity: QuantityType
        public var period: ZoneReportPeriod
        public var zones: WorkoutZoneConfiguration?
        public var normalize: Int?
        public var filter: WorkoutFilter

        /// From `quantity`, `by`, `zones`, `normalize`, `from`, `to` and `activity`.
        public init(_ values: RequestValues, calendar: Calendar) throws(RequestError) {
            guard let quantity = try values.zonedQuantity("quantity") else {
                throw RequestError("give \(values.spelled("quantity")) heart-rate or \(values.spelled("quantity")) power")
            }
            guard let periodText = values["by"] else {
                throw RequestError("give \(values.spelled("by")) day, week or month")
            }
            guard let period = ZoneReportPeriod(rawValue: periodText) else {
                throw RequestError("\(values.spelled("by")) \(periodText) is not a period; give day, week or month")
            }
            if values["zones"] != nil && values["normalize"] != nil {
                throw RequestError("give \(values.spelled("zones")) or \(values.spelled("normalize")), not both")
            }
            self.quantity = quantity
            self.period = period
            normalize = try values.wholeNumber("normalize", in: 3...9, example: "7 (zones)")
            zones = try values["zones"].map { text throws(RequestError) in
                try WorkoutZoneConfiguration(boundaries: text, quantity, label: values.spelled("zones"))
            }
            filter = try values.workoutFilter(calendar: calendar)
        }
    }

    /// The totals of each period with a workout, oldest first, in `configuration`.
    public struct Report {
        public let quantity: QuantityType
        public let period: ZoneReportPeriod
        public let configuration: WorkoutZoneConfiguration
        public let calendar: Calendar
        public let totals: [ZoneTotals]
    }

    /// Sums `request` over `store` in `timeZone` (ISO weeks, Monday to Sunday).
    ///
    /// - Throws: `RequestError` when there are no zones to sort into (none given, none in effect
    ///   `today`), or the store's error.
    public static func run(_ request: Request, store: WorkoutStore, timeZone: TimeZone, today: CalendarDate?) throws
        -> Report
    {
        let type = request.quantity
        var configuration: WorkoutZoneConfiguration
        if let given = request.zones {
            configuration = given
        } else {
            guard let current = try store.preferences(of: request.filter.athlete).zoneConfiguration(for: type, on: today) else {
                throw RequestError(
                    "there are no \(name(type)) zones to sort into: give zones, set yours with 'sensorbridge zones "
                        + "set \(type == .heartRate ? "heart-rate 120,140,155,170" : "power 150,200,250,300")', or set "
                        + "a profile with 'sensorbridge profile set "
                        + "\(type == .heartRate ? "--age 40 --resting-hr 50" : "--ftp 250")'")
            }
            configuration = current
        }
        if let zones = request.normalize { configuration = try normalized(configuration, zones: zones) }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let totals = try store.zoneTotals(in: configuration, by: request.period, calendar: calendar, matching: request.filter)
        return Report(quantity: type, period: request.period, configuration: configuration, calendar: calendar, totals: totals)
    }

    /// The zones with the lowest and highest boundary of `configuration` and `zones - 2` zones of
    /// equal width between them (source custom). Boundaries are rounded to hundredths when that
    /// keeps them increasing.
    public static func normalized(_ configuration: WorkoutZoneConfiguration, zones: Int) throws(RequestError)
        -> WorkoutZoneConfiguration
    {
        let (low, high) = (configuration.boundaryValues.first!, configuration.boundaryValues.last!)
        let exact = (0...(zones - 2)).map { low + (high - low) * Double($0) / Double(zones - 2) }
        let rounded = exact.map { ($0 * 100).rounded() / 100 }
        let boundaries = zip(rounded, rounded.dropFirst()).allSatisfy { $0 < $1 } ? rounded : exact
        do {
            return try WorkoutZoneConfiguration(quantityType: configuration.quantityType, boundaryValues: boundaries)
        } catch {
            throw RequestError("normalize \(zones): \(error)")
        }
    }

    public static func name(_ type: QuantityType) -> String { type == .heartRate ? "heart-rate" : "power" }

    /// `{"quantityType":"heartRate","by":"week","configuration":{...},"periods":[...]}`.
    public static func json(_ report: Report) -> JSONValue {
        var root = JSONObject()
        root.append("quantityType", .string(report.quantity.identifier))
        root.append("by", .string(report.period.rawValue))
        root.append("configuration", report.configuration.jsonValue)
        root.append("periods", .array(report.totals.map { json($0, period: report.period, calendar: report.calendar) }))
        return .object(root)
    }

    /// The table `workouts zones` prints.
    public static func text(_ report: Report) -> String {
        text(report.totals, type: report.quantity, period: report.period, calendar: report.calendar)
    }

    /// `2026-11-02` (a day), `2026-W45` (ISO week) or `2026-11`, and the period's first day `2026-11-02`.
    private static func label(_ totals: ZoneTotals, period: ZoneReportPeriod, calendar: Calendar) -> (period: String, start: String) {
        label(totals.periodStart, period: period, calendar: calendar)
    }

    static func label(_ periodStart: Date, period: ZoneReportPeriod, calendar: Calendar) -> (period: String, start: String) {
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear, .year, .month, .day], from: periodStart)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let start = "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
        switch period {
        case .day: return (start, start)
        case .week: return ("\(parts.yearForWeekOfYear ?? 0)-W\(two(parts.weekOfYear))", start)
        case .month: return ("\(parts.year ?? 0)-\(two(parts.month))", start)
        }
    }

    private static func json(_ totals: ZoneTotals, period: ZoneReportPeriod, calendar: Calendar) -> JSONValue {
        let (name, start) = label(totals, period: period, calendar: calendar)
        var object = JSONObject()
        object.append("period", .string(name))
        object.append("start", .string(start))
        object.append("workouts", .number(Double(totals.workoutCount)))
        object.append("zoneDurations", totals.zoneGroup.jsonValue["zoneDurations"] ?? .array([]))
        object.append("totalDuration", .number(totals.zoneGroup.totalDuration.seconds))
        return .object(object)
    }

    private static func text(_ totals: [ZoneTotals], type: QuantityType, period: ZoneReportPeriod, calendar: Calendar) -> String {
        guard let first = totals.first else {
            return "No finished workouts with \(name(type)) samples match.\n"
        }
        let configuration = first.zoneGroup.configuration
        let unit = type == .heartRate ? "bpm" : "W"
        func value(_ quantity: Quantity?) -> String { quantity.map { String(format: "%g", $0.value) } ?? "" }
        let ranges = configuration.zones.map { zone in
            switch (zone.minimum, zone.maximum) {
            case (nil, let max): "Z\(zone.index + 1) <\(value(max))"
            case (let min, nil): "Z\(zone.index + 1) >=\(value(min))"
            case (let min, let max): "Z\(zone.index + 1) \(value(min))-\(value(max))"
            }
        }
        // The first column fits a day (`2026-11-02`), a week (`2026-W45`) or a month (`2026-11`).
        let width = period == .day ? 10 : 8
        let heading = period.rawValue.prefix(1).uppercased() + period.rawValue.dropFirst()
        var lines = [
            "\(type == .heartRate ? "Heart-rate" : "Power") time in zone by \(period.rawValue), \(configuration.zones.count) zones "
                + "(\(configuration.source.rawValue), \(unit)): " + ranges.joined(separator: ", "),
            heading.padding(toLength: width, withPad: " ", startingAt: 0) + "  Workouts"
                + configuration.zones.map { "Z\($0.index + 1)".leftPadded(9) }.joined() + "    Total",
        ]
        for total in totals {
            let name = label(total, period: period, calendar: calendar).period
            lines.append(
                name.padding(toLength: width, withPad: " ", startingAt: 0) + String(total.workoutCount).leftPadded(10)
                    + total.zoneGroup.durations.map { $0.clockText.leftPadded(9) }.joined()
                    + total.zoneGroup.totalDuration.clockText.leftPadded(9))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
