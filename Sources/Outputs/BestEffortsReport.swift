public import Foundation
public import SensorCore
public import Workouts
public import WorkoutStore
public import Zones

/// The best efforts across stored workouts (`workouts best`): for each duration, the best of the
/// workouts' mean-maximal power and highest mean heart rate, and which workout it came from;
/// over all the workouts, or per week or month.
public struct BestEffortsReport: Sendable {
    /// A best effort and the workout it came from.
    public struct Entry: Sendable, Hashable {
        public var effort: BestEffort
        public var workout: WorkoutID
        public var day: CalendarDate
    }

    /// The bests over the workouts of one period (all of them without `by`).
    public struct Period: Sendable, Hashable {
        /// `2026-11`, `2026-W45`, or nil for all the workouts.
        public var name: String?
        public var workouts: Int
        public var power: [Entry]
        public var heartRate: [Entry]
        public var lowestHeartRate: [Entry]
    }

    public let periods: [Period]

    /// Which workouts and how to group them: `by` (week or month, or none), `from`, `to` and
    /// `activity`, from the command line's options or the API's query alike.
    public struct Request: Sendable {
        public var period: ZoneReportPeriod?
        public var filter: WorkoutFilter

        public init(_ values: RequestValues, calendar: Calendar) throws(RequestError) {
            if let by = values["by"], !by.isEmpty {
                guard let period = ZoneReportPeriod(rawValue: by), period != .day else {
                    throw RequestError("\(values.spelled("by")) takes week or month, not '\(by)'")
                }
                self.period = period
            }
            filter = try values.workoutFilter(calendar: calendar)
        }
    }

    /// The report of `request` over `store`, in `calendar`.
    public init(_ request: Request, store: WorkoutStore, calendar: Calendar) throws(WorkoutStoreError) {
        self.init(try store.bestEfforts(matching: request.filter), by: request.period, calendar: calendar)
    }

    /// - Parameters:
    ///   - workouts: each workout's efforts, in order of their start.
    ///   - period: per week or month (in `calendar`), or nil for one set over all the workouts.
    public init(_ workouts: [WorkoutBestEfforts], by period: ZoneReportPeriod?, calendar: Calendar) {
        var groups: [(name: String?, members: [WorkoutBestEfforts])] = []
        for workout in workouts {
            let name = period.map { period in
                let start = calendar.dateInterval(of: period.component, for: workout.startDate)?.start ?? workout.startDate
                return ZoneTotalsReport.label(start, period: period, calendar: calendar).period
            }
            if groups.last?.name == name, !groups.isEmpty { groups[groups.count - 1].members.append(workout) } else { groups.append((name, [workout])) }
        }
        if groups.isEmpty, period == nil { groups = [(nil, [])] }
        periods = groups.map { group in
            func best(_ list: KeyPath<BestEfforts, [BestEffort]>, highest: Bool) -> [Entry] {
                var bests: [Int: Entry] = [:]
                for workout in group.members {
                    let day = CalendarDate(localDayOf: workout.startDate, in: calendar.timeZone)
                    for effort in workout.efforts[keyPath: list] {
                        guard let day else { continue }
                        if let known = bests[effort.seconds], highest ? known.effort.value >= effort.value : known.effort.value <= effort.value {
                            continue
                        }
                        bests[effort.seconds] = Entry(effort: effort, workout: workout.id, day: day)
                    }
                }
                return bests.values.sorted { $0.effort.seconds < $1.effort.seconds }
            }
            return Period(
                name: group.name, workouts: group.members.count, power: best(\.power, highest: true),
                heartRate: best(\.heartRate, highest: true), lowestHeartRate: best(\.lowestHeartRate, highest: false))
        }
    }

    /// `{"periods":[{"period":"2026-11","workouts":4,"power":[{"seconds":1,"value":612.5,"workout":3,
    /// "day":"2026-11-30","offset":1234.0}, ...],"heartRate":[...],"lowestHeartRate":[...]}]}`;
    /// "period" is null for all the workouts.
    public var json: JSONValue {
        func entries(_ list: [Entry]) -> JSONValue {
            .array(
                list.map { entry in
                    var object = JSONObject()
                    object.append("seconds", .number(Double(entry.effort.seconds)))
                    object.append("value", .number(entry.effort.value))
                    object.append("workout", .number(Double(entry.workout.rawValue)))
                    object.append("day", .string(entry.day.description))
                    object.append("offset", .number(entry.effort.offset.seconds))
                    return .object(object)
                })
        }
        return .object([
            "periods": .array(
                periods.map { period in
                    var object = JSONObject()
                    object.append("period", period.name.map(JSONValue.string) ?? .null)
                    object.append("workouts", .number(Double(period.workouts)))
                    object.append("power", entries(period.power))
                    object.append("heartRate", entries(period.heartRate))
                    object.append("lowestHeartRate", entries(period.lowestHeartRate))
                    return .object(object)
                })
        ])
    }

    /// Over all the workouts: a row per duration with the best power and heart rate and the
    /// workout and day of each. Per period: a column of best power per period (heart rate when
    /// no workout has power).
    public var text: String {
        guard periods.contains(where: { $0.workouts > 0 }) else { return "No finished workouts match.\n" }
        if periods.count == 1, periods[0].name == nil {
            let period = periods[0]
            var lines = ["Best efforts of \(period.workouts) workout\(period.workouts == 1 ? "" : "s")"]
            lines.append("      Time    Power  Workout  Day           Heart rate  Workout  Day")
            for seconds in BestEfforts.durations {
                let power = period.power.first { $0.effort.seconds == seconds }
                let heart = period.heartRate.first { $0.effort.seconds == seconds }
                guard power != nil || heart != nil else { continue }
                func cells(_ entry: Entry?, unit: String, width: Int) -> String {
                    guard let entry else { return "-".leftPadded(width) + "".padding(toLength: 23, withPad: " ", startingAt: 0) }
                    return "\(WorkoutSummary.whole(entry.effort.value)) \(unit)".leftPadded(width)
                        + String(entry.workout.rawValue).leftPadded(9) + "  " + entry.day.description + "  "
                }
                lines.append(
                    BestEfforts.durationText(seconds).leftPadded(10) + cells(power, unit: "W", width: 9) + cells(heart, unit: "bpm", width: 11))
            }
            return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n") + "\n"
        }
        let usePower = periods.contains { !$0.power.isEmpty }
        let list: KeyPath<Period, [Entry]> = usePower ? \.power : \.heartRate
        let unit = usePower ? "W" : "bpm"
        let width = max(9, periods.map { ($0.name ?? "").count + 2 }.max() ?? 0)
        var lines = ["Best \(usePower ? "power" : "heart rate") (\(unit)) by period"]
        lines.append("      Time" + periods.map { ($0.name ?? "").leftPadded(width) }.joined())
        for seconds in BestEfforts.durations {
            let cells = periods.map { period in period[keyPath: list].first { $0.effort.seconds == seconds }.map { WorkoutSummary.whole($0.effort.value) } }
            guard cells.contains(where: { $0 != nil }) else { continue }
            lines.append(BestEfforts.durationText(seconds).leftPadded(10) + cells.map { ($0 ?? "-").leftPadded(width) }.joined())
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
