import Foundation
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge workouts zones`: time in zone by week or month over many stored workouts, all
/// re-bucketed into one configuration.
enum WorkoutZonesReport {
    static let help = """
        Usage: sensorbridge workouts zones --quantity heart-rate|power --by week|month
                   [--zones A,B,... | --normalize N] [--from DAY] [--to DAY] [--activity TYPE]
                   [--json] [--store PATH]

        Time in zone summed by ISO week (Monday to Sunday) or by calendar month, in local time,
        over the finished workouts ($TZ, when set, names the time zone). Every workout is re-bucketed from its raw samples into one
        set of zones, with its own pauses and holds, so workouts recorded with other zones (five
        against seven, before and after a new FTP) add up.

        The zones are --zones, else your zones in effect now: the preferred ones, else those your
        profile gives ('sensorbridge zones show'); --normalize N redraws those as N zones.

        Options:
          --quantity heart-rate|power
          --by week|month
          --zones A,B,...            zone boundaries in bpm or W (2 to 8, increasing)
          --normalize N              N zones (3 to 9): the lowest and highest boundary of the
                                     zones in effect stay, the span between them is cut into
                                     N - 2 zones of equal width, and the zones below and above
                                     stay open
          --from YYYY-MM-DD, --to YYYY-MM-DD, --activity TYPE, --athlete NAME
                                     which workouts, as for 'sensorbridge workouts list' (with
                                     --athlete, the zones in effect are that athlete's; with
                                     --activity, a multisport workout's time in that activity only)
          --json                     {"quantityType":"heartRate","by":"week","configuration":{...},
                                     "periods":[{"period":"2026-W45","start":"2026-11-02",
                                     "workouts":3,"zoneDurations":[...],"totalDuration":...}]}
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts zones --quantity heart-rate --by week
          sensorbridge workouts zones --quantity heart-rate --by week --normalize 7
          sensorbridge workouts zones --quantity power --by month --zones 150,200,250,300 --json
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts zones",
            options: ["quantity", "by", "zones", "normalize", "from", "to", "activity", AthleteOption.option, StoreLocation.option],
            flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        guard let quantityText = arguments["quantity"] else {
            throw UsageError("give --quantity heart-rate or --quantity power")
        }
        guard let type = QuantityType(identifier: quantityText), WorkoutStateMachine.zonedTypes.contains(type) else {
            throw UsageError("--quantity \(quantityText) has no zones; give heart-rate or power")
        }
        guard let periodText = arguments["by"] else { throw UsageError("give --by week or --by month") }
        guard let period = ZoneReportPeriod(rawValue: periodText) else {
            throw UsageError("--by \(periodText) is not a period; give week or month")
        }
        if arguments["zones"] != nil && arguments["normalize"] != nil {
            throw UsageError("give --zones or --normalize, not both")
        }
        let normalize = try arguments.wholeNumber("normalize", in: 3...9, example: "7 (zones)")
        let custom = try arguments["zones"].map { text throws(UsageError) in
            try WorkoutSetup.zoneConfiguration(text, type, label: "--zones")
        }
        let filter = try WorkoutsCommand.filter(arguments, calendar: context.calendar)

        let store = try StoreLocation.openForReading(arguments, context)
        var configuration: WorkoutZoneConfiguration
        if let custom {
            configuration = custom
        } else {
            guard let current = try store.preferences(of: filter.athlete).zoneConfiguration(for: type, on: today(context)) else {
                throw UsageError(
                    "there are no \(name(type)) zones to sort into: give --zones, set yours with 'sensorbridge zones "
                        + "set \(type == .heartRate ? "heart-rate 120,140,155,170" : "power 150,200,250,300")', or set "
                        + "a profile with 'sensorbridge profile set "
                        + "\(type == .heartRate ? "--age 40 --resting-hr 50" : "--ftp 250")'")
            }
            configuration = current
        }
        if let normalize { configuration = try normalized(configuration, zones: normalize) }

        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = context.timeZone
        let totals = try store.zoneTotals(in: configuration, by: period, calendar: calendar, matching: filter)
        if arguments.has("json") {
            var root = JSONObject()
            root.append("quantityType", .string(type.identifier))
            root.append("by", .string(period.rawValue))
            root.append("configuration", configuration.jsonValue)
            root.append("periods", .array(totals.map { json($0, period: period, calendar: calendar) }))
            context.output.line(JSONValue.object(root).serialized)
            return .success
        }
        context.output.write(text(totals, type: type, period: period, calendar: calendar))
        return .success
    }

    /// The zones with the lowest and highest boundary of `configuration` and `zones - 2` zones of
    /// equal width between them (source custom). Boundaries are rounded to hundredths when that
    /// keeps them increasing.
    static func normalized(_ configuration: WorkoutZoneConfiguration, zones: Int) throws(UsageError)
        -> WorkoutZoneConfiguration
    {
        let (low, high) = (configuration.boundaryValues.first!, configuration.boundaryValues.last!)
        let exact = (0...(zones - 2)).map { low + (high - low) * Double($0) / Double(zones - 2) }
        let rounded = exact.map { ($0 * 100).rounded() / 100 }
        let boundaries = zip(rounded, rounded.dropFirst()).allSatisfy { $0 < $1 } ? rounded : exact
        do {
            return try WorkoutZoneConfiguration(quantityType: configuration.quantityType, boundaryValues: boundaries)
        } catch {
            throw UsageError("--normalize \(zones): \(error)")
        }
    }

    /// The day it is, for an age from a birth date.
    static func today(_ context: CommandContext) -> CalendarDate? {
        CalendarDate(Date(), in: context.calendar)
    }

    static func name(_ type: QuantityType) -> String { type == .heartRate ? "heart-rate" : "power" }

    /// `2026-W45` (ISO week) or `2026-11`, and the period's first day `2026-11-02`.
    static func label(_ totals: ZoneTotals, period: ZoneReportPeriod, calendar: Calendar) -> (period: String, start: String) {
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear, .year, .month, .day], from: totals.periodStart)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let start = "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
        switch period {
        case .week: return ("\(parts.yearForWeekOfYear ?? 0)-W\(two(parts.weekOfYear))", start)
        case .month: return ("\(parts.year ?? 0)-\(two(parts.month))", start)
        }
    }

    static func json(_ totals: ZoneTotals, period: ZoneReportPeriod, calendar: Calendar) -> JSONValue {
        let (name, start) = label(totals, period: period, calendar: calendar)
        var object = JSONObject()
        object.append("period", .string(name))
        object.append("start", .string(start))
        object.append("workouts", .number(Double(totals.workoutCount)))
        object.append("zoneDurations", totals.zoneGroup.jsonValue["zoneDurations"] ?? .array([]))
        object.append("totalDuration", .number(totals.zoneGroup.totalDuration.seconds))
        return .object(object)
    }

    static func text(_ totals: [ZoneTotals], type: QuantityType, period: ZoneReportPeriod, calendar: Calendar) -> String {
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
        var lines = [
            "\(type == .heartRate ? "Heart-rate" : "Power") time in zone by \(period.rawValue), \(configuration.zones.count) zones "
                + "(\(configuration.source.rawValue), \(unit)): " + ranges.joined(separator: ", "),
            (period == .week ? "Week    " : "Month   ") + "  Workouts"
                + configuration.zones.map { "Z\($0.index + 1)".leftPadded(9) }.joined() + "    Total",
        ]
        for total in totals {
            let name = label(total, period: period, calendar: calendar).period
            lines.append(
                name.padding(toLength: 8, withPad: " ", startingAt: 0) + String(total.workoutCount).leftPadded(10)
                    + total.zoneGroup.durations.map { $0.clockText.leftPadded(9) }.joined()
                    + total.zoneGroup.totalDuration.clockText.leftPadded(9))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
