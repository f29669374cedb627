import BlueZ
import Captures
import Foundation
import SensorCore
import Synchronization
import Workouts

/// `sensorbridge record`: live sensors through BlueZ into a zoned workout.
enum RecordCommand {
    static let help = """
        Usage: sensorbridge record --hr ADDRESS|NAME --power ADDRESS|NAME [options]

        Connects to a heart-rate strap and/or a power meter through BlueZ, records until
        --duration runs out or Ctrl-C (SIGINT) or SIGTERM, and prints the zoned workout. A
        sensor that drops out is reconnected as soon as it advertises again (discovery runs
        while it is lost); the gap is recorded as sensor lost/regained events. Give one
        sensor or both; names and addresses are the ones 'sensorbridge scan' lists.

        Options:
          --hr ADDRESS|NAME          the heart-rate strap
          --power ADDRESS|NAME       the power meter
          --adapter hciN             the Bluetooth adapter (default: the first)
          --duration SECONDS         stop after this long (default: until Ctrl-C)
          --trace FILE.jsonl         also write everything received as a trace for 'replay' (as it
                                     arrives; a file that exists is replaced when the recording ends)
          --acquire-notify           read notifications through BlueZ's AcquireNotify socket where a
                                     characteristic offers it (fewer D-Bus messages); StartNotify otherwise
          --activity, --hr-zones, --power-zones, --age, --birth-date, --resting-hr, --max-hr,
          --ftp, --power-model, --json, --events, --save, --store: as for 'sensorbridge replay'
        \\(StoreLocation.help)

        On a terminal, standard error shows a live dashboard redrawn in place: heart rate,
        power, 3 s power, cadence, the current zone of each (highlighted, with the time in it),
        time-in-zone bars, each sensor's link and battery, and a bell when a zone changes.
        Otherwise progress (connections, battery, a line every 10 s) goes to standard error.

        Example:
          sensorbridge record --hr HRM-Pro --power E8:FE:6E:91:9F:16 --ftp 250 --save
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "record", options: WorkoutSetup.options.union(["hr", "power", "adapter", "duration", "trace"]),
            flags: WorkoutSetup.flags.union(["acquire-notify"]))
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        let queries = [("hr", arguments["hr"]), ("power", arguments["power"])].compactMap { key, query in
            query.map { (key, $0) }
        }
        guard !queries.isEmpty else {
            throw UsageError("give the sensors to record: --hr ADDRESS|NAME and/or --power ADDRESS|NAME (see 'sensorbridge scan')")
        }
        let duration = try arguments.number("duration", in: 0.001...86_400 * 7).map { Duration.milliseconds(Int64($0 * 1000)) }
        var setup = try WorkoutSetup(arguments, context, command: "record")

        let client = try BlueZClient(environment: context.environment)
        defer { client.bus.close() }
        let adapter = try client.adapter(arguments["adapter"])
        let devices = try queries.map { key, query throws(BlueZError) in
            SensorRequest(key: key, device: try find(query, client: client, adapter: adapter))
        }
        let sensorIDs = SensorID.numbering(devices.map(\.key))
        let sensorNames = Dictionary(uniqueKeysWithValues: sensorIDs.map { ($1, $0) })
        let displayNames = Dictionary(uniqueKeysWithValues: devices.map { ($0.key, $0.device.name ?? $0.device.address) })

        let start = Date()
        // A new trace file is written in place, line by line, so that a crash loses nothing; one
        // that exists is replaced when the recording ends (until then it is beside it).
        var traceFile: OutputFile?
        if let path = arguments["trace"] {
            let header = TraceHeader(
                start: start,
                devices: Dictionary(uniqueKeysWithValues: devices.map {
                    ($0.key, TraceDevice(name: $0.device.name, address: $0.device.address))
                }))
            do {
                let file = try OutputFile(URL(fileURLWithPath: path), mode: .stream)
                try file.write(Array((TraceWriter.headerLine(header) + "\n").utf8))
                traceFile = file
            } catch {
                throw UsageError("--trace: \(error)")
            }
        }

        let (builder, recorder) = try setup.begin(start: start, sensors: sensorNames, context)
        let anchor = ContinuousClock.now
        let control = context.recordingControl ?? RecordingControl()
        let errors = context.errors
        let progress = Progress(output: errors)
        let dashboard = TerminalDashboard.forTerminal(
            context, anchor: anchor, sensors: devices.map { ($0.key, displayNames[$0.key]!) },
            configurations: WorkoutStateMachine.zonedTypes.compactMap(builder.zoneConfiguration(for:)))
        let report: @Sendable (String) -> Void = { message in
            if let dashboard { dashboard.show(message) } else { progress.line("sensorbridge record: " + message) }
        }
        let stored = recorder.map {
            WorkoutStoreJournal(recorder: $0, sensorNames: sensorNames, report: report) as any WorkoutSessionJournal
        }
        let journal = context.recordingControl?.latencyProbe.map { $0.journal(wrapping: stored) } ?? stored
        let session = WorkoutSession(builder: builder, now: { ContinuousClock.now - anchor }, journal: journal)
        let notificationRing = session.makeRing()
        let controlRing = session.makeRing(capacity: 4)
        let source = LiveSensorSource(
            anchor: anchor, sensorIDs: sensorIDs, notificationRing: notificationRing, control: control,
            trace: traceFile, report: report, observe: dashboard?.observer)
        let links = SensorLinks(
            client: client, sensors: devices, acquireNotify: arguments.has("acquire-notify"), onNotification: source.received,
            onEvent: {
                source.linkEvent($0, names: displayNames)
                dashboard?.linkEvent($0)
            })
        let signals = context.recordingControl == nil ? SignalStop(control) : nil
        // Without the system bus no sensor can come back: the workout ends and is saved.
        client.bus.whenLost {
            report("the system bus connection was lost (dbus-daemon stopped); finishing the workout")
            control.stop()
        }

        dashboard?.start(outputs: builder.outputs)
        let result = session.run(producers: [{
            links.start()
            let deadline = duration.map { ContinuousClock.now + $0 }
            while true {
                let left = deadline.map { $0 - .now }
                if control.wait(timeout: left.map { min($0, .seconds(10)) } ?? .seconds(10)) { break }
                if let deadline, ContinuousClock.now >= deadline { break }
                if dashboard != nil { continue }
                progress.line(
                    "sensorbridge record: \((ContinuousClock.now - anchor).components.seconds) s, "
                        + "\(control.notificationsReceived) notifications")
            }
            // No notification is pushed after `stop` returns, so `end` comes after every one of them.
            links.stop()
            let end = ContinuousClock.now - anchor
            source.writeEnd(at: end)
            controlRing.push(.control(SessionControl(.end, at: end)))
        }])
        dashboard?.stop()
        signals?.cancel()
        for warning in session.warnings { context.errors.line("sensorbridge record: \(warning)") }
        return try setup.finish(result, recorder: recorder, source: source.completeTrace, context)
    }

    /// A known sensor, else one found by a short discovery.
    static func find(_ query: String, client: BlueZClient, adapter: String) throws(BlueZError) -> DiscoveredSensor {
        if let known = try? client.sensor(query, adapter: adapter) { return known }
        _ = try client.discover(adapter: adapter, duration: .seconds(5))
        return try client.sensor(query, adapter: adapter)
    }
}

/// Progress lines on standard error, written whole from any thread.
///
/// `@unchecked Sendable`: `output` is used only under `lock`, and the command does not write to
/// it elsewhere while the recording runs.
final class Progress: @unchecked Sendable {
    private let output: TextOutput
    private let lock = Mutex(())

    init(output: TextOutput) {
        self.output = output
    }

    func line(_ text: String) {
        lock.withLock { _ in
            output.line(text)
            output.flush()
        }
    }

    /// Replaces the terminal's current line with `text` (an empty text clears it).
    func overwrite(_ text: String) {
        lock.withLock { _ in
            output.write("\r\u{1B}[K" + text)
            output.flush()
        }
    }
}

/// SIGINT and SIGTERM stop the recording (which then finishes and saves) instead of killing the process.
final class SignalStop {
    private let sources: [any DispatchSourceSignal]

    init(_ control: RecordingControl) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { control.stop() }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) }
    }
}
