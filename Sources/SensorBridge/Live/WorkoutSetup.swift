import Export
import Foundation
import Outputs
import Recording
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// The command line's side of a recording, for `record`, `replay` and `serve`: the options that
/// shape a workout (activity, zones, profile, store) made into a typed `RecordingPlan`, the
/// `Recording` that carries it out, and what the command says of its outcome.
struct WorkoutSetup {
    static let options: Set<String> = Set([
        "activity", "hr-zones", "power-zones", "auto-pause", "auto-lap", "target-hr-zone", "target-power-zone",
        "target-debounce", planOption, StoreLocation.option, bridgeOption, AthleteOption.option,
    ])
        .union(ProfileValues.options)
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
    /// `--store` or `SENSORBRIDGE_STORE` as given (a URL with its parameters), for messages.
    let storeWhere: String?
    /// The store: the one saved to, else the one the profile and zones were read from, if any.
    let store: WorkoutStore?
    var recording: Recording
    /// The class points by heart-rate zone (`--zone-points`, record and serve).
    let zonePoints: ZonePoints

    /// The workout's rules: zones, targets, auto-pause and auto-lap.
    var machine: WorkoutStateMachine { recording.machine }
    /// The athlete recorded (`--athlete`): their profile, zones and sensors; nil for the box's own.
    var athlete: AthleteRecord? { recording.plan.athlete }

    /// `athlete`, when given, stands for `--athlete` (one of `serve`'s athletes recorded at once).
    init(
        _ arguments: CommandArguments, _ context: CommandContext, command: String, alwaysSave: Bool = false,
        athlete named: AthleteName? = nil
    ) throws {
        self.command = command
        self.arguments = arguments
        let save = alwaysSave || arguments.has("save")
        var plan = RecordingPlan()
        plan.activities = try Self.activities(arguments)
        if arguments.has("events") && !arguments.has("json") {
            throw UsageError("--events adds zone updates to the JSON output; give it with --json")
        }
        if arguments.has(Self.saveEmptyFlag) && !save {
            throw UsageError(
                "--save-empty stores a workout without values, which is stored only when saving; give it "
                    + (command == "replay" ? "with --save" : "without --no-save"))
        }
        plan.bridge = try Self.bridge(arguments)
        // The person's profile and zones: from the store when it exists (a workout alone creates none).
        storeWhere = try StoreLocation.path(arguments, context)
        store = save ? try Self.storeForSaving(command, arguments, context) : try StoreLocation.openIfPresent(arguments, context)
        if let store, save {
            // A shared store is reached through this box's own, where the recording is journaled.
            plan.saving = RecordingPlan.Saving(
                store: store, journalPath: store.isShared ? try StoreLocation.localPath(context) : store.path,
                keepsEmpty: arguments.has(Self.saveEmptyFlag))
        }
        let opened = store
        if let named {
            plan.athlete = try AthleteOption.athlete(named: named, in: opened)
        } else {
            plan.athlete = try AthleteOption.athlete(arguments, in: opened)
        }
        plan.preferences = try plan.athlete?.preferences ?? opened?.preferences() ?? ZonePreferences()
        try ProfileValues.apply(arguments.requestValues, to: &plan.preferences)
        for (flag, type) in [("hr-zones", QuantityType.heartRate), ("power-zones", .cyclingPower)] {
            if let text = arguments[flag] { plan.customZones.append(try Self.zoneConfiguration(text, type, label: "--\(flag)")) }
        }
        plan.targets = try Self.targets(arguments)
        if let text = arguments[Self.planOption], let path = try Self.planPath(text, athlete: plan.athlete?.name, command: command) {
            let workoutPlan = try Self.workoutPlan(path)
            plan.workoutPlan = workoutPlan
            if arguments[Self.activitiesOption] != nil {
                throw UsageError("--plan is a workout of one activity; give --plan or --activities A,B,..., not both")
            }
            // The plan's sport (a Zwift run is running) unless --activity says otherwise.
            if arguments["activity"] == nil { plan.activities = ActivityPlan([workoutPlan.sport]) }
        }
        plan.targetDebounce = try arguments.seconds("target-debounce", in: 1...600) ?? TargetZoneCoach.defaultDebounce
        plan.autoLap = try arguments["auto-lap"].map { try Self.duration($0, label: "--auto-lap") }
        plan.autoPause = try Self.autoPause(arguments)
        zonePoints = try Self.zonePoints(arguments)
        recording = try Recording(plan)
    }

