import BlueZ
import Captures
import Foundation
import HTTP
import Outputs
import Web
import SensorCore
import Session
import Synchronization
import Workouts

/// `sensorbridge record`: live sensors through BlueZ into a zoned workout.
enum RecordCommand {
    static let help = """
        Usage: sensorbridge record [--hr SENSOR] [--power SENSOR] [--cadence SENSOR] [--speed SENSOR] [options]

        Connects to a heart-rate strap, a power meter and/or a speed and cadence sensor through
        BlueZ, records until --duration runs out, 'q' on the dashboard, Ctrl-C (SIGINT) or
        SIGTERM, saves the zoned workout in the store and prints it. A sensor that drops out is
        reconnected as soon as it advertises again (discovery runs while it is lost); the gap is
        recorded as sensor lost/regained events. SENSOR is an address or a name that
        'sensorbridge scan' lists; one device may take two roles when it offers both (a power
        meter for --power and --cadence).

        Options:
          --hr SENSOR                the heart-rate strap (Heart Rate service, 180D)
          --power SENSOR             the power meter (Cycling Power, 1818)
          --cadence SENSOR           a cadence sensor (Cycling Speed and Cadence, 1816; or a power meter)
          --speed SENSOR             a speed sensor (1816; or a power meter that measures the wheel)
          --adapter hciN             the Bluetooth adapter (default: the first)
          --duration SECONDS         stop after this long (default: until stopped)
          --no-save                  do not store the workout (it is stored by default: --save)
        \(WorkoutSetup.saveEmptyHelp)
          --trace FILE.jsonl         also write everything received as a trace for 'replay', as it
                                     arrives; an existing file is refused unless --force
          --force                    let --trace replace an existing file (when the recording ends)
          --auto-pause off|SECONDS   pause when nothing moves (0 W, no crank or wheel turning) for
                                     SECONDS and resume on pedalling (default: 3 when a power meter,
                                     cadence or speed sensor records a cycling workout; off otherwise)
          --auto-lap DURATION        a lap every DURATION of active time: 300, 90s, 5m, 1h (default: off)
        \(RelayOptions.help)
        \(LivePathOptions.help)
        \(WebOptions.help)
        \(MQTTOptions.help)
        \(WorkoutSetup.activitiesHelp)
        \(WorkoutSetup.zonePointsHelp)
        \(WorkoutSetup.raiseMaximumHelp)
        \(WorkoutSetup.planHelp)
          --activity, --hr-zones, --power-zones, --age, --birth-date, --resting-hr, --max-hr,
          --lthr, --hr-model, --ftp, --power-model, --sex, --weight, --json, --events, --store: as
                                     for 'sensorbridge replay'
          --target-hr-zone N[-M], --target-power-zone N[-M], --target-debounce SECONDS
                                     coach to target zones: the dashboard highlights the target
                                     line and rings the bell once when you have been out of it for
                                     the debounce time (default 10 s; never while paused)
        \(StoreLocation.help)
        \(WorkoutSetup.bridgeHelp)
        \(AthleteOption.help)

        On a terminal, standard error shows a live dashboard redrawn in place: heart rate and
        power (in big digits when the screen has room), 3 s and 10 s power, cadence, %FTP, the
        current zone of each in its colour with the time in it, lap and ride averages with NP,
        IF and kJ, the targets, time-in-zone bars (a line per quantity on a short screen), each
        sensor's state and battery, and messages (gone after 15 s). Keys: space pauses and
        resumes, 'l' marks a lap, 'n' begins the next activity (--activities), 'q' ends and saves. Otherwise progress (connections, battery,
        a line every 10 s) goes to standard error.

        Example:
          sensorbridge record --hr HRM-Pro --power E8:FE:6E:91:9F:16 --ftp 250
        """

    /// The sensor roles `record` takes: the option, the services a device must offer for it (any
    /// of them), and the role's words for messages.
    typealias Role = (option: String, services: [UInt16], what: String)

