import Captures
import Foundation
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge replay FILE`: a recorded trace through the whole live pipeline into a zoned workout.
enum ReplayCommand {
    static let help = """
        Usage: sensorbridge replay FILE [options]

        Replays a JSONL trace (Captures/*.jsonl, or one written by 'record --trace') through the
        decoders, the sample ring and the live workout builder, and prints the zoned workout.
        Zones and profile come from the workout store ('sensorbridge zones set', 'sensorbridge
        profile set') when it exists; the flags below override them.

        Options:
          --pace fast|realtime|N     fast (default), the recording's pace, or N times it
          --activity TYPE            the activity when the trace names none: cycling (default),
                                     running, walking, hiking, rowing, swimming, other
          --hr-zones A,B,C,D         heart-rate zone boundaries in bpm (2 to 8, increasing): custom zones
          --power-zones A,B,...      power zone boundaries in W: custom zones
          --age N | --birth-date YYYY-MM-DD
          --resting-hr N --max-hr N  profile for the system heart-rate zones (heart-rate reserve)
          --ftp N                    functional threshold power in W for the system power zones
          --json                     one JSON object instead of the summary
          --events                   with --json, also every zone update
          --save                     store the workout and print its id; samples are journaled
                                     every half second as it replays, so an interrupted replay
                                     can be finished with 'sensorbridge workouts recover'
        \(StoreLocation.help)

        Examples:
          sensorbridge replay Captures/ride-60min-hr-power.jsonl --age 40 --resting-hr 50 --ftp 250
          sensorbridge replay Captures/run-30min-hr.jsonl --hr-zones 120,140,155,170 --json
          sensorbridge replay Captures/ride-60min-hr-power.jsonl --save --store /tmp/rides.sqlite
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "replay",
            options: Set(["pace", "activity", "hr-zones", "power-zones", StoreLocation.option])
                .union(ProfileArguments.options),
            flags: ["json", "events", "save"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        guard let path = arguments.positionals.first else {
            throw UsageError("give the trace to replay, for example: sensorbridge replay Captures/run-30min-hr.jsonl")
        }
        let pace = try arguments["pace"].map { text throws(UsageError) in
            guard let pace = ReplayPace(text) else {
                throw UsageError("--pace \(text) is not a pace; give fast, realtime or a positive factor such as 4")
            }
            return pace
        } ?? .fast
        let activity = try arguments["activity"].map { text throws(UsageError) in
            guard let type = WorkoutActivityType(name: text) else {
                let names = WorkoutActivityType.selectable.map(\.rawValue).joined(separator: ", ")
                throw UsageError("--activity \(text) is not an activity type; give one of \(names)")
            }
            return type
        } ?? .cycling
        if arguments.has("events") && !arguments.has("json") {
            throw UsageError("--events adds zone updates to the JSON output; give it with --json")
        }

        let save = arguments.has("save")
        // The person's profile and zones: from the store when it exists (a replay alone creates none).
        let store = save ? try StoreLocation.open(arguments, context) : try StoreLocation.openIfPresent(arguments, context)
        var preferences = try store?.preferences() ?? ZonePreferences()
        preferences.profile = try ProfileArguments.profile(from: arguments, updating: preferences.profile)
        if let model = try ProfileArguments.givenPowerZoneModel(arguments) { preferences.powerZoneModel = model }
        var machine = WorkoutStateMachine(activityType: activity, preferences: preferences)
        for (flag, type) in [("hr-zones", QuantityType.heartRate), ("power-zones", .cyclingPower)] {
            if let text = arguments[flag] {
                try machine.setCustomZoneConfiguration(try zoneConfiguration(text, type, label: "--\(flag)"))
            }
        }

        let reader: TraceReader
        do {
            reader = try TraceReader(contentsOf: URL(fileURLWithPath: path))
        } catch {
            context.errors.line("sensorbridge replay: \(path): \(error)")
            return .failure
        }
        // System zones are for the day of the ride (an age from a birth date depends on it).
        machine.zonesDate = ProfileArguments.calendarDate(reader.header.start)
        try ProfileArguments.checkModels(preferences, arguments, on: machine.zonesDate)
        let replayer = TraceReplayer(reader: reader, pace: pace)
        machine.sensors = replayer.sensorNames
        var recorder: WorkoutRecorder?
        if save, let store {
            recorder = try WorkoutRecorder(
                path: store.path,
                start: RecordingStart(
                    startDate: reader.header.start, start: .zero, activityType: activity,
                    zoneConfigurations: Dictionary(
                        uniqueKeysWithValues: WorkoutStateMachine.zonedTypes.compactMap { type in
                            machine.zoneConfiguration(for: type).map { (type, $0) }
                        }),
                    sensors: replayer.sensorNames))
            context.errors.line("sensorbridge replay: saving workout \(recorder!.workoutID) to \(store.path) as it replays")
            context.errors.flush()
        }
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: reader.header.start)
        let started = ContinuousClock.now
        let journal = recorder.map { WorkoutStoreJournal(recorder: $0, sensorNames: replayer.sensorNames) }
        let session: WorkoutSession
        if case .speed(let factor) = pace {
            session = WorkoutSession(builder: builder, now: { (ContinuousClock.now - started) * factor }, journal: journal)
        } else {
            session = WorkoutSession(builder: builder, journal: journal)
        }
        let ring = session.makeRing()
        let result = session.run(producers: [{ replayer.produce(into: ring, started: started) }])
        if let failure = replayer.failure {
            try? recorder?.discard()
            context.errors.line("sensorbridge replay: \(path): \(failure)")
            return .failure
        }
        for warning in session.warnings { context.errors.line("sensorbridge replay: \(path): \(warning)") }
        let workout: Workout
        do {
            workout = try result.get()
        } catch {
            try? recorder?.discard()
            throw error
        }
        let id = try recorder?.finish(workout)

        if arguments.has("json") {
            context.output.line(WorkoutJSON.object(workout, id: id, zoneUpdates: arguments.has("events")).serialized)
        } else {
            context.output.write(WorkoutSummary.text(workout, missingZonesHint: missingZonesHint(machine)))
            if let id, let store { context.output.line("\nSaved as workout \(id) in \(store.path).") }
        }
        return .success
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

    static func missingZonesHint(_ machine: WorkoutStateMachine) -> String? {
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
