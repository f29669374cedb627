import Captures
import Foundation
import Outputs
import SensorCore
import Session
import Workouts

/// `sensorbridge replay FILE`: a recorded trace through the whole live pipeline into a zoned workout.
enum ReplayCommand {
    static let help = """
        Usage: sensorbridge replay FILE [options]

        Replays a recording through the decoders, the sample ring and the live workout builder,
        and prints the zoned workout. FILE is a JSONL trace (Captures/*.jsonl, or one written by
        'record --trace') or a btsnoop capture ('btmon -w', Android's btsnoop_hci.log,
        'sensorbridge capture'), recognised by its first bytes. Zones and profile come from the
        workout store ('sensorbridge zones set', 'sensorbridge profile set') when it exists; the
        flags below override them.

        Options:
          --pace fast|realtime|N     fast (default), the recording's pace, or N times it (0.001 to
                                     1000000; how far it is shows on standard error when that is
                                     a terminal)
          --activity TYPE            the activity when the trace names none: cycling (default),
                                     running, walking, hiking, rowing, swimming, other
          --hr-zones A,B,C,D         heart-rate zone boundaries in bpm (2 to 8, increasing, from 30
                                     to 250, at least 1 apart): custom zones
          --power-zones A,B,...      power zone boundaries in W (above 0, at most 3000, at least 1
                                     apart): custom zones
          --age N | --birth-date YYYY-MM-DD
          --resting-hr N --max-hr N  profile for the system heart-rate zones
          --lthr N                   lactate-threshold heart rate in bpm, for --hr-model lthr
          --hr-model reserve|max|lthr  the system heart-rate model (see 'sensorbridge zones defaults --help')
          --ftp N                    functional threshold power in W for the system power zones
          --power-model 6|7          six system power zones (default) or Coggan's seven
          --sex female|male, --weight KG
                                     for calories from heart rate and W/kg (as 'profile set')
          --json                     one JSON object instead of the summary
          --events                   with --json, also every zone update, whole (zones left and
                                     entered with their durations, the running zone group)
          --auto-pause SECONDS       pause after SECONDS with nothing moving, resume on movement
                                     (default: off; the trace's own pauses are made in any case)
          --auto-lap DURATION        a lap every DURATION of active time: 300, 90s, 5m, 1h
          --target-hr-zone N[-M], --target-power-zone N[-M]
                                     target zones (1-based): the summary, the stored workout and
                                     the exports give the share of active time in them
          --target-debounce SECONDS  how long out of a target before the alert (1 to 600; default 10)
        \(WorkoutSetup.planHelp)
          --save                     store the workout and print its id; samples are journaled
                                     every half second as it replays, so an interrupted replay
                                     can be finished with 'sensorbridge workouts recover'
        \(WorkoutSetup.saveEmptyHelp)
        \(StoreLocation.help)
        \(WorkoutSetup.bridgeHelp)
        \(AthleteOption.help)
        \(HandleMapArgument.help)

        A btsnoop capture's devices are named by what they are: 'power' for a peer with the
        Cycling Power service, 'hr' for Heart Rate, 'csc' for Cycling Speed and Cadence ('hr2'
        for a second strap), else its address. A disconnection is a sensor dropout, a
        reconnection its return.

        Examples:
          sensorbridge replay Captures/ride-60min-hr-power.jsonl --age 40 --resting-hr 50 --ftp 250
          sensorbridge replay Captures/run-30min-hr.jsonl --hr-zones 120,140,155,170 --json
          sensorbridge replay Captures/ride-60min-hr-power.jsonl --save --store /tmp/rides.sqlite
          sensorbridge replay btsnoop_hci.log --handle 0x0012=2a37 --age 40 --resting-hr 50
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "replay", options: WorkoutSetup.options.union(["pace", HandleMapArgument.option]), flags: WorkoutSetup.flags)
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        guard let path = arguments.positionals.first else {
            throw UsageError("give the trace to replay, for example: sensorbridge replay Captures/run-30min-hr.jsonl")
        }
        let pace = try arguments["pace"].flatMap(ReplayPace.init(named:))
            ?? arguments.number("pace", in: ReplayPace.factors, expecting: "fast, realtime or a factor such as 4").map(ReplayPace.speed)
            ?? .fast
        var setup = try WorkoutSetup(arguments, context, command: "replay")
        let handles = try HandleMapArgument.parse(arguments)
        let reader: any TraceRecordSource
        do {
            reader = try CaptureFile.openTrace(URL(fileURLWithPath: path), assumedHandles: handles)
        } catch {
            // A file that cannot be read, or is neither kind, is named by the message itself.
            if case .file = error {
                context.errors.line("sensorbridge replay: \(error)")
            } else {
                context.errors.line("sensorbridge replay: \(path): \(error)")
            }
            return .failure
        }
        let capture = reader as? BtsnoopTraceReader
        if capture == nil, !handles.isEmpty {
            throw UsageError("--handle maps the handles of a btsnoop capture; \(path) is a JSONL trace")
        }
        // A paced replay takes as long as the ride: on a terminal, standard error shows how far it is.
        let showsProgress = pace != .fast && context.errorsAreTerminal
        let progress = Progress(output: context.errors)
        var report: (@Sendable (Duration) -> Void)?
        if showsProgress {
            report = { time in progress.overwrite("sensorbridge replay: \(time.clockText) replayed") }
        }
        let replayer = TraceReplayer(reader: reader, pace: pace, progress: report)
        let (builder, recorder) = try setup.begin(start: reader.header.start, sensors: replayer.sensorNames, context)
        let started = ContinuousClock.now
        let journal = recorder.map {
            WorkoutStoreJournal(recorder: $0, sensorNames: replayer.sensorNames) { progress.line("sensorbridge replay: " + $0) }
        }
        let session: WorkoutSession
        if case .speed(let factor) = pace {
            session = WorkoutSession(builder: builder, now: { (ContinuousClock.now - started) * factor }, journal: journal)
        } else {
            session = WorkoutSession(builder: builder, journal: journal)
        }
        let result = session.run(sources: [replayer], started: started)
        if showsProgress { progress.overwrite("") }
        if let failure = replayer.failure {
            try? recorder?.discard()
            context.errors.line("sensorbridge replay: \(path): \(failure)")
            return .failure
        }
        if let cut = (reader as? TraceReader)?.skippedLastLine { context.errors.line("sensorbridge replay: \(path): \(cut)") }
        for warning in session.warnings { context.errors.line("sensorbridge replay: \(path): \(warning)") }
        if let skipped = capture?.statistics.summary { context.errors.line("sensorbridge replay: \(path): skipped \(skipped)") }
        return try setup.finish(result, recorder: recorder, source: path, context).status
    }
}
