import BlueZ
import Foundation
import Outputs
import Web
import Recording
import SampleRing
import SensorCore
import Session
import Synchronization
import Workouts
import Zones
import WorkoutStore

/// `sensorbridge serve`: the headless recorder for a box beside the trainer. It keeps the sensors
/// connected, records a workout whenever they send, and saves it once they have been quiet for
/// the idle timeout; BlueZ, adapters and sensors may come and go meanwhile.
enum ServeCommand {
    static let help = """
        Usage: sensorbridge serve [--hr ADDRESS|NAME] [--power ADDRESS|NAME] [options]

        Runs without a terminal (as a systemd service, see udev/README.md): connects to the
        sensors and waits. A workout starts when they begin sending (the first decoded heart-rate,
        power or cadence measurement) and ends at the last measurement once none has arrived for
        --idle-timeout seconds; it is saved to the store, and serve waits for the next one.
        Its sensors: those of --hr and --power; else those assigned to --athlete; else, when
        athletes have sensors assigned ('sensorbridge athletes'), every such athlete at once, a
        workout each with their own zones, and the paired sensors no athlete has with your own
        profile; else every paired (or trusted) device that offers heart rate, cycling power or
        speed and cadence. Pair them first with 'sensorbridge pair', and restart serve after
        pairing another. BlueZ restarting, an adapter unplugged and plugged in again
        and sensors dropping out are waited for and reconnected. Workouts interrupted by a crash
        or power cut are recovered when serve starts.

        During a workout SIGUSR1 marks a lap, SIGUSR2 pauses or resumes, and SIGRTMIN begins the
        next activity of --activities ('systemctl kill -s SIGRTMIN sensorbridge'); with several
        athletes at once they are ignored (they could not say whose).

        With several athletes at once, --http serves a class: /class, a tile per rider who is
        recording (name, heart rate, % of maximum, power, the zone's colour), each rider's own live
        page at /athletes/NAME/live, and /api/class (docs/HTTP.md); --mqtt publishes each rider's
        topics under PREFIX/BRIDGE-ID/ATHLETE/ with a Home Assistant device each; --relay offers
        one rider's sensors, so it needs --athlete NAME.
        SIGTERM or SIGINT (Ctrl-C) finishes and saves a workout in progress, then exits with
        status 0. Losing the system bus itself (dbus-daemon stopped) saves it too and exits with
        status 1, for systemd to start serve again. Plain lines go to standard error (the journal, under systemd): one per state
        change (sensor connected or lost, workout started) and one per saved workout.

        Options:
          --hr ADDRESS|NAME          the heart-rate strap (default: the paired ones)
          --power ADDRESS|NAME       the power meter (default: the paired ones)
          --idle-timeout SECONDS     end a workout after this long without data (default 300)
          --min-duration SECONDS     discard shorter workouts, such as a strap picked up and put
                                     away (default 60; 0 keeps every one with a value)
        \(WorkoutSetup.saveEmptyHelp)
          --adapter hciN             the Bluetooth adapter (default: the first)
        \(LivePathOptions.help)
        \(WebOptions.help)
        \(MQTTOptions.help)
        \(RelayOptions.help)
          --json                     also print each saved workout on standard output, one JSON
                                     object a line (as 'sensorbridge workouts show ID --json')
        \(WorkoutSetup.activitiesHelp)
        \(WorkoutSetup.zonePointsHelp)
        \(WorkoutSetup.raiseMaximumHelp)
        \(WorkoutSetup.planHelp)
                                     Under serve every workout rides it; ATHLETE=FILE,... gives
                                     athletes plans of their own (the others ride none)
          --activity, --hr-zones, --power-zones, --age, --birth-date, --resting-hr, --max-hr,
          --lthr, --hr-model, --ftp, --power-model, --sex, --weight, --auto-pause, --auto-lap, --target-hr-zone,
          --target-power-zone, --target-debounce: as for 'sensorbridge replay' (the stored profile
          and zones otherwise, read again for every workout)
        \(StoreLocation.help)
        \(WorkoutSetup.bridgeHelp)
        \(AthleteOption.help)

        Examples:
          sensorbridge serve
          sensorbridge serve --hr HRM-Pro --power E8:FE:6E:91:9F:16 --idle-timeout 600
          sensorbridge serve --store /var/lib/sensorbridge/workouts.sqlite --ftp 250
        """

