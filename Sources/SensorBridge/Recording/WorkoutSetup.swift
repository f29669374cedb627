import Foundation
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// What `replay` and `record` share: the options that shape a workout (activity, zones, profile,
/// store), the builder, session and recorder made from them, and the output of the finished
/// workout.
struct WorkoutSetup {
    static let options: Set<String> = Set([
        "activity", "hr-zones", "power-zones", "auto-pause", "auto-lap", "target-hr-zone", "target-power-zone",
        "target-debounce", StoreLocation.option, bridgeOption, AthleteOption.option,
    ])
        .union(ProfileArguments.options)
    static let flags: Set<String> = ["json", "events", "save", saveEmptyFlag]
    /// `--save-empty`: store a workout without a single value too (not stored otherwise).
    static let saveEmptyFlag = "save-empty"
    static let saveEmptyHelp = """
          --save-empty               store the workout even when no value was recorded (a sensor
                                     that never connected, a strap without skin contact); such a
                                     workout is otherwise not stored, and the command says so
        """
    static let bridgeOption = "bridge-id"
    static let bridgeHelp = """
          --bridge-id ID             this bridge's name, which saved workouts carry (and its level
                                     in MQTT topics): 1 to 64 letters, digits, _ and - (default:
                                     the host name, other characters made _)
        """

    /// `--bridge-id ID`, else this box's host name made valid: the bridge saved workouts carry and
    /// its level in MQTT topics. A value that is not a bridge id is a usage error that says what to give.
    static func bridge(_ arguments: CommandArguments) throws(UsageError) -> BridgeID {
        guard let text = arguments[bridgeOption] else { return .hostDefault }
        guard let bridge = BridgeID(rawValue: text) else {
            throw UsageError(
                "--bridge-id '\(text)': give 1 to 64 letters, digits, _ and - (it names the bridge in saved workouts "
                    + "and is a topic level in MQTT), for example --bridge-id garage-trainer")
        }
        return bridge
    }

    let command: String
    let arguments: CommandArguments
    let activity: WorkoutActivityType
    let store: WorkoutStore?
    /// `--store` or `SENSORBRIDGE_STORE` as given (a URL with its parameters), for messages.
    let storeWhere: String?
    var machine: WorkoutStateMachine
    /// Whether the workout is stored: `--save`, or always (`serve`; `record` unless `--no-save`).
    let save: Bool
    /// How long the rider may be out of a target zone before the alert (`--target-debounce`).
    let targetDebounce: Duration
    /// The bridge saved workouts carry (`--bridge-id`, else the host name).
    let bridge: BridgeID
    /// The athlete recorded (`--athlete`): their profile, zones and sensors; nil for the box's own.
    let athlete: AthleteRecord?

    /// `athlete`, when given, stands for `--athlete` (one of `serve`'s athletes recorded at once).
    init(
        _ arguments: CommandArguments, _ context: CommandContext, command: String, alwaysSave: Bool = false,
        athlete named: AthleteName? = nil
    ) throws {
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
        if arguments.has(Self.saveEmptyFlag) && !save {
            throw UsageError(
                "--save-empty stores a workout without values, which is stored only when saving; give it "
                    + (command == "replay" ? "with --save" : "without --no-save"))
        }
        bridge = try Self.bridge(arguments)
        // The person's profile and zones: from the store when it exists (a workout alone creates none).
        storeWhere = try StoreLocation.path(arguments, context)
        store = save ? try Self.storeForSaving(command, arguments, context) : try StoreLocation.openIfPresent(arguments, context)
        if let named {
            athlete = try AthleteOption.athlete(named: named, in: store)
        } else {
            athlete = try AthleteOption.athlete(arguments, in: store)
        }
        var preferences = try athlete?.preferences ?? store?.preferences() ?? ZonePreferences()
        try ProfileArguments.apply(arguments, to: &preferences)
        machine = WorkoutStateMachine(activityType: activity, preferences: preferences)
        for (flag, type) in [("hr-zones", QuantityType.heartRate), ("power-zones", .cyclingPower)] {
            if let text = arguments[flag] {
                try machine.setCustomZoneConfiguration(try Self.zoneConfiguration(text, type, label: "--\(flag)"))
            }
        }
        machine.targets = try Self.targets(arguments)
        targetDebounce = try arguments.seconds("target-debounce", in: 1...600) ?? TargetZoneCoach.defaultDebounce
        machine.autoLap = try arguments["auto-lap"].map { try Self.duration($0, label: "--auto-lap") }
        if let given = try autoPauseArgument() { machine.autoPause = given }
    }

