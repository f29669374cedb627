import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `zones defaults --hr-model dfa --workout ID`: five heart-rate zones from the DFA α1 thresholds of
/// a stored ramp (DESIGN.md §3 "DFA α1"; `DFAAlpha1Series.heartRateZoneConfiguration()`).
enum DFAZones {
    static let model = "dfa"
    static let workoutOption = "workout"

    static func run(_ arguments: CommandArguments, _ context: CommandContext) throws -> ExitStatus {
        for option in ProfileValues.heartRateOptions where arguments[option] != nil {
            throw UsageError(
                "--hr-model dfa takes its heart rates from the workout's DFA a1 thresholds; leave out --\(option) "
                    + "(or choose another --hr-model)")
        }
        guard let which = arguments[workoutOption] else {
            throw UsageError(
                "--hr-model dfa needs --workout ID (an id from 'sensorbridge workouts list', or latest): a ramp "
                    + "ridden with a chest strap sending RR intervals")
        }
        let profile = try ProfileValues.profile(from: arguments.requestValues)
        let powerModel = try ProfileValues.powerZoneModel(arguments.requestValues)
        let requested = which == "latest" ? nil : try WorkoutsCommand.workoutID(which)
        let store = try StoreLocation.openForReading(arguments, context)
        guard let id = try requested?.id(in: store) ?? store.latestWorkoutID() else {
            context.errors.line("sensorbridge zones: there are no finished workouts in \(store.path) yet")
            return .failure
        }
        let series = try store.workout(id).dfaAlpha1()
        let configuration: WorkoutZoneConfiguration
        do {
            configuration = try series.heartRateZoneConfiguration()
        } catch {
            context.errors.line("sensorbridge zones: " + advice(for: error, workout: id))
            return .failure
        }
        let thresholds = series.thresholds
        let first = Int((thresholds.heartRate1 ?? 0).rounded()), second = Int((thresholds.heartRate2 ?? 0).rounded())
        var sections = [
            ZonesCommand.Section(
                configuration: configuration,
                title: "Heart-rate zones (DFA a1 of workout \(id), count/min): HRVT1 \(first) (a1 0.75), HRVT2 \(second) (a1 0.5)",
                basis: "from the thresholds", percentages: [], names: ["1", "2", "3", "4", "5"],
                spans: ["below 81 % of HRVT2", "up to HRVT1", "HRVT1 to midpoint", "midpoint to HRVT2", "HRVT2 and above"])
        ]
        do {
            if let section = try ZonesCommand.powerSection(profile, powerModel) { sections.append(section) }
        } catch {
            throw UsageError(ProfileValues.advice(for: error, profile: profile))
        }
        func threshold(_ alpha1: Double, _ heartRate: Double?, _ power: Double?) -> JSONValue {
            .object([
                "alpha1": .number(alpha1), "heartRate": heartRate.map(JSONValue.number) ?? .null,
                "power": power.map(JSONValue.number) ?? .null,
            ])
        }
        let extra: JSONObject = [
            "dfaThresholds": .object([
                "workout": .number(Double(id.rawValue)),
                "hrvt1": threshold(DFAThresholds.first, thresholds.heartRate1, thresholds.power1),
                "hrvt2": threshold(DFAThresholds.second, thresholds.heartRate2, thresholds.power2),
            ])
        ]
        ZonesCommand.print(sections, arguments, context, extra: extra)
        return .success
    }

    /// What went wrong, and what to do: ride a ramp with a chest strap sending RR intervals.
    static func advice(for error: DFAZoneError, workout id: WorkoutID) -> String {
        let ramp =
            "ride a ramp (from easy to hard, rising steadily over 20 minutes or more) "
            + "with a chest strap sending RR intervals, then give its id"
        switch error {
        case .noRRIntervals:
            return "workout \(id) has no RR intervals, so no DFA a1 (an optical sensor, or a strap that sends none): \(ramp)"
        case .noWindows(let refused):
            return "workout \(id) has no 2-minute stretch of RR intervals with at least \(DFAAlpha1Windows.minimumBeats) "
                + "beats and under 5 % artefacts (\(refused) refused; a dry or loose strap, or pauses): \(ramp)"
        case .noCrossing(let windows, let highest, let lowest):
            return "DFA a1 of workout \(id) did not fall through 0.75 and 0.5 as the heart rate rose (\(windows) windows, "
                + "a1 from \(String(format: "%.2f", lowest)) to \(String(format: "%.2f", highest))): \(ramp)"
        case .thresholdsTooClose(let first, let second):
            return "the thresholds of workout \(id), HRVT1 \(first) and HRVT2 \(second) bpm, leave no room for five zones "
                + "(81 % of HRVT2 must be below HRVT1): \(ramp)"
        }
    }
}
