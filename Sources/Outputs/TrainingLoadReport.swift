public import Foundation
public import SensorCore
public import Workouts
public import WorkoutStore
public import Zones

/// Fitness, fatigue and form by day over stored workouts' loads: `workouts load`, its JSON and
/// its table.
public struct TrainingLoadReport {
    /// Each day from the first asked for to the last, with the load, fitness, fatigue and form.
    public let days: [TrainingLoadDay]
    /// The workouts of those days, with their local day.
    public let workouts: [(listing: WorkoutLoadListing, day: CalendarDate)]

    /// The days `first` to `last` (in `calendar`) of `all`, every workout's load since the first
    /// counted: fitness and fatigue build up from the first workout.
    public init(_ all: [WorkoutLoadListing], from first: CalendarDate, through last: CalendarDate, calendar: Calendar) {
        let dated = all.map { (listing: $0, day: CalendarDate($0.startDate, in: calendar)!) }
        let start = dated.first.map { min($0.day, first) } ?? first
        days = TrainingLoadHistory.days(dated.map { (day: $0.day, stressScore: $0.listing.load.stressScore) }, from: start, through: last)
            .filter { $0.day >= first }
        workouts = dated.filter { (first...last).contains($0.day) }
    }

    /// `{"days": [...], "workouts": [{"id", "day", "athlete", "activityType", "load"}]}`.
    public var json: JSONValue {
        var root = JSONObject()
        root.append("days", .array(days.map(Self.json)))
        root.append(
            "workouts",
            .array(
                workouts.map { workout, day in
                    .object([
                        "id": .number(Double(workout.id.rawValue)), "day": .string(day.description),
                        "athlete": workout.athlete.map { .string($0.rawValue) } ?? .null,
                        "activityType": .string(workout.activityType.rawValue), "load": WorkoutJSON.load(workout.load),
                    ])
                }))
        return .object(root)
    }

    /// The table, with a note on workouts that have no load.
    public var text: String {
        Self.text(days, unscored: workouts.filter { $0.listing.load.stressScore == nil }.count)
    }

    private static func json(_ day: TrainingLoadDay) -> JSONValue {
        var object = JSONObject()
        object.append("day", .string(day.day.description))
        object.append("workouts", .number(Double(day.workouts)))
        object.append("workoutsWithoutLoad", .number(Double(day.workoutsWithoutScore)))
        object.append("load", .number(day.load))
        object.append("fitness", .number(day.fitness))
        object.append("fatigue", .number(day.fatigue))
        object.append("form", .number(day.form))
        return .object(object)
    }

    private static func text(_ days: [TrainingLoadDay], unscored: Int) -> String {
        var lines = [
            "Training load by day: load (TSS, else hrTSS), fitness (CTL, 42 days), fatigue (ATL, 7 days), form (TSB)",
            "Day          Workouts   Load  Fitness  Fatigue   Form",
        ]
        func one(_ value: Double) -> String { String(format: "%.1f", value) }
        for day in days {
            lines.append(
                day.day.description + String(day.workouts).leftPadded(11)
                    + WorkoutSummary.whole(day.load).leftPadded(7) + one(day.fitness).leftPadded(9)
                    + one(day.fatigue).leftPadded(9) + one(day.form).leftPadded(7))
        }
        if unscored > 0 {
            lines.append(
                "\(unscored) workout\(unscored == 1 ? " has" : "s have") no load: power needs an FTP "
                    + "('sensorbridge profile set --ftp 250'), heart rate needs resting, maximum and threshold heart rate.")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
