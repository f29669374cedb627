import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore
import Zones

/// `sensorbridge workouts`: the stored workouts (list, show, delete, zones, recover).
enum WorkoutsCommand {
    static let help = """
        Usage: sensorbridge workouts <subcommand> [options]

        The workouts in the workout store ('sensorbridge replay FILE --save' adds one).

        Subcommands:
          list      the workouts, oldest first, with filters
          show      one workout: its figures, training load, laps and time in zone
          delete    delete a workout and everything stored for it
          zones     time in zone by day, week or month over many workouts, in one set of zones
          load      daily training load with fitness, fatigue and form
          best      best efforts: the power-duration curve and heart rate's
          recover   finish (or discard) workouts whose recording was interrupted

        Every subcommand takes --store PATH (default: $SENSORBRIDGE_STORE, else
        $XDG_DATA_HOME/sensorbridge/workouts.sqlite, else ~/.local/share/sensorbridge/workouts.sqlite).
        Run 'sensorbridge workouts <subcommand> --help' for its options.

        Examples:
          sensorbridge workouts list --from 2026-11-01
          sensorbridge workouts show latest
          sensorbridge workouts zones --quantity heart-rate --by week --normalize 7
          sensorbridge workouts load
          sensorbridge workouts best --by month
          sensorbridge workouts recover
        """