    /// SIGRTMIN: begins the next activity (`systemctl kill -s SIGRTMIN`).
    static var nextActivitySignal: Int32 { __libc_current_sigrtmin() }

    static let options = WorkoutSetup.options.union(WorkoutSetup.liveOptions).union(["hr", "power", "adapter", "idle-timeout", "min-duration"])
        .union(LivePathOptions.options).union(WebOptions.options).union(MQTTOptions.options).union(RelayOptions.options)

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "serve", options: options,
            flags: Set(["json", WorkoutSetup.saveEmptyFlag]).union(WorkoutSetup.liveFlags).union(LivePathOptions.flags).union(MQTTOptions.flags).union(RelayOptions.flags).union(WebOptions.flags))
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        let idleTimeout = try arguments.seconds("idle-timeout", in: 0.1...86_400) ?? .seconds(300)
        let minimumDuration = try arguments.seconds("min-duration", in: 0...86_400) ?? .seconds(60)
        let livePath = try LivePathOptions(arguments)
        let web = try WebOptions(arguments)
        let mqtt = try MQTTOptions(arguments)
        let relayOptions = try RelayOptions(arguments)
        let progress = Progress(output: context.errors)
        let log: @Sendable (String) -> Void = { progress.line("sensorbridge serve: " + $0) }

        // Options and store are checked before anything waits; interrupted workouts are finished.
        let athletes: [AthleteRecord]
        do {
            let store = try StoreLocation.open(arguments, context, noteUnfinished: false)
            // A shared store's interrupted recordings are in this box's own store: recovered there,
            // then copied (what cannot be copied now waits there for 'sync').
            if let journal = try StoreLocation.journal(of: store, context) {
                for workout in try journal.unfinishedWorkouts() where !workout.isRecording {
                    let recovered = try journal.recoverWorkout(workout.id)
                    log("recovered workout \(workout.id), interrupted after \(recovered.duration.clockText)")
                    guard journal !== store else { continue }
                    do {
                        _ = try store.copyWorkout(workout.id, from: journal)
                    } catch {
                        log("could not copy it to \(store.path): \(error.reason); it waits in \(journal.path) for 'sensorbridge sync'")
                    }
                }
            }
            // Without --hr, --power or --athlete, every athlete with sensors assigned is recorded at once.
            let chosen = ["hr", "power", AthleteOption.option].contains { arguments[$0] != nil }
            athletes = chosen ? [] : try store.athletes().filter { !$0.sensors.isEmpty }
        }
        if !athletes.isEmpty, relayOptions.name != nil {
            throw UsageError(
                "serve records \(athletes.map(\.name.rawValue).joined(separator: ", ")) at once (athletes with sensors assigned); "
                    + "--relay offers one rider's sensors: give --athlete NAME to serve one athlete, or leave it out")
        }
        let setup = try logging(context, log) { try WorkoutSetup(arguments, $0, command: "serve", alwaysSave: true) }
        try ProfileValues.checkModels(
            setup.machine.preferences, arguments.requestValues, on: CalendarDate(localDayOf: Date(), in: context.timeZone))

        let control = context.recordingControl ?? RecordingControl()
        let signals = context.recordingControl == nil ? SignalHandlers.stopping(control) : nil
        if context.recordingControl == nil {
            // A lap or pause signal between workouts is ignored, not fatal (ControlSignals takes them during one).
            for number in [SIGUSR1, SIGUSR2, nextActivitySignal] { signal(number, SIG_IGN) }
        }
        // The web page and the API for the whole run; the live feed follows each workout in turn.
        // With several athletes, a class: a feed per athlete and one for the box's own sensors.
        let liveFeed = web != nil && athletes.isEmpty ? LiveFeed() : nil
        let riders = web != nil && !athletes.isEmpty ? ClassFeed(riders: [(nil, LiveFeed())] + athletes.map { ($0.name, LiveFeed()) }) : nil
        let server = try LiveWiring.serveWeb(web, arguments, context, live: liveFeed, riders: riders, log: log)
        defer {
            liveFeed?.closeAll()
            riders?.closeAll()
            for rider in riders?.riders ?? [] { rider.feed.closeAll() }
            server?.stop()
        }
        // Online from now until serve stops, across workouts.
        let publisher = mqtt.start(timeZone: context.timeZone, log: log)
        defer { publisher?.stop() }
        let routers = ServeRouters()
        // Waits out BlueZ and the sensors (`connect`); like every router it hears of a stop and of the bus lost.
        let waiting = routers.add(ServeRouter(idleTimeout: idleTimeout, log: log))
        Thread.detachNewThread {
            _ = control.wait(timeout: nil)
            routers.stopAll()
        }
        defer {
            signals?.cancel()
            control.stop()  // ends the thread above when serve returns for another reason
        }

        guard let (client, found) = try connect(arguments, athlete: setup.athlete, athletes: athletes, context, waiting, log)
        else { return .success }
        defer { client.bus.close() }
        // One lane per athlete served at once, else one; each router logs its athlete's name.
        let lanes = found.map { lane in
            ServeLane(
                athlete: lane.athlete, requests: lane.requests,
                router: routers.add(ServeRouter(idleTimeout: idleTimeout, log: ServeLane.log(log, lane.athlete))))
        }
        let laneOfKey = Dictionary(uniqueKeysWithValues: lanes.flatMap { lane in lane.requests.map { ($0.key, lane) } })
        client.bus.whenLost { routers.busLost() }
        client.bus.afterEachTurn { routers.publish() }
        livePath.apply(to: client.bus)
        for lane in lanes {
            lane.router.setNames(Dictionary(uniqueKeysWithValues: lane.displayNames.map { ($0.key, $0.name) }))
            ServeLane.log(log, lane.athlete)(
                "sensors: "
                    + lane.requests.map { "\($0.key) \($0.device.name ?? "?") (\($0.device.address))" }.joined(separator: ", "))
        }

        // The relay, for as long as serve runs, across workouts.
        let wiring = try LiveWiring(
            relayOptions, client: client, adapter: try client.adapter(arguments["adapter"]), keys: lanes.flatMap(\.requests).map(\.key),
            log: log
        ) { liveFeed?.showRelay($0) }
        defer { wiring.relay?.stop() }
        let links = wiring.links(
            client: client, sensors: lanes.flatMap(\.requests), livePath: livePath, log: log,
            deliver: { laneOfKey[$0.key]?.router.received($0) },
            follow: { event in
                laneOfKey[event.key]?.router.linkEvent(event)
                liveFeed?.linkEvent(event)
                // A class's rider hears of their own sensors' links (keyed NAME/hr) as the workout names them (hr).
                if let riders, let lane = laneOfKey[event.key] {
                    riders.feed(of: lane.athlete)?.linkEvent(event.rekeyed(ServeLane.role(event.key)))
                }
            })
        links.start()
        defer { links.stop() }
        // A class's riders publish under their own topics, on the bridge's connection.
        // (Stopped before the bridge's, which closes the connection.)
        let riderPublishers = athletes.isEmpty ? [] : lanes.compactMap { lane in lane.athlete.flatMap { publisher?.rider($0) } }
        defer { for rider in riderPublishers { rider.stop() } }
        let publishers = lanes.map { lane in riderPublishers.first { $0.topics.athlete == lane.athlete } ?? publisher }
        if lanes.count == 1 {
            try serve(
                lanes[0], arguments, context, control: control, idleTimeout: idleTimeout, minimumDuration: minimumDuration,
                latencyBudget: livePath.latencyBudget, live: liveFeed ?? riders?.feed(of: lanes[0].athlete), mqtt: publishers[0],
                signals: true, log: log)
        } else {
            try serveAtOnce(
                Array(zip(lanes, publishers)), arguments, context, routers: routers, control: control, idleTimeout: idleTimeout,
                minimumDuration: minimumDuration, latencyBudget: livePath.latencyBudget, riders: riders, log: log)
        }
        if waiting.isBusLost {
            log("the system bus connection was lost (dbus-daemon stopped); exiting with status 1 so that systemd starts serve again")
            return .failure
        }
        log("stopped")
        return .success
    }

    /// The BlueZ client and the sensors to keep connected, once BlueZ, the adapter and the sensors
    /// are there; nil when stopped while waiting for them. Only a refusal by the bus policy is an
    /// error: everything else is waited out, logged once.
    static func connect(
        _ arguments: CommandArguments, athlete: AthleteRecord?, athletes: [AthleteRecord], _ context: CommandContext,
        _ router: ServeRouter, _ log: @Sendable (String) -> Void
    ) throws(BlueZError) -> (BlueZClient, [(athlete: AthleteName?, requests: [SensorRequest])])? {
        var client: BlueZClient?
        var logged: String?
        while true {
            let problem: String
            do throws(BlueZError) {
                let bluez: BlueZClient
                if let client {
                    bluez = client
                } else {
                    bluez = try BlueZClient(environment: context.environment)
                }
                client = bluez
                let adapter = try bluez.adapter(arguments["adapter"])
                if !athletes.isEmpty {
                    let (lanes, unknown) = try athleteLanes(athletes, arguments, bluez, adapter: adapter)
                    if !lanes.isEmpty {
                        for line in unknown { log(line) }
                        return (bluez, lanes)
                    }
                } else {
                    let sensors = try requestedSensors(arguments, athlete: athlete, bluez, adapter: adapter)
                    if !sensors.isEmpty { return (bluez, [(athlete?.name, sensors)]) }
                }
                problem =
                    "no paired sensor offers heart rate, cycling power or speed and cadence; pair one with "
                    + "'sensorbridge pair ADDRESS' (or give --hr, --power)"
            } catch .permissionDenied(let error) {
                throw .permissionDenied(error)
            } catch {
                problem = error.description
                // A bus that went away (or never answered) is connected to afresh next time.
                if case .noBus = error {
                    client?.bus.close()
                    client = nil
                }
            }
            if problem != logged { log(problem + "; waiting") }
            logged = problem
            if router.sleep(.seconds(5)) {
                client?.bus.close()
                return nil
            }
        }
    }

    /// The sensors of --hr and --power, else those assigned to --athlete, else the paired or
    /// trusted ones keyed by what they offer (`power`, `hr`, `csc`; a second of a kind is `hr2`).
    /// `assigned`: addresses (upper case) left out of the paired ones, an athlete's.
    static func requestedSensors(
        _ arguments: CommandArguments, athlete: AthleteRecord?, _ client: BlueZClient, adapter: String, leavingOut assigned: Set<String> = []
    ) throws(BlueZError) -> [SensorRequest] {
        var queries = [("hr", arguments["hr"]), ("power", arguments["power"])].compactMap { key, query in
            query.map { (key, $0) }
        }
        if queries.isEmpty, let athlete {
            queries = athlete.assignedSensors.map { ($0.key, $0.address) }
        }
        if !queries.isEmpty {
            return try queries.map { key, query throws(BlueZError) in
                SensorRequest(key: key, device: try client.findSensor(query, adapter: adapter))
            }
        }
        var counts: [String: Int] = [:]
        return client.sensors(adapter: adapter).filter {
            ($0.paired || client.properties($0.path, BlueZClient.deviceInterface)?["Trusted"]?.bool == true)
                && !assigned.contains($0.address.uppercased())
        }.sorted { $0.address < $1.address }.map { sensor in
            let kind = sensor.services.contains(0x1818) ? "power" : sensor.services.contains(0x180D) ? "hr" : "csc"
            counts[kind, default: 0] += 1
            return SensorRequest(key: counts[kind]! == 1 ? kind : "\(kind)\(counts[kind]!)", device: sensor)
        }
    }

    /// The lanes of athletes served at once: each athlete's assigned sensors that BlueZ knows,
    /// under keys `NAME/hr` and `NAME/power`, and first the box's own lane of the paired sensors
    /// no athlete has (when there are any); with a line for each assigned sensor BlueZ does not know.
    static func athleteLanes(_ athletes: [AthleteRecord], _ arguments: CommandArguments, _ client: BlueZClient, adapter: String)
        throws(BlueZError) -> (lanes: [(athlete: AthleteName?, requests: [SensorRequest])], unknown: [String])
    {
        var lanes: [(athlete: AthleteName?, requests: [SensorRequest])] = []
        var unknown: [String] = []
        for athlete in athletes {
            var requests: [SensorRequest] = []
            for sensor in athlete.assignedSensors {
                guard let device = try? client.sensor(sensor.address, adapter: adapter) else {
                    unknown.append(
                        "\(athlete.name)'s \(AthletesCommand.roleText(sensor.role)) sensor \(sensor.address) is not known to BlueZ; "
                            + "pair it with 'sensorbridge pair \(sensor.address)' and restart serve")
                    continue
                }
                requests.append(SensorRequest(key: "\(athlete.name)/\(sensor.key)", device: device))
            }
            if !requests.isEmpty { lanes.append((athlete.name, requests)) }
        }
        let assigned = Set(athletes.flatMap { $0.sensors.values })
        let own = try requestedSensors(arguments, athlete: nil, client, adapter: adapter, leavingOut: assigned)
        if !own.isEmpty { lanes.insert((nil, own), at: 0) }
        return (lanes, unknown)
    }

    /// Several lanes at once, each on a thread of its own recording its workouts one after another
    /// until serve stops; the first error stops every lane and is thrown here.
    static func serveAtOnce(
        _ lanes: [(lane: ServeLane, mqtt: MQTTPublisher?)], _ arguments: CommandArguments, _ context: CommandContext, routers: ServeRouters,
        control: RecordingControl, idleTimeout: Duration, minimumDuration: Duration, latencyBudget: Duration, riders: ClassFeed?,
        log: @escaping @Sendable (String) -> Void
    ) throws {
        let shared = SharedContext(context: context)
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchGroup()
        for (lane, mqtt) in lanes {
            done.enter()
            Thread.detachNewThread {
                Thread.nameCurrent("sb.lane")
                defer { done.leave() }
                do {
                    try serve(
                        lane, arguments, shared.context, control: control, idleTimeout: idleTimeout, minimumDuration: minimumDuration,
                        latencyBudget: latencyBudget, live: riders?.feed(of: lane.athlete), mqtt: mqtt, signals: false, log: log)
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    routers.stopAll()
                }
            }
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Records `lane`'s workouts one after another until serve stops; its log lines carry its athlete.
    static func serve(
        _ lane: ServeLane, _ arguments: CommandArguments, _ context: CommandContext, control: RecordingControl,
        idleTimeout: Duration, minimumDuration: Duration, latencyBudget: Duration, live: LiveFeed?, mqtt: MQTTPublisher?,
        signals: Bool, log: @escaping @Sendable (String) -> Void
    ) throws {
        let log = ServeLane.log(log, lane.athlete)
        log("waiting for the sensors to send")
        while let first = lane.router.waitForWorkout() {
            try record(
                from: first, arguments, context, lane: lane, control: control, idleTimeout: idleTimeout,
                minimumDuration: minimumDuration, latencyBudget: latencyBudget, live: live.map { ($0, lane.roleNames) },
                mqtt: mqtt, signals: signals, log: log)
            if lane.router.isStopping { break }
            log("waiting for the sensors to send")
        }
    }

    /// Records one workout of `lane` from its first measurement's arrival until the router ends
    /// it, and saves it. `signals`: SIGUSR1 and SIGUSR2 mark laps and pauses (one lane only).
    static func record(
        from first: ContinuousClock.Instant, _ arguments: CommandArguments, _ context: CommandContext, lane: ServeLane,
        control: RecordingControl, idleTimeout: Duration, minimumDuration: Duration, latencyBudget: Duration,
        live: (feed: LiveFeed, sensors: [(key: String, name: String)])?, mqtt: MQTTPublisher?, signals handled: Bool,
        log: @escaping @Sendable (String) -> Void
    ) throws {
        let (router, sensorIDs, sensorNames) = (lane.router, lane.sensorIDs, lane.sensorNames)
        // The profile and zones are read again: they may have changed since the last workout.
        var setup = try logging(context, log) {
            try WorkoutSetup(arguments, $0, command: "serve", alwaysSave: true, athlete: lane.athlete)
        }
        setup.applyAutoPause(default: sensorNames.values.contains { !$0.hasPrefix("hr") })
        let start = Date() - (ContinuousClock.now - first).seconds
        let (builder, recorder) = try logging(context, log) { try setup.begin(start: start, sensors: sensorNames, $0) }
        let journal = recorder.map { WorkoutStoreJournal(recorder: $0, sensorNames: sensorNames, report: log) }
        // Ticks at the latest item's time: nothing of the idle time after the last sample enters the workout.
        let session = WorkoutSession(builder: builder, latencyBudget: latencyBudget, followsProducerCPU: true, journal: journal)
        let source = LiveSensorSource(
            anchor: first, sensorIDs: sensorIDs, notificationRing: session.makeRing(), control: control, trace: nil, report: { _ in })
        // SIGUSR1 marks a lap, SIGUSR2 pauses and resumes, SIGRTMIN begins the next activity (a
        // button wired to `systemctl kill -s`). The API's end ends this workout; serve goes on.
        let controls = session.makeControls(
            clock: { ContinuousClock.now - first }, end: { router.endWorkout() }, activities: setup.recording.plan.activities)
        if let live {
            live.feed.follow(
                session, controls: controls, anchor: first, model: setup.dashboardModel(sensors: live.sensors, sensorKeys: sensorNames),
                start: start, timeZone: context.timeZone)
        }
        mqtt?.follow(session, start: start, sensors: sensorNames, steps: setup.stepCoach)
        let lap: @Sendable () -> Void = {
            controls.lap()
            log("lap (SIGUSR1)")
        }
        let togglePause: @Sendable () -> Void = {
            controls.togglePause()
            log("pause or resume (SIGUSR2)")
        }
        let nextActivity: @Sendable () -> Void = {
            if let type = controls.nextActivity() {
                log("\(type.rawValue) begins (SIGRTMIN)")
            } else {
                log("SIGRTMIN: no activity comes next (serve --activities A,B,... plans them)")
            }
        }
        let signals =
            handled && context.recordingControl == nil
            ? SignalHandlers([(SIGUSR1, lap), (SIGUSR2, togglePause), (Self.nextActivitySignal, nextActivity)]) : nil
        // Between workouts they stay ignored: not fatal, and nothing to act on.
        defer { signals?.cancel(ignoring: true) }
        let result = session.run(sources: [RoutedSensors(router: router, source: source, anchor: first)])
        let reason =
            router.isBusLost
            ? "the bus connection was lost"
            : router.isStopping ? "serve is stopping" : router.wasEndedOnRequest ? "ended through the HTTP API" : "ended after \(idleTimeout.seconds.formatted) s without data"
        for warning in session.warnings { log(warning) }
        let workout = try Recording.workout(result, recorder: recorder)
        if workout.duration < minimumDuration {
            try recorder?.discard()
            log(
                "discarded a workout of \(workout.duration.clockText) (\(reason)): shorter than "
                    + "--min-duration \(minimumDuration.seconds.formatted) s")
            return
        }
        let outcome = try setup.recording.finish(workout, recorder: recorder)
        switch outcome {
        case .empty:
            return log("a workout of \(workout.duration.clockText) (\(reason)): " + setup.emptyNote)
        case .failed(let failure):
            // serve goes on to the next workout; this one waits in the store for 'workouts recover'
            // or 'sync'.
            return log(setup.failureText(failure, workout: workout, source: nil))
        case .saved, .unsaved:
            break
        }
        let id = outcome.savedID
        var line = "workout \(id.map { "\($0)" } ?? "?") saved (\(reason)): \(workout.duration.clockText)"
        if let hr = workout.statistics.heartRate { line += ", heart rate avg \(Int(hr.average.rounded())) bpm" }
        if let power = workout.statistics.cyclingPower { line += ", power avg \(Int(power.average.rounded())) W" }
        log(line + ", \(workout.samples.count) samples")
        if let raised = try setup.raiseMaximum(after: workout) { log(raised) }
        mqtt?.finished(workout, id: id, identity: recorder?.identity)
        if arguments.has("json") {
            // Lanes recording at once finish one at a time here.
            outputLock.withLock { _ in
                context.output.line(
                    WorkoutJSON.object(workout, id: id, identity: recorder?.identity, zoneUpdates: false, timeZone: context.timeZone)
                        .serialized)
                context.output.flush()
            }
        }
    }

    /// Standard output's lock, for `--json` lines of lanes recording at once.
    static let outputLock = Mutex(())

    /// Runs `body` with a context whose standard error is collected, then logs what it wrote line
    /// by line (so that nothing writes to standard error beside the log's lock).
    static func logging<T>(_ context: CommandContext, _ log: (String) -> Void, _ body: (CommandContext) throws -> T)
        rethrows -> T
    {
        var collected = context
        collected.errors = TextOutput()
        defer {
            for line in collected.errors.text.split(separator: "\n") {
                log(String(line.hasPrefix("sensorbridge serve: ") ? line.dropFirst(20) : line))
            }
        }
        return try body(collected)
    }
}

/// The command's context for lanes on threads of their own. Unchecked: each lane reads only its
/// value members (environment, flags), logs through `ServeCommand.logging` (which gives it an
/// error output of its own), and writes standard output only under `ServeCommand.outputLock`.
struct SharedContext: @unchecked Sendable {
    let context: CommandContext
}