    static let roles: [Role] = [
        ("hr", [0x180D], "heart rate"), ("power", [0x1818], "cycling power"),
        ("cadence", [0x1816, 0x1818], "cadence"), ("speed", [0x1816, 0x1818], "speed"),
    ]

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "record",
            options: WorkoutSetup.options.union(WorkoutSetup.liveOptions).union(roles.map(\.option)).union(["adapter", "duration", "trace"]).union(RelayOptions.options)
                .union(LivePathOptions.options).union(WebOptions.options).union(MQTTOptions.options),
            flags: WorkoutSetup.flags.union(WorkoutSetup.liveFlags).union(["no-save", "force"]).union(RelayOptions.flags).union(LivePathOptions.flags).union(MQTTOptions.flags).union(WebOptions.flags))
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        var queries = roles.compactMap { role in arguments[role.option].map { (role, $0) } }
        if queries.isEmpty, arguments[AthleteOption.option] == nil {
            throw UsageError(
                "give the sensors to record: --hr, --power, --cadence and/or --speed, each with an address or name "
                    + "(see 'sensorbridge scan'), or --athlete NAME for the sensors assigned to them")
        }
        let livePath = try LivePathOptions(arguments)
        let web = try WebOptions(arguments)
        let mqtt = try MQTTOptions(arguments)
        let duration = try arguments.seconds("duration", in: 0.001...86_400 * 7)
        let relayOptions = try RelayOptions(arguments)
        if let path = arguments["trace"], !arguments.has("force"), FileManager.default.fileExists(atPath: path) {
            throw UsageError("--trace \(path) exists; give --force to replace it, or another file name")
        }
        var setup = try WorkoutSetup(arguments, context, command: "record", alwaysSave: !arguments.has("no-save"))
        if queries.isEmpty, let athlete = setup.athlete {
            // The athlete's assigned sensors, when none is given.
            queries = athlete.assignedSensors.compactMap { sensor in
                roles.first { $0.option == sensor.key }.map { ($0, sensor.address) }
            }
            guard !queries.isEmpty else {
                throw UsageError(
                    "\(athlete.name) has no sensors assigned: give --hr and/or --power, or assign them with "
                        + "'sensorbridge athletes assign \(athlete.name) --hr ADDRESS --power ADDRESS'")
            }
        }

        let client = try BlueZClient(environment: context.environment)
        defer { client.bus.close() }
        livePath.apply(to: client.bus)
        let adapter = try client.adapter(arguments["adapter"])
        let devices = try sensorRequests(queries, client: client, adapter: adapter)
        setup.applyAutoPause(default: devices.contains { $0.key != "hr" })
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
        let model = setup.dashboardModel(sensors: devices.map { ($0.key, displayNames[$0.key]!) }, sensorKeys: sensorNames)
        let dashboard = TerminalDashboard.forTerminal(context, anchor: anchor, model: model)
        let report: @Sendable (String) -> Void = { message in
            if let dashboard { dashboard.show(message) } else { progress.line("sensorbridge record: " + message) }
        }
        let liveFeed = LiveFeed()
        // The relay: checked and registered before anything records, so a box that cannot relay says why first.
        let wiring: LiveWiring
        do {
            wiring = try LiveWiring(relayOptions, client: client, adapter: adapter, keys: devices.map(\.key), log: report) { status in
                dashboard?.showRelay(status)
                liveFeed.showRelay(status)
            }
        } catch {
            try? recorder?.discard()
            throw error
        }
        defer { wiring.relay?.stop() }
        let publisher = mqtt.start(timeZone: context.timeZone, log: report)
        defer { publisher?.stop() }
        let stored = recorder.map {
            WorkoutStoreJournal(recorder: $0, sensorNames: sensorNames, report: report) as any WorkoutSessionJournal
        }
        let journal = context.recordingControl?.latencyProbe.map { $0.journal(wrapping: stored) } ?? stored
        let session = WorkoutSession(
            builder: builder, now: { ContinuousClock.now - anchor }, latencyBudget: livePath.latencyBudget,
            followsProducerCPU: true, journal: journal)
        let source = LiveSensorSource(
            anchor: anchor, sensorIDs: sensorIDs, notificationRing: session.makeRing(), control: control, trace: traceFile,
            report: report)
        // The notifications of one turn of the D-Bus thread are published together.
        client.bus.afterEachTurn { source.publish() }
        let controls = session.makeControls(
            clock: { ContinuousClock.now - anchor }, end: { control.stop() }, activities: setup.recording.plan.activities,
            onControl: { source.write($0) })
        let links = wiring.links(
            client: client, sensors: devices, livePath: livePath, log: report, deliver: { source.received($0) },
            follow: { event in
                source.linkEvent(event, names: displayNames)
                dashboard?.linkEvent(event)
                liveFeed.linkEvent(event)
            })
        let signals = context.recordingControl == nil ? SignalHandlers.stopping(control) : nil
        // Without the system bus no sensor can come back: the workout ends and is saved.
        client.bus.whenLost {
            report("the system bus connection was lost (dbus-daemon stopped); finishing the workout")
            control.stop()
        }

        dashboard?.start(session.subscribe(), controls: controls)
        // The web page and the API: live while the workout records, stopped when it is saved.
        if web != nil {
            liveFeed.follow(session, controls: controls, anchor: anchor, model: model, start: start, timeZone: context.timeZone)
        }
        let server = try LiveWiring.serveWeb(web, arguments, context, live: liveFeed, log: report)
        defer {
            liveFeed.closeAll()
            server?.stop()
        }
        var progressLine: (@Sendable (Duration) -> Void)?
        if dashboard == nil {
            progressLine = { elapsed in
                progress.line("sensorbridge record: \(elapsed.components.seconds) s, \(control.notificationsReceived) notifications")
            }
        }
        let live = LiveSensors(links: links, source: source, control: control, duration: duration, progress: progressLine)
        publisher?.follow(session, start: start, sensors: sensorNames, steps: setup.stepCoach)
        let result = session.run(sources: [live])
        dashboard?.stop()
        signals?.cancel()
        for warning in session.warnings { context.errors.line("sensorbridge record: \(warning)") }
        let (status, outcome) = try setup.finish(result, recorder: recorder, source: source.completeTrace, context)
        if case .success(let workout) = result {
            publisher?.finished(workout, id: outcome.savedID, identity: outcome.savedID.flatMap { _ in recorder?.identity })
        }
        return status
    }

    /// The sensors to keep connected, one per device: each device found, and checked to offer a
    /// service of each role it is given for (`UsageError` naming the services it does offer); a
    /// device given for two roles is one sensor, keyed by its first role.
    static func sensorRequests(
        _ queries: [(role: Role, query: String)], client: BlueZClient,
        adapter: String
    ) throws -> [SensorRequest] {
        var requests: [SensorRequest] = []
        for (role, query) in queries {
            let device = try client.findSensor(query, adapter: adapter)
            guard role.services.contains(where: device.services.contains) else {
                let offered = device.services.map(serviceName).joined(separator: ", ")
                throw UsageError(
                    "--\(role.option) \(query): \(device.name ?? device.address) offers no \(role.what) (it offers "
                        + "\(offered.isEmpty ? "no service it advertises" : offered)); give a sensor that does "
                        + "(see 'sensorbridge scan')")
            }
            if !requests.contains(where: { $0.device.path == device.path }) {
                requests.append(SensorRequest(key: role.option, device: device))
            }
        }
        return requests
    }

    /// `heart rate (180D)`, `cycling power (1818)`, ... for messages (the names `scan` shows).
    static func serviceName(_ uuid: UInt16) -> String {
        ScanCommand.serviceNames[uuid].map { "\($0) (\(BlueZUUID.number(uuid)))" } ?? BlueZUUID.number(uuid)
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

/// Signals handled on a dispatch queue instead of by their default action, until `cancel`.
final class SignalHandlers {
    private let sources: [any DispatchSourceSignal]

    init(_ handlers: [(Int32, @Sendable () -> Void)]) {
        sources = handlers.map { number, handler in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    /// SIGINT and SIGTERM stop the recording (which then finishes and saves) instead of killing
    /// the process.
    static func stopping(_ control: RecordingControl) -> SignalHandlers {
        SignalHandlers([SIGINT, SIGTERM].map { ($0, { control.stop() }) })
    }

    /// Stops handling the signals; they get their default action back, or stay ignored.
    func cancel(ignoring: Bool = false) {
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), ignoring ? SIG_IGN : SIG_DFL)
        }
    }
}