    static let subcommands = ["list", "show", "delete", "zones", "load", "best", "recover"]

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        guard let name = words.first, !name.hasPrefix("-") else {
            if words.first == "--help" || words.first == "-h" {
                context.output.line(help)
                return .success
            }
            throw UsageError(
                "give a subcommand: list, show, delete, zones, load, best or recover; run 'sensorbridge workouts --help'")
        }
        let rest = Array(words.dropFirst())
        switch name {
        case "list": return try list(rest, context)
        case "show": return try show(rest, context)
        case "delete": return try delete(rest, context)
        case "zones": return try WorkoutZonesReport.run(rest, context)
        case "load": return try WorkoutLoadReport.run(rest, context)
        case "best": return try WorkoutBestReport.run(rest, context)
        case "recover": return try recover(rest, context)
        default:
            throw UsageError(
                "unknown subcommand '\(name)' for 'workouts'"
                    + Suggestion.phrase(for: name, among: subcommands)
                    + "; give list, show, delete, zones, load, best or recover")
        }
    }

    // MARK: list

    static let listHelp = """
        Usage: sensorbridge workouts list [--from DAY] [--to DAY] [--activity TYPE] [--athlete NAME|--all-athletes]
                   [--json] [--store PATH]

        Lists the stored workouts, oldest first, each with the bridge that recorded it (its
        --bridge-id, else that box's host name) and, when they are not all your own profile's, the
        athlete it was recorded for ('-' for your own). Unfinished ones (an interrupted recording)
        are marked; 'sensorbridge workouts recover' finishes them. The commands that take an ID
        also take the workout's UUID (in --json), which stays the same wherever the workout is
        copied.

        Options:
          --from YYYY-MM-DD          workouts that start on this day or later (local time, or $TZ)
          --to YYYY-MM-DD            workouts that start on this day or earlier
          --activity TYPE            workouts of this type, or with an activity of it (a
                                     bike-and-run workout is listed for cycling and for running,
                                     with the figures of that activity alone; "figuresOf" in --json)
          --athlete NAME             workouts recorded for this athlete (see 'sensorbridge athletes')
          --all-athletes             every rider's workouts (the default without --athlete)
          --json                     {"workouts":[{"id":1,"uuid":"...","bridge":"garage","athlete":"Anna",
                                     "state":"finished",...}, ...] ("athlete" null for your own profile's;
                                     "state" finished, recording or unfinished)
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts list
          sensorbridge workouts list --from 2026-11-01 --to 2026-11-30 --activity cycling --json
        """

    static func list(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts list", options: ["from", "to", "activity", AthleteOption.option, StoreLocation.option],
            flags: ["json", AthleteOption.allAthletes])
        if arguments.has("help") {
            context.output.line(listHelp)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        let filter = try self.filter(arguments, calendar: context.calendar)
        let store = try StoreLocation.openForReading(arguments, context)
        let workouts = try store.workouts(matching: filter)
        if arguments.has("json") {
            context.output.line(
                JSONValue.object(["workouts": .array(workouts.map { WorkoutJSON.listing($0, timeZone: context.timeZone) })]).serialized)
            return .success
        }
        guard !workouts.isEmpty else {
            context.output.line("No workouts in \(store.path)" + (filter == WorkoutFilter() ? "." : " match."))
            return .success
        }
        // Whose each workout is, once they are not all the box's own profile's and no athlete is named.
        let athleteWidth =
            filter.athlete == nil && workouts.contains { $0.identity.athlete != nil }
            ? workouts.reduce("Athlete".count) { max($0, $1.identity.athlete?.rawValue.count ?? 0) } : nil
        func athlete(_ text: String) -> String {
            athleteWidth.map { "  " + text.padding(toLength: $0, withPad: " ", startingAt: 0) } ?? ""
        }
        // Local times with their offset (`2026-11-02 17:30 UTC`, `... -05:00`), as wide as the widest.
        let starts = workouts.map { context.localTime($0.startDate) }
        let startWidth = starts.map(\.count).max() ?? 0
        context.output.line(
            "  ID  \("Start".padding(toLength: startWidth, withPad: " ", startingAt: 0))  Activity     Duration    Active  Avg HR  Avg W    NP"
                + "\(athlete("Athlete"))  Bridge")
        for (w, start) in zip(workouts, starts) {
            let head = "\(String(w.id.rawValue).leftPadded(4))  \(start.padding(toLength: startWidth, withPad: " ", startingAt: 0))  "
                + w.activityType.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            guard let duration = w.duration, let active = w.activeDuration else {
                let until = w.recordedUntil.map(\.clockText) ?? "?"
                if let recording = w.recording {
                    let process = recording.processID.map { " (process \($0))" } ?? ""
                    context.output.line(head + "  recording now on bridge \(w.identity.bridge)\(process): \(until) so far")
                } else {
                    context.output.line(
                        head + "  unfinished on bridge \(w.identity.bridge): recorded \(until); run 'sensorbridge workouts recover'")
                }
                continue
            }
            func figure(_ value: Double?, _ width: Int) -> String { (value.map(WorkoutSummary.whole) ?? "-").leftPadded(width) }
            context.output.line(
                head + duration.clockText.leftPadded(10) + active.clockText.leftPadded(10)
                    + figure(w.averageHeartRate, 8) + figure(w.averagePower, 7) + figure(w.normalizedPower, 6)
                    + athlete(w.identity.athlete?.rawValue ?? "-") + "  \(w.identity.bridge)")
        }
        if let type = workouts.lazy.compactMap(\.figuresOf).first {
            context.output.line("A multisport workout's figures are those of its \(type.rawValue) alone.")
        }
        return .success
    }

    /// `--from`, `--to` (days in `calendar`, both included), `--activity` and whose.
    static func filter(_ arguments: CommandArguments, calendar: Calendar) throws -> WorkoutFilter {
        var filter = try arguments.requestValues.workoutFilter(calendar: calendar)
        filter.athlete = try AthleteOption.workoutsName(arguments)
        return filter
    }

    // MARK: show

    static let showHelp = """
        Usage: sensorbridge workouts show ID|latest [--json] [--events] [--store PATH]

        Shows a stored workout as 'sensorbridge replay' does: its figures, training load (TSS, IF,
        hrTSS, TRIMP and an intensity class; see 'sensorbridge workouts load --help'), a table of
        its laps when it has several, and time in zone; or the same JSON as 'replay --json' with
        the workout's "id" first.

        Options:
          --json                     one JSON object instead of the summary
          --events                   with --json, also every zone update
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts show latest
          sensorbridge workouts show 12 --json
        """

    static func show(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts show", options: [StoreLocation.option], flags: ["json", "events"])
        if arguments.has("help") {
            context.output.line(showHelp)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        guard let which = arguments.positionals.first else {
            throw UsageError("give the workout: an id from 'sensorbridge workouts list', or latest")
        }
        if arguments.has("events") && !arguments.has("json") {
            throw UsageError("--events adds zone updates to the JSON output; give it with --json")
        }
        let requested = which == "latest" ? nil : try workoutID(which)
        let store = try StoreLocation.openForReading(arguments, context)
        guard let id = try requested?.id(in: store) ?? store.latestWorkoutID() else {
            context.errors.line("sensorbridge workouts show: there are no finished workouts in \(store.path) yet")
            return .failure
        }
        let workout = try store.workout(id)
        let identity = try store.identity(of: id)
        let now = try store.profileNow(of: identity.athlete)
        if arguments.has("json") {
            context.output.line(
                WorkoutJSON.object(workout, id: id, identity: identity, zoneUpdates: arguments.has("events"), profileNow: now,
                    timeZone: context.timeZone)
                    .serialized)
        } else {
            context.output.line(
                "Workout \(id) (\(identity.uuidText), recorded by bridge \(identity.bridge)"
                    + (identity.athlete.map { " for \($0)" } ?? "") + ")")
            context.output.write(WorkoutSummary.text(workout, profileNow: now, timeZone: context.timeZone))
        }
        return .success
    }

    /// A workout as the command line names it: its id in this store, or its UUID (the same on
    /// every store it is copied to).
    enum WorkoutReference: Equatable {
        case id(WorkoutID)
        case uuid(UUID)

        /// The workout's id in `store`.
        ///
        /// - Throws: `WorkoutStoreError.uuidNotFound` for a UUID no workout there has.
        func id(in store: WorkoutStore) throws -> WorkoutID {
            switch self {
            case .id(let id): return id
            case .uuid(let uuid):
                guard let id = try store.workoutID(uuid: uuid) else { throw WorkoutStoreError.uuidNotFound(uuid) }
                return id
            }
        }
    }

    static func workoutID(_ text: String) throws(UsageError) -> WorkoutReference {
        if let id = WorkoutID(text) { return .id(id) }
        if text.count == 36, let uuid = UUID(uuidString: text) { return .uuid(uuid) }
        throw UsageError("'\(text)' is not a workout id; give a number from 'sensorbridge workouts list', or a workout's UUID")
    }

    // MARK: delete

    static let deleteHelp = """
        Usage: sensorbridge workouts delete ID [--yes] [--store PATH]

        Deletes a stored workout with its samples, events and zone groups. There is no undo. On a
        terminal it asks first ("Delete workout 12 (2026-11-30 18:02 +01:00, cycling, 1:02:11)? [y/N]");
        from a script or a pipe (standard input not a terminal) it deletes without asking. Its id
        is never given to another workout.

        Options:
          -y, --yes                  delete without asking
        \(StoreLocation.help)

        Example:
          sensorbridge workouts delete 12
        """

    static func delete(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts delete", options: [StoreLocation.option], flags: ["yes"], shortFlags: ["-y": "yes"])
        if arguments.has("help") {
            context.output.line(deleteHelp)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        guard let text = arguments.positionals.first else {
            throw UsageError("give the id of the workout to delete, from 'sensorbridge workouts list'")
        }
        let reference = try workoutID(text)
        let store = try StoreLocation.open(arguments, context, noteUnfinished: false)
        let id = try reference.id(in: store)
        // A workout that does not exist is not asked about: deleteWorkout says so.
        if !arguments.has("yes"), context.inputIsTerminal,
            let workout = try store.workouts(matching: WorkoutFilter()).first(where: { $0.id == id })
        {
            let what = [
                context.localTime(workout.startDate), workout.activityType.rawValue,
                workout.duration?.clockText ?? "unfinished",
            ]
            guard context.confirm("Delete workout \(id) (\(what.joined(separator: ", ")))? [y/N] ") else {
                context.errors.line("sensorbridge workouts delete: workout \(id) kept; nothing was deleted")
                return .failure
            }
        }
        try store.deleteWorkout(id)
        context.output.line("Deleted workout \(id).")
        return .success
    }

    // MARK: recover

    static let recoverHelp = """
        Usage: sensorbridge workouts recover [ID] [--discard] [--store PATH]

        Finds workouts whose recording stopped before it finished (a crash, a power cut, kill -9)
        and finishes each from what was saved: its samples and events up to the last journal
        write (at most about a second before it stopped), with statistics and zone groups
        computed again from the raw samples in the zones, pauses and holds of the recording.
        A recording still running in another sensorbridge is left alone.

        Options:
          ID                         only this workout
          --discard                  delete the interrupted workouts instead
        \(StoreLocation.help)

        Examples:
          sensorbridge workouts recover
          sensorbridge workouts recover 7 --discard
        """

    static func recover(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "workouts recover", options: [StoreLocation.option], flags: ["discard"])
        if arguments.has("help") {
            context.output.line(recoverHelp)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        let reference = try arguments.positionals.first.map { text throws(UsageError) in try workoutID(text) }
        let target = try StoreLocation.open(arguments, context, noteUnfinished: false)
        // A shared store's recordings are journaled, and interrupted, in this box's own store:
        // recovered there, then copied.
        guard let store = try StoreLocation.journal(of: target, context) else {
            context.output.line("No interrupted recordings in \(try StoreLocation.localPath(context)).")
            return .success
        }
        let only = try reference?.id(in: store)
        let unfinished = try store.unfinishedWorkouts().filter { only == nil || $0.id == only }
        if let only, unfinished.isEmpty {
            _ = try store.timeline(of: only)  // .notFound for an id that does not exist
            throw WorkoutStoreError.alreadyFinished(only)
        }
        guard !unfinished.isEmpty else {
            context.output.line("No interrupted recordings in \(store.path).")
            return .success
        }
        var status = ExitStatus.success
        for workout in unfinished {
            let what = "workout \(workout.id) (\(workout.activityType.rawValue), \(context.localTime(workout.startDate)))"
            if workout.isRecording {
                context.output.line("Left \(what) alone: a running sensorbridge is recording it.")
            } else if arguments.has("discard") {
                try store.deleteWorkout(workout.id)
                context.output.line("Discarded \(what).")
            } else {
                let recovered = try store.recoverWorkout(workout.id)
                context.output.line(
                    "Recovered \(what): \(recovered.duration.clockText), \(recovered.samples.count) samples.")
                guard target !== store else { continue }
                do {
                    let copied = try target.copyWorkout(workout.id, from: store)
                    context.output.line("Copied it to \(target.path)" + (copied.map { " as workout \($0)." } ?? " (it was there already)."))
                } catch {
                    context.errors.line(
                        "sensorbridge workouts recover: could not copy workout \(workout.id) to \(target.path): \(error.reason); it is "
                            + "kept in \(store.path): run 'sensorbridge sync --to URL' when the server is back")
                    status = .failure
                }
            }
        }
        return status
    }
}