    /// `--target-hr-zone N[-M]` and `--target-power-zone N[-M]`, 1-based on the command line.
    static func targets(_ arguments: CommandArguments) throws(UsageError) -> [WorkoutTarget] {
        var targets: [WorkoutTarget] = []
        for (option, type) in [("target-hr-zone", QuantityType.heartRate), ("target-power-zone", .cyclingPower)] {
            guard let text = arguments[option] else { continue }
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil,
                1 <= low, low <= high, high <= 9
            else {
                throw UsageError("--\(option) \(text): give a zone such as 3, or a range of zones such as 2-3 (zones 1 to 9)")
            }
            targets.append(WorkoutTarget(quantityType: type, zones: (low - 1)...(high - 1)))
        }
        return targets
    }

    /// What the live screens (the terminal dashboard, the web page) follow for this workout: its
    /// sensors, zones, FTP and targets. After `begin`.
    func dashboardModel(sensors: [(key: String, name: String)], sensorKeys: [SensorID: String]) -> DashboardModel {
        DashboardModel(
            sensors: sensors, configurations: WorkoutStateMachine.zonedTypes.compactMap(machine.zoneConfiguration(for:)),
            sensorKeys: sensorKeys, functionalThresholdPower: machine.preferences.profile.functionalThresholdPower,
            targets: machine.targets.map { TargetZoneCoach(target: $0, debounce: targetDebounce) })
    }

    /// `--auto-pause off|SECONDS`: nil when not given, `.some(nil)` for off.
    private func autoPauseArgument() throws(UsageError) -> Duration?? {
        guard let text = arguments["auto-pause"] else { return nil }
        if text == "off" { return .some(nil) }
        return try arguments.seconds("auto-pause", in: 1...600, expecting: "off, or the seconds of stillness that pause")
    }

    /// Auto-pause as given, else on (3 s) for a cycling workout when `movementSensors` (a power
    /// meter, cadence or speed sensor records it), else off.
    mutating func applyAutoPause(default movementSensors: Bool) {
        guard arguments["auto-pause"] == nil else { return }
        machine.autoPause = movementSensors && activity == .cycling ? .seconds(3) : nil
    }

