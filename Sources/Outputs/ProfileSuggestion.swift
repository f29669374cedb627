public import Foundation
public import SensorCore
import Workouts
public import WorkoutStore
public import Zones

/// The thresholds a coach would read off a rider's best efforts (`profile suggest`; DESIGN.md §3
/// "Best efforts"), proposed against the profile as it is. A best effort shows what the rider can
/// do, not what they cannot, so a suggestion only ever raises the FTP and the maximum heart rate
/// and lowers the resting heart rate:
/// - FTP: 95 % of the best 20 min power; without a 20 min effort, the critical power fitted to the
///   best efforts of 3 to 15 min (work = CP × time + W′, least squares; at least two durations).
/// - Maximum heart rate: the highest 5 s mean heart rate, when above the profile's maximum
///   (measured, or 208 − 0.7 × age).
/// - Resting heart rate: the lowest 5 min mean heart rate while recording, when below the
///   profile's. Never when the profile has none: the lowest heart rate of a ride is an upper bound
///   on the resting one, often far above it, and the zones of heart-rate reserve would follow it.
public struct ProfileSuggestion: Sendable {
    public struct Change: Sendable, Hashable {
        /// `functionalThresholdPower`, `maximumHeartRate` or `restingHeartRate`: the profile's
        /// keys in `profile show --json`.
        public var field: String
        public var current: Int?
        public var proposed: Int
        /// The rule and the figures it used.
        public var reason: String
        public var workout: WorkoutID
        public var day: CalendarDate
    }

    public let workouts: Int
    public let changes: [Change]

    public init(_ workouts: [WorkoutBestEfforts], profile: AthleteProfile, today: CalendarDate, calendar: Calendar) {
        self.workouts = workouts.count
        let report = BestEffortsReport(workouts, by: nil, calendar: calendar).periods.first
        func best(_ list: [BestEffortsReport.Entry]?, _ seconds: Int) -> BestEffortsReport.Entry? {
            list?.first { $0.effort.seconds == seconds }
        }
        var changes: [Change] = []
        let ftp = profile.functionalThresholdPower
        if let twenty = best(report?.power, 1200) {
            let proposed = Int((0.95 * twenty.effort.value).rounded())
            if proposed > ftp ?? 0 {
                changes.append(
                    Change(
                        field: "functionalThresholdPower", current: ftp, proposed: proposed,
                        reason: "95 % of your best 20 min, \(Int(twenty.effort.value.rounded())) W",
                        workout: twenty.workout, day: twenty.day))
            }
        } else if let fit = Self.criticalPower(report?.power ?? []), Int(fit.power.rounded()) > ftp ?? 0 {
            let longest = fit.entries.max { $0.effort.seconds < $1.effort.seconds }!
            changes.append(
                Change(
                    field: "functionalThresholdPower", current: ftp, proposed: Int(fit.power.rounded()),
                    reason: "critical power fitted to your best \(fit.entries.map { BestEfforts.durationText($0.effort.seconds) }.joined(separator: ", ")) "
                        + "(W′ \(String(format: "%.1f", fit.reserve / 1000)) kJ); no 20 min effort",
                    workout: longest.workout, day: longest.day))
        }
        if let five = best(report?.heartRate, 5) {
            let proposed = Int(five.effort.value.rounded())
            let maximum = try? profile.maximumHeartRate(on: today)
            if proposed > Int((maximum ?? 0).rounded()) {
                changes.append(
                    Change(
                        field: "maximumHeartRate", current: profile.maximumHeartRate, proposed: proposed,
                        reason: "your highest 5 s heart rate" + (maximum.map { ", above the \(Int($0.rounded())) bpm your profile gives" } ?? ""),
                        workout: five.workout, day: five.day))
            }
        }
        if let low = best(report?.lowestHeartRate, 300) {
            let proposed = Int(low.effort.value.rounded())
            if let resting = profile.restingHeartRate, proposed < resting {
                changes.append(
                    Change(
                        field: "restingHeartRate", current: profile.restingHeartRate, proposed: proposed,
                        reason: "your lowest 5 min heart rate while recording, below the profile's",
                        workout: low.workout, day: low.day))
            }
        }
        self.changes = changes.filter { (20...($0.field == "functionalThresholdPower" ? 2500 : 250)).contains($0.proposed) }
    }

    /// The critical power and W′ (J) of the least-squares line work = CP × t + W′ through the best
    /// efforts of 3 to 15 min; nil with fewer than two of them or a line that gives no positive CP.
    static func criticalPower(_ efforts: [BestEffortsReport.Entry]) -> (power: Double, reserve: Double, entries: [BestEffortsReport.Entry])? {
        let entries = efforts.filter { (180...900).contains($0.effort.seconds) }
        guard entries.count >= 2 else { return nil }
        let t = entries.map { Double($0.effort.seconds) }
        let work = entries.map { $0.effort.value * Double($0.effort.seconds) }
        guard let line = LeastSquaresLine(x: t, y: work), line.slope > 0 else { return nil }
        return (line.slope, line.intercept, entries)
    }

    /// `profile` with the changes taken.
    public func applied(to profile: AthleteProfile) -> AthleteProfile {
        var profile = profile
        for change in changes {
            switch change.field {
            case "functionalThresholdPower": profile.functionalThresholdPower = change.proposed
            case "maximumHeartRate": profile.maximumHeartRate = change.proposed
            default: profile.restingHeartRate = change.proposed
            }
        }
        return profile
    }

    static func name(_ field: String) -> String {
        switch field {
        case "functionalThresholdPower": "FTP"
        case "maximumHeartRate": "Maximum HR"
        default: "Resting HR"
        }
    }

    /// `{"workouts":3,"changes":[{"field":"functionalThresholdPower","current":250,"proposed":262,"reason":"...",
    /// "workout":12,"day":"2026-11-30"}],"applied":false}`.
    public func json(applied: Bool) -> JSONValue {
        var root = JSONObject()
        root.append("workouts", .number(Double(workouts)))
        root.append(
            "changes",
            .array(
                changes.map { change in
                    var object = JSONObject()
                    object.append("field", .string(change.field))
                    object.append("current", change.current.map { .number(Double($0)) } ?? .null)
                    object.append("proposed", .number(Double(change.proposed)))
                    object.append("reason", .string(change.reason))
                    object.append("workout", .number(Double(change.workout.rawValue)))
                    object.append("day", .string(change.day.description))
                    return .object(object)
                }))
        root.append("applied", .bool(applied))
        return .object(root)
    }

    /// A line per change, then what was done or how to take them.
    public func text(applied: Bool, window: String) -> String {
        guard !changes.isEmpty else {
            return "Nothing to suggest from \(workouts) workout\(workouts == 1 ? "" : "s") \(window): your profile already "
                + "holds what they show.\n"
        }
        var lines = ["From \(workouts) workout\(workouts == 1 ? "" : "s") \(window):"]
        for change in changes {
            let unit = change.field == "functionalThresholdPower" ? "W" : "bpm"
            let from = change.current.map { "\($0) \(unit)" } ?? "not set"
            lines.append(
                "  \(Self.name(change.field).padding(toLength: 11, withPad: " ", startingAt: 0)) \(from) -> \(change.proposed) \(unit): "
                    + "\(change.reason) (workout \(change.workout.rawValue), \(change.day))")
        }
        lines.append(
            applied
                ? "Taken into your profile; the system zones follow it."
                : "Nothing was changed: 'sensorbridge profile suggest --apply' takes these.")
        return lines.joined(separator: "\n") + "\n"
    }
}