    static let planOption = "plan"
    static let planHelp = """
          --plan FILE                ride a structured workout (a FIT workout, Zwift's .zwo or
                                     the JSON form; see 'sensorbridge plan'): each step is a lap,
                                     a timed step ends on its own, an open one at the lap key (the
                                     lap key ends any step early); its target is coached and the
                                     time in it stored per step
        """

    /// The plan file of `--plan TEXT` for `athlete`: the file TEXT names; under serve, when no
    /// file has that name, `NAME=FILE,...` gives athletes plans of their own (nil for one not named).
    static func planPath(_ text: String, athlete: AthleteName?, command: String) throws(UsageError) -> String? {
        guard command == "serve", text.contains("="), !FileManager.default.fileExists(atPath: text) else { return text }
        var paths: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, AthleteName(rawValue: String(parts[0])) != nil else {
                throw UsageError("--plan \(text): give a plan file, or ATHLETE=FILE,... for athletes' own plans")
            }
            paths[String(parts[0])] = String(parts[1])
        }
        return athlete.flatMap { paths[$0.rawValue] }
    }

    /// The plan in the file at `path`, or a usage error that says what is wrong and where.
    static func workoutPlan(_ path: String) throws(UsageError) -> WorkoutPlan {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsageError("--plan \(path): cannot be read (\((error as NSError).localizedDescription)); give a FIT, .zwo or JSON plan")
        }
        do {
            return try WorkoutPlanFile.read(data)
        } catch {
            throw UsageError("--plan \(path): \(error)")
        }
    }

    /// `record` and `serve`'s options for a multisport workout begun live.
    static let liveOptions: Set<String> = [activitiesOption, zonePointsOption]
    static let liveFlags: Set<String> = [noTransitionsFlag, raiseMaximumFlag]
    static let raiseMaximumFlag = "raise-max-hr"
    static let raiseMaximumHelp = """
          --raise-max-hr             after a saved workout in which the heart rate stayed above the
                                     profile's maximum (measured, else 208 - 0.7 x age) for 30 s,
                                     make the highest heart rate so held the profile's maximum (the
                                     rider's, with athletes), as the class systems do; logged
        """

    /// With `--raise-max-hr`, after `workout` was saved: the highest heart rate it held for 30 s
    /// becomes the maximum of the rider's stored profile when it is above the one in effect (the
    /// measured maximum, else the estimate), changed now (so `sync` carries it); returns what to
    /// say, nil when nothing changed. The zones of the workouts to come follow the profile.
    func raiseMaximum(after workout: Workout) throws -> String? {
        guard arguments.has(Self.raiseMaximumFlag), let store, let held = workout.sustainedHeartRate() else { return nil }
        let name = athlete?.name
        var preferences = try store.preferences(of: name)
        let current = try? preferences.profile.maximumHeartRate(on: machine.zonesDate)
        let raised = Int(held.rounded(.down))
        guard current.map({ Double(raised) > $0 }) ?? true, AthleteProfile.heartRateRange.contains(raised) else { return nil }
        preferences.profile.maximumHeartRate = raised
        try store.savePreferences(preferences, for: name)
        return "maximum heart rate raised to \(raised) bpm (held for \(Int(Workout.sustainedMaximumSpan.seconds)) s; it was "
            + (current.map { "\(Int($0.rounded())) bpm" } ?? "not known") + ")"
    }
    static let activitiesOption = "activities"
    static let zonePointsOption = "zone-points"
    static let zonePointsHelp = """
          --zone-points A,B,...      class points for each minute in heart-rate zone 1, 2, ...
                                     (the last for the zones past it; default 1,2,3,4,4, as
                                     Myzone's), on the class screen and the live page
        """

    /// `--zone-points 1,2,3,4,4`: 1 to 9 numbers from 0 to 100.
    static func zonePoints(_ arguments: CommandArguments) throws(UsageError) -> ZonePoints {
        guard let text = arguments[zonePointsOption] else { return .standard }
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard (1...9).contains(values.count), values.allSatisfy({ $0.map { (0...100).contains($0) } ?? false }) else {
            throw UsageError("--zone-points \(text): give the points a minute in each heart-rate zone, 1 to 9 numbers from 0 to 100, such as 1,2,3,4,4")
        }
        return ZonePoints(perMinute: values.compactMap { $0 })
    }
    static let noTransitionsFlag = "no-transitions"
    static let activitiesHelp = """
          --activities A,B,...       a multisport workout: it begins with A, and each 'n' on the
                                     dashboard, 'Next activity' on the page (POST
                                     /api/session/activity) or SIGRTMIN under serve begins the
                                     next (cycling,running), with a transition between two (the
                                     time changing over, kept as its own activity)
          --no-transitions           no transition between the activities of --activities
        """

    /// The activities: `--activities A,B,...` (record and serve), else `--activity TYPE`, else cycling.
    static func activities(_ arguments: CommandArguments) throws(UsageError) -> ActivityPlan {
        func type(_ text: String, _ option: String) throws(UsageError) -> WorkoutActivityType {
            guard let type = WorkoutActivityType(name: text) else {
                let names = WorkoutActivityType.selectable.map(\.rawValue).joined(separator: ", ")
                throw UsageError("\(option) \(text) is not an activity type; give one of \(names)")
            }
            return type
        }
        guard let list = arguments[activitiesOption] else {
            if arguments.has(noTransitionsFlag) { throw UsageError("--no-transitions goes with --activities A,B,...") }
            return ActivityPlan([try arguments["activity"].map { text throws(UsageError) in try type(text, "--activity") } ?? .cycling])
        }
        if arguments["activity"] != nil {
            throw UsageError("give either --activity TYPE (one activity) or --activities A,B,... (several), not both")
        }
        var types: [WorkoutActivityType] = []
        for text in list.split(separator: ",", omittingEmptySubsequences: false) {
            types.append(try type(String(text), "--activities"))
        }
        return ActivityPlan(types, transitions: !arguments.has(noTransitionsFlag))
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
            targets: machine.targets.map { TargetZoneCoach(target: $0, debounce: recording.plan.targetDebounce) },
            activities: recording.plan.activities, steps: stepCoach,
            maximumHeartRate: try? machine.preferences.profile.maximumHeartRate(on: machine.zonesDate),
            profile: machine.preferences.profile, day: machine.zonesDate, zonePoints: zonePoints)
    }

    /// The plan's live coach (`--plan`), for the dashboard, the page and MQTT. After `begin`.
    var stepCoach: StepCoach? {
        recording.plan.workoutPlan.map { plan in
            StepCoach(
                plan: plan, functionalThresholdPower: machine.preferences.profile.functionalThresholdPower,
                zones: WorkoutStateMachine.zonedTypes.compactMap(machine.zoneConfiguration(for:)),
                debounce: recording.plan.targetDebounce)
        }
    }

    /// `--auto-pause off|SECONDS`; by the rule when not given.
    private static func autoPause(_ arguments: CommandArguments) throws(UsageError) -> RecordingPlan.AutoPause {
        guard let text = arguments["auto-pause"] else { return .byDefault }
        if text == "off" { return .off }
        guard let stillness = try arguments.seconds("auto-pause", in: 1...600, expecting: "off, or the seconds of stillness that pause")
        else { return .byDefault }
        return .after(stillness)
    }

    /// Auto-pause as given, else on (3 s) for a cycling workout when `movementSensors` (a power
    /// meter, cadence or speed sensor records it), else off.
    mutating func applyAutoPause(default movementSensors: Bool) { recording.applyAutoPause(movementSensors: movementSensors) }

    /// `300`, `90s`, `5m`, `1h`, `1h30m`: a duration of at least 10 s for `label`.
    static func duration(_ text: String, label: String) throws(UsageError) -> Duration {
        guard let duration = Duration(written: text) else {
            throw UsageError("\(label) \(text): give a duration such as 300, 90s, 5m or 1h30m")
        }
        guard duration >= .seconds(10), duration <= .seconds(86_400) else {
            throw UsageError("\(label) \(text): give a duration from 10 s to 24 h, such as 300, 90s, 5m or 1h30m")
        }
        return duration
    }

    /// The builder, collecting from t = 0 at `start`, and with `--save` the recorder that journals
    /// and stores it (announced on `context.errors`).
    mutating func begin(start: Date, sensors: [SensorID: String], _ context: CommandContext) throws
        -> (LiveWorkoutBuilder, WorkoutRecorder?)
    {
        // System zones are for the day of the ride (an age from a birth date depends on it).
        let day = CalendarDate(localDayOf: start, in: context.timeZone)
        try ProfileValues.checkModels(machine.preferences, arguments.requestValues, on: day)
        let begun: (builder: LiveWorkoutBuilder, recorder: WorkoutRecorder?)
        do {
            begun = try recording.begin(start: start, day: day, sensors: sensors)
        } catch let error as RecordingError {
            throw Self.usageError(error)
        }
        if let recorder = begun.recorder, let store {
            let verb = command == "replay" ? "replays" : "records"
            context.errors.line(
                store.isShared
                    ? "sensorbridge \(command): journaling workout \(recorder.workoutID) in \(recorder.path) as it \(verb), for \(store.path)"
                    : "sensorbridge \(command): saving workout \(recorder.workoutID) to \(store.path) as it \(verb)")
            context.errors.flush()
        }
        return begun
    }

    /// A target the workout's zones cannot judge, said with the options that fix it.
    static func usageError(_ error: RecordingError) -> UsageError {
        switch error {
        case .targetWithoutZones(let target):
            let heart = target.quantityType == .heartRate
            return UsageError(
                "\(heart ? "--target-hr-zone" : "--target-power-zone") needs \(heart ? "heart-rate" : "power") zones: give "
                    + "\(heart ? "--hr-zones, or --age and --resting-hr" : "--power-zones, or --ftp")"
                    + ", or set them with 'sensorbridge zones set' or 'sensorbridge profile set'")
        case .targetOutsideZones(let target, let zones):
            let option = target.quantityType == .heartRate ? "--target-hr-zone" : "--target-power-zone"
            return UsageError("\(option) \(target.zonesText): the zones go from 1 to \(zones); give a target within them")
        case .planWithoutFTP:
            return UsageError(
                "--plan: its targets are % of FTP and there is no FTP: give --ftp N, or set it with 'sensorbridge profile set --ftp N'")
        case .planStepWithoutZones(let step, let type):
            let heart = type == .heartRate
            return UsageError(
                "--plan: step \(step) asks for \(heart ? "heart-rate" : "power") zones and there are none: give "
                    + "\(heart ? "--hr-zones, or --age and --resting-hr" : "--power-zones, or --ftp")"
                    + ", or set them with 'sensorbridge zones set' or 'sensorbridge profile set'")
        case .planStepOutsideZones(let step, let type, let asked, let count):
            let what = type == .heartRate ? "heart-rate" : "power"
            return UsageError(
                "--plan: step \(step) asks for \(what) zone\(asked.count == 1 ? " \(asked.lowerBound)" : "s \(asked.lowerBound)-\(asked.upperBound)"), "
                    + "and the \(what) zones go from 1 to \(count); give zones with as many, or a plan within them")
        }
    }

    /// Stores (with `--save`) and prints the finished workout. When the store cannot take it (a
    /// full disk), the workout is printed all the same, standard error says exactly what was saved
    /// and how to finish it, and the status is a failure. `source` is a trace holding the whole
    /// ride, to save it from. Returns the outcome with the status.
    @discardableResult
    func finish(
        _ result: Result<Workout, WorkoutBuilderError>, recorder: WorkoutRecorder?, source: String? = nil,
        _ context: CommandContext
    ) throws -> (status: ExitStatus, outcome: Recording.Outcome) {
        let workout = try Recording.workout(result, recorder: recorder)
        let outcome = try recording.finish(workout, recorder: recorder)
        if case .empty = outcome { context.errors.line("sensorbridge \(command): \(emptyNote)") }
        let id = outcome.savedID
        if arguments.has("json") {
            let identity = id.flatMap { _ in recorder?.identity }
            context.output.line(
                WorkoutJSON.object(workout, id: id, identity: identity, zoneUpdates: arguments.has("events"), timeZone: context.timeZone)
                    .serialized)
            if let id, let store { context.errors.line("sensorbridge \(command): saved as workout \(id) in \(store.path)") }
        } else {
            context.output.write(WorkoutSummary.text(workout, missingZonesHint: missingZonesHint(), timeZone: context.timeZone))
            if let id, let store { context.output.line("\nSaved as workout \(id) in \(store.path).") }
        }
        if arguments.has("no-save") { context.errors.line("sensorbridge \(command): not saved (--no-save)") }
        if id != nil, let raised = try raiseMaximum(after: workout) { context.errors.line("sensorbridge \(command): " + raised) }
        guard case .failed(let failure) = outcome else { return (.success, outcome) }
        context.errors.line("sensorbridge \(command): " + failureText(failure, workout: workout, source: source))
        return (.failure, outcome)
    }

    /// Whether the finished `workout` is not stored for holding no value at all: nothing a
    /// sensor sent counted (none connected, a strap without skin contact). `--save-empty` keeps it.
    func isUnsavedAsEmpty(_ workout: Workout) -> Bool { recording.isEmpty(workout) }

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

    /// What was kept of a workout the store did not take, and how to finish saving it.
    func failureText(_ failure: Recording.SaveFailure, workout: Workout, source: String?) -> String {
        switch failure {
        case .notStored(let error, let id, let journal, let savedUntil):
            let store = Self.shellWord(journal)
            var text =
                "could not save the finished workout: \(error.reason). Workout \(id) is saved in \(journal) "
                + "up to \(savedUntil.clockText) of \(workout.duration.clockText). Free some space, then run "
                + "'sensorbridge workouts recover --store \(store)' to finish it from what was saved"
            if let source {
                text += ", or 'sensorbridge replay \(Self.shellWord(source)) --save --store \(store)' to save the whole ride from its trace"
            }
            return text
        case .notCopied(let error, let id, let journal):
            let url = Self.shellWord(storeWhere ?? store?.path ?? "")
            return "could not copy the finished workout to \(store?.path ?? "the store"): \(error.reason). It is saved as workout \(id) in "
                + "\(journal); run 'sensorbridge sync --to \(url) --store \(Self.shellWord(journal))' to copy it when the server is back"
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

    /// `word` as one shell word, to be pasted: as it is when every character is safe, else quoted.
    static func shellWord(_ word: String) -> String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+=:,@%")
        guard !word.isEmpty, !word.allSatisfy(safe.contains) else { return word.isEmpty ? "''" : word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Parses `120,140,155,170` into custom zones of `type`, which must be plausible
    /// (`ZonePlausibility`); `label` names the argument in messages (`--hr-zones`).
    static func zoneConfiguration(_ text: String, _ type: QuantityType, label: String) throws(UsageError)
        -> WorkoutZoneConfiguration
    {
        do {
            return try WorkoutZoneConfiguration(boundaries: text, type, label: label)
        } catch {
            throw UsageError(error.description)
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