    /// `300`, `90s`, `5m`, `1h`, `1h30m`: a duration of at least 10 s for `label`.
    static func duration(_ text: String, label: String) throws(UsageError) -> Duration {
        var seconds = 0.0
        var number = ""
        var sawUnit = false
        for character in text.lowercased() {
            if character.isNumber || character == "." {
                number.append(character)
            } else if let unit = ["h": 3600.0, "m": 60, "s": 1][String(character)], let value = Double(number) {
                seconds += value * unit
                number = ""
                sawUnit = true
            } else {
                throw UsageError("\(label) \(text): give a duration such as 300, 90s, 5m or 1h30m")
            }
        }
        if !number.isEmpty {
            guard !sawUnit, let value = Double(number) else {
                throw UsageError("\(label) \(text): give a duration such as 300, 90s, 5m or 1h30m")
            }
            seconds += value
        }
        guard seconds.isFinite, seconds >= 10, seconds <= 86_400 else {
            throw UsageError("\(label) \(text): give a duration from 10 s to 24 h, such as 300, 90s, 5m or 1h30m")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The builder, collecting from t = 0 at `start`, and with `--save` the recorder that journals
    /// and stores it (announced on `context.errors`).
    mutating func begin(start: Date, sensors: [SensorID: String], _ context: CommandContext) throws
        -> (LiveWorkoutBuilder, WorkoutRecorder?)
    {
        // System zones are for the day of the ride (an age from a birth date depends on it).
        machine.zonesDate = ProfileArguments.calendarDate(start)
        try ProfileArguments.checkModels(machine.preferences, arguments, on: machine.zonesDate)
        for target in machine.targets {
            let option = target.quantityType == .heartRate ? "--target-hr-zone" : "--target-power-zone"
            guard let zones = machine.zoneConfiguration(for: target.quantityType)?.zones.count else {
                throw UsageError(
                    "\(option) needs \(target.quantityType == .heartRate ? "heart-rate" : "power") zones: give "
                        + "\(target.quantityType == .heartRate ? "--hr-zones, or --age and --resting-hr" : "--power-zones, or --ftp")"
                        + ", or set them with 'sensorbridge zones set' or 'sensorbridge profile set'")
            }
            guard target.zones.upperBound < zones else {
                throw UsageError("\(option) \(target.zonesText): the zones go from 1 to \(zones); give a target within them")
            }
        }
        machine.sensors = sensors
        var recorder: WorkoutRecorder?
        if save, let store {
            // A shared store is reached through this box's own, where the recording is journaled.
            recorder = try WorkoutRecorder(
                path: store.isShared ? try StoreLocation.localPath(context) : store.path,
                start: RecordingStart(
                    startDate: start, start: .zero, activityType: activity,
                    zoneConfigurations: Dictionary(
                        uniqueKeysWithValues: WorkoutStateMachine.zonedTypes.compactMap { type in
                            machine.zoneConfiguration(for: type).map { (type, $0) }
                        }),
                    sensors: sensors, profile: WorkoutProfile(machine.preferences), targets: machine.targets,
                    bridge: bridge, athlete: athlete?.name))
            let verb = command == "replay" ? "replays" : "records"
            context.errors.line(
                store.isShared
                    ? "sensorbridge \(command): journaling workout \(recorder!.workoutID) in \(recorder!.path) as it \(verb), for \(store.path)"
                    : "sensorbridge \(command): saving workout \(recorder!.workoutID) to \(store.path) as it \(verb)")
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
            if isUnsavedAsEmpty(workout) {
                try recorder.discard()
                context.errors.line("sensorbridge \(command): \(emptyNote)")
            } else {
                (id, unsaved) = saveFinished(workout, recorder: recorder, source: source)
            }
        }
        if arguments.has("json") {
            context.output.line(
                WorkoutJSON.object(workout, id: id, identity: id.flatMap { _ in recorder?.identity }, zoneUpdates: arguments.has("events"))
                    .serialized)
            if let id, let store { context.errors.line("sensorbridge \(command): saved as workout \(id) in \(store.path)") }
        } else {
            context.output.write(WorkoutSummary.text(workout, missingZonesHint: missingZonesHint()))
            if let id, let store { context.output.line("\nSaved as workout \(id) in \(store.path).") }
        }
        if arguments.has("no-save") { context.errors.line("sensorbridge \(command): not saved (--no-save)") }
        guard let unsaved else { return .success }
        context.errors.line("sensorbridge \(command): " + unsaved)
        return .failure
    }

    /// Whether the finished `workout` is not stored for holding no value at all: nothing a
    /// sensor sent counted (none connected, a strap without skin contact). `--save-empty` keeps it.
    func isUnsavedAsEmpty(_ workout: Workout) -> Bool {
        workout.samples.isEmpty && !arguments.has(Self.saveEmptyFlag)
    }

    /// What the command says of a workout it did not store for holding no value, with why that
    /// may be.
    var emptyNote: String {
        let why =
            switch command {
            case "replay": "the trace holds no measurement with a value that counts"
            case "serve": "its sensors sent measurements, but none with a value that counts, such as a strap without skin contact"
            default:
                "no sensor sent a value that counts: check that each connected and notified, that the strap touches the skin "
                    + "and that the pedals turned"
            }
        return "no values were recorded: nothing saved (\(why)); --save-empty stores such a workout"
    }

    /// Finishes the workout `recorder` journaled and, for a shared store, copies it there: its id
    /// in the store, or (nil and) what was kept where and how to finish saving it.
    func saveFinished(_ workout: Workout, recorder: WorkoutRecorder, source: String?) -> (id: WorkoutID?, failure: String?) {
        let id: WorkoutID
        do {
            id = try recorder.finish(workout)
        } catch {
            return (nil, Self.notSaved(error, workout: workout, recorder: recorder, source: source))
        }
        guard let store, store.isShared else { return (id, nil) }
        do throws(WorkoutStoreError) {
            // Copied, or there already (a copy that was cut off, finished by 'sync').
            if let copied = try store.copyWorkout(id, from: try WorkoutStore(path: recorder.path)) { return (copied, nil) }
            return (try store.workoutID(uuid: recorder.identity.uuid), nil)
        } catch {
            let url = Self.shellWord(storeWhere ?? store.path)
            return (
                nil,
                "could not copy the finished workout to \(store.path): \(error.reason). It is saved as workout \(id) in "
                    + "\(recorder.path); run 'sensorbridge sync --to \(url) --store \(Self.shellWord(recorder.path))' to copy it when "
                    + "the server is back"
            )
        }
    }

    /// The store a saving command opens. A shared store that cannot be reached (the network is
    /// down) does not stop the recording: it is saved in this box's own store, with a note to
    /// sync it later.
    static func storeForSaving(_ command: String, _ arguments: CommandArguments, _ context: CommandContext) throws -> WorkoutStore {
        do {
            return try StoreLocation.open(arguments, context)
        } catch WorkoutStoreError.server(let name, let reason) {
            let local = try StoreLocation.localPath(context)
            context.errors.line(
                "sensorbridge \(command): cannot reach \(name) (\(reason)); saving into \(local) instead: run "
                    + "'sensorbridge sync --to \(shellWord(try StoreLocation.requiredPath(arguments, context))) --store \(shellWord(local))' "
                    + "when the server is back")
            return try WorkoutStore(path: local)
        }
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

    /// Parses `120,140,155,170` into custom zones of `type`, which must be plausible
    /// (`ZonePlausibility`); `label` names the argument in messages (`--hr-zones`).
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
            let configuration = try WorkoutZoneConfiguration(quantityType: type, boundaryValues: values)
            try ZonePlausibility.check(configuration)
            return configuration
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
