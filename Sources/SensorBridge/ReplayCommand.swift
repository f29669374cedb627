import Captures
import Foundation
import SensorCore
import Workouts
import Zones

/// `sensorbridge replay FILE`: a recorded trace through the whole live pipeline into a zoned workout.
enum ReplayCommand {
    static let help = """
        Usage: sensorbridge replay FILE [options]

        Replays a recording through the decoders, the sample ring and the live workout builder,
        and prints the zoned workout. FILE is a JSONL trace (Captures/*.jsonl, or one written by
        'record --trace') or a btsnoop capture ('btmon -w', Android's btsnoop_hci.log,
        'sensorbridge capture'), recognised by its first bytes.

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
        \(HandleMapArgument.help)

        A btsnoop capture's devices are named by what they are: 'power' for a peer with the
        Cycling Power service, 'hr' for Heart Rate, 'csc' for Cycling Speed and Cadence ('hr2'
        for a second strap), else its address. A disconnection is a sensor dropout, a
        reconnection its return.

        Examples:
          sensorbridge replay Captures/ride-60min-hr-power.jsonl --age 40 --resting-hr 50 --ftp 250
          sensorbridge replay Captures/run-30min-hr.jsonl --hr-zones 120,140,155,170 --json
          sensorbridge replay btsnoop_hci.log --handle 0x0012=2a37 --age 40 --resting-hr 50
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "replay",
            options: Set(["pace", "activity", "hr-zones", "power-zones", HandleMapArgument.option])
                .union(ProfileArguments.options),
            flags: ["json", "events"])
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

        let profile = try ProfileArguments.profile(from: arguments)
        let preferences = ZonePreferences(profile: profile, powerZoneModel: try ProfileArguments.powerZoneModel(arguments))
        var machine = WorkoutStateMachine(activityType: activity, preferences: preferences)
        for (flag, type) in [("hr-zones", QuantityType.heartRate), ("power-zones", .cyclingPower)] {
            if let text = arguments[flag] {
                try machine.setCustomZoneConfiguration(try zoneConfiguration(text, type, flag: flag))
            }
        }

        let handles = try HandleMapArgument.parse(arguments)
        let reader: any TraceRecordSource
        do {
            reader = try CaptureFile.openTrace(URL(fileURLWithPath: path), assumedHandles: handles)
        } catch {
            context.errors.line("sensorbridge replay: \(path): \(error)")
            return .failure
        }
        let capture = reader as? BtsnoopTraceReader
        if capture == nil, !handles.isEmpty {
            throw UsageError("--handle maps the handles of a btsnoop capture; \(path) is a JSONL trace")
        }
        // System zones are for the day of the ride (an age from a birth date depends on it).
        machine.zonesDate = ProfileArguments.calendarDate(reader.header.start)
        try ProfileArguments.checkModels(preferences, arguments, on: machine.zonesDate)
        let replayer = TraceReplayer(reader: reader, pace: pace)
        machine.sensors = replayer.sensorNames
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: reader.header.start)
        let started = ContinuousClock.now
        let session: WorkoutSession
        if case .speed(let factor) = pace {
            session = WorkoutSession(builder: builder, now: { (ContinuousClock.now - started) * factor })
        } else {
            session = WorkoutSession(builder: builder)
        }
        let ring = session.makeRing()
        let workout = try session.run(producers: [{ replayer.produce(into: ring, started: started) }]).get()
        if let failure = replayer.failure {
            context.errors.line("sensorbridge replay: \(path): \(failure)")
            return .failure
        }
        for warning in session.warnings { context.errors.line("sensorbridge replay: \(path): \(warning)") }
        if let skipped = capture?.statistics.summary { context.errors.line("sensorbridge replay: \(path): skipped \(skipped)") }

        if arguments.has("json") {
            context.output.line(WorkoutJSON.object(workout, zoneUpdates: arguments.has("events")).serialized)
        } else {
            context.output.write(WorkoutSummary.text(workout, missingZonesHint: missingZonesHint(machine)))
        }
        return .success
    }

    /// Parses `120,140,155,170` into custom zones of `type`.
    static func zoneConfiguration(_ text: String, _ type: QuantityType, flag: String) throws(UsageError)
        -> WorkoutZoneConfiguration
    {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var values: [Double] = []
        for part in parts {
            guard let value = Double(part) else {
                throw UsageError("--\(flag): '\(part)' is not a number; give boundaries such as 120,140,155,170")
            }
            values.append(value)
        }
        do {
            return try WorkoutZoneConfiguration(quantityType: type, boundaryValues: values)
        } catch {
            throw UsageError("--\(flag) \(text): \(error)")
        }
    }

    static func missingZonesHint(_ machine: WorkoutStateMachine) -> String? {
        var missing: [String] = []
        if machine.zoneConfiguration(for: .heartRate) == nil {
            missing.append("heart-rate zones need --hr-zones, or --age and --resting-hr")
        }
        if machine.zoneConfiguration(for: .cyclingPower) == nil {
            missing.append("power zones need --power-zones or --ftp")
        }
        return missing.isEmpty ? nil : "No zones for some quantities: " + missing.joined(separator: "; ") + "."
    }
}
