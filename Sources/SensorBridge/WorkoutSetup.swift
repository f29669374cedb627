import Foundation
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// What `replay` and `record` share: the options that shape a workout (activity, zones, profile,
/// store), the builder, session and recorder made from them, and the output of the finished
/// workout.
struct WorkoutSetup {
    static let options: Set<String> = Set(["activity", "hr-zones", "power-zones", StoreLocation.option])
        .union(ProfileArguments.options)
    static let flags: Set<String> = ["json", "events", "save"]

    let command: String
    let arguments: CommandArguments
    let activity: WorkoutActivityType
    let store: WorkoutStore?
    var machine: WorkoutStateMachine
    /// Whether the workout is stored: `--save`, or always (`serve`).
    let save: Bool

    init(_ arguments: CommandArguments, _ context: CommandContext, command: String, alwaysSave: Bool = false) throws {
        self.command = command
        self.arguments = arguments
        save = alwaysSave || arguments.has("save")
        activity = try arguments["activity"].map { text throws(UsageError) in
            guard let type = WorkoutActivityType(name: text) else {
                let names = WorkoutActivityType.selectable.map(\.rawValue).joined(separator: ", ")
                throw UsageError("--activity \(text) is not an activity type; give one of \(names)")
            }
            return type
        } ?? .cycling
        if arguments.has("events") && !arguments.has("json") {
            throw UsageError("--events adds zone updates to the JSON output; give it with --json")
        }
        // The person's profile and zones: from the store when it exists (a workout alone creates none).
        store =
            save
            ? try StoreLocation.open(arguments, context) : try StoreLocation.openIfPresent(arguments, context)
        var preferences = try store?.preferences() ?? ZonePreferences()
        preferences.profile = try ProfileArguments.profile(from: arguments, updating: preferences.profile)
        if let model = try ProfileArguments.givenPowerZoneModel(arguments) { preferences.powerZoneModel = model }
        machine = WorkoutStateMachine(activityType: activity, preferences: preferences)
        for (flag, type) in [("hr-zones", QuantityType.heartRate), ("power-zones", .cyclingPower)] {
            if let text = arguments[flag] {
                try machine.setCustomZoneConfiguration(try Self.zoneConfiguration(text, type, label: "--\(flag)"))
            }
        }
    }

    /// The builder, collecting from t = 0 at `start`, and with `--save` the recorder that journals
    /// and stores it (announced on `context.errors`).
    mutating func begin(start: Date, sensors: [SensorID: String], _ context: CommandContext) throws
        -> (LiveWorkoutBuilder, WorkoutRecorder?)
    {
        // System zones are for the day of the ride (an age from a birth date depends on it).
        machine.zonesDate = ProfileArguments.calendarDate(start)
        try ProfileArguments.checkModels(machine.preferences, arguments, on: machine.zonesDate)
        machine.sensors = sensors
        var recorder: WorkoutRecorder?
        if save, let store {
            recorder = try WorkoutRecorder(
                path: store.path,
                start: RecordingStart(
                    startDate: start, start: .zero, activityType: activity,
                    zoneConfigurations: Dictionary(
                        uniqueKeysWithValues: WorkoutStateMachine.zonedTypes.compactMap { type in
                            machine.zoneConfiguration(for: type).map { (type, $0) }
                        }),
                    sensors: sensors, profile: WorkoutProfile(machine.preferences)))
            context.errors.line("sensorbridge \(command): saving workout \(recorder!.workoutID) to \(store.path) as it \(command == "replay" ? "replays" : "records")")
            context.errors.flush()
        }
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: start)
        return (builder, recorder)
    }

    /// Stores (with `--save`) and prints the finished workout. When the store cannot take it (a
    /// full disk), the workout is printed all the same, standard error says exactly what was saved
    /// and how to finish it, and the status is a failure. `source` is a trace holding the whole
    /// ride, to save it from.
    func finish(
        _ result: Result<Workout, WorkoutBuilderError>, recorder: WorkoutRecorder?, source: String? = nil,
        _ context: CommandContext
    ) throws -> ExitStatus {
        let workout = try Self.workout(result, recorder: recorder)
        var id: WorkoutID?
        var unsaved: String?
        if let recorder {
            do {
                id = try recorder.finish(workout)
            } catch {
                unsaved = Self.notSaved(error, workout: workout, recorder: recorder, source: source)
            }
        }
        if arguments.has("json") {
            context.output.line(WorkoutJSON.object(workout, id: id, zoneUpdates: arguments.has("events")).serialized)
        } else {
            context.output.write(WorkoutSummary.text(workout, missingZonesHint: missingZonesHint()))
            if let id, let store { context.output.line("\nSaved as workout \(id) in \(store.path).") }
        }
        guard let unsaved else { return .success }
        context.errors.line("sensorbridge \(command): " + unsaved)
        return .failure
    }

    /// What was saved of a workout whose finishing `error` refused, and how to finish it; saves as
    /// much of the journal as still fits first.
    static func notSaved(_ error: WorkoutStoreError, workout: Workout, recorder: WorkoutRecorder, source: String?) -> String {
        try? recorder.flush()
        let store = shellWord(recorder.path)
        var text =
            "could not save the finished workout: \(error.reason). Workout \(recorder.workoutID) is saved in \(recorder.path) "
            + "up to \(recorder.savedUntil.clockText) of \(workout.duration.clockText). Free some space, then run "
            + "'sensorbridge workouts recover --store \(store)' to finish it from what was saved"
        if let source {
            text += ", or 'sensorbridge replay \(shellWord(source)) --save --store \(store)' to save the whole ride from its trace"
        }
        return text
    }

    /// `word` as one shell word, to be pasted: as it is when every character is safe, else quoted.
    static func shellWord(_ word: String) -> String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+=:,@%")
        guard !word.isEmpty, !word.allSatisfy(safe.contains) else { return word.isEmpty ? "''" : word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// The finished workout, or the builder's error after discarding what `recorder` journaled.
    static func workout(_ result: Result<Workout, WorkoutBuilderError>, recorder: WorkoutRecorder?) throws -> Workout {
        do {
            return try result.get()
        } catch {
            try? recorder?.discard()
            throw error
        }
    }

    /// Parses `120,140,155,170` into custom zones of `type`; `label` names the argument in messages
    /// (`--hr-zones`).
    static func zoneConfiguration(_ text: String, _ type: QuantityType, label: String) throws(UsageError)
        -> WorkoutZoneConfiguration
    {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var values: [Double] = []
        for part in parts {
            guard let value = Double(part) else {
                throw UsageError("\(label): '\(part)' is not a number; give boundaries such as 120,140,155,170")
            }
            values.append(value)
        }
        do {
            return try WorkoutZoneConfiguration(quantityType: type, boundaryValues: values)
        } catch {
            throw UsageError("\(label) \(text): \(error)")
        }
    }

    func missingZonesHint() -> String? {
        var missing: [String] = []
        if machine.zoneConfiguration(for: .heartRate) == nil {
            missing.append("heart-rate zones need --hr-zones, or --age and --resting-hr (or 'sensorbridge profile set')")
        }
        if machine.zoneConfiguration(for: .cyclingPower) == nil {
            missing.append("power zones need --power-zones or --ftp (or 'sensorbridge profile set --ftp')")
        }
        return missing.isEmpty ? nil : "No zones for some quantities: " + missing.joined(separator: "; ") + "."
    }
}
