import Foundation
import SensorBridge
import Session
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// `serve` against a private dbus-daemon and the mock org.bluez: workouts start when the sensors
/// send and end after the idle timeout, a stop saves the workout in progress, BlueZ may go away.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct ServeCommandTests {
    /// `sensorbridge serve` running in-process on its own thread, stopped as SIGTERM stops it.
    final class Serving: Sendable {
        let control = RecordingControl()
        let store: String
        private let finished = DispatchSemaphore(value: 0)
        private let outcome = Mutex<(SensorBridge.ExitStatus, String, String)?>(nil)

        /// `zones`: the test zones on the command line (which override an athlete's).
        init(_ mock: MockBlueZ, _ arguments: [String], store given: String? = nil, zones: Bool = true) {
            store =
                given ?? FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).sqlite").path
            let environment = mock.environment
            // Every workout is kept (the test rides are short) unless the test says otherwise.
            let minimum = arguments.contains("--min-duration") ? [] : ["--min-duration", "0"]
            let words = ["serve", "--store", store] + minimum + arguments + (zones ? BlueZCommandTests.zones : [])
            Thread.detachNewThread { [self] in
                var context = CommandContext(
                    input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
                context.recordingControl = control
                let status = SensorBridgeCLI.run(words, context: context)
                let result = (status, context.output.text, context.errors.text)
                outcome.withLock { $0 = result }
                finished.signal()
            }
        }

        /// Waits (up to `timeout`) until `count` notifications have reached the workouts.
        func waitForNotifications(_ count: Int, timeout: Duration = .seconds(30)) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while control.notificationsReceived < count {
                if ContinuousClock.now > deadline { return false }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return true
        }

        /// The stored workouts, from `workouts list --json`.
        func workouts() throws -> [JSONValue] {
            let run = runCLI(["workouts", "list", "--json", "--store", store])
            return try JSONValue(parsing: run.output)["workouts"]?.arrayValue ?? []
        }

        /// Waits (up to `timeout`) until `count` finished workouts are stored.
        func waitForSavedWorkouts(_ count: Int, timeout: Duration = .seconds(30)) throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while try workouts().filter({ $0["state"]?.stringValue == "finished" }).count < count {
                if ContinuousClock.now > deadline { return false }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return true
        }

        func show(_ id: Double) throws -> JSONValue? {
            let run = runCLI(["workouts", "show", String(Int(id)), "--json", "--store", store])
            return try JSONValue(parsing: run.output)["workout"]
        }

        /// Stops serve and waits for it to return.
        func stop() -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
            control.stop()
            return waitForExit()
        }

        /// Waits (up to 30 s) for serve to return by itself.
        func waitForExit() -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
            guard finished.wait(timeout: .now() + 30) == .success else {
                return (.failure, "", "serve did not stop in 30 s")
            }
            finished.signal()  // for deinit
            return outcome.withLock { $0 }!
        }

        deinit {
            control.stop()
            _ = finished.wait(timeout: .now() + 30)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        }
    }

    /// The ride's first lines up to `seconds`, then the same lines again `gap` seconds after the start.
    static func twoRides(seconds: Double, gap: Double) throws -> (url: URL, perRide: [String]) {
        let text = try String(contentsOf: BlueZCommandTests.ride, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        var first: [String] = []
        for line in lines.dropFirst() {
            let o = try JSONValue(parsing: line)
            guard o["hex"] != nil else { continue }
            if o["t"]!.doubleValue! > seconds { break }
            first.append(line)
        }
        // {"t":1.25,"device":... -> {"t":13.25,"device":...
        let second = try first.map { line in
            let t = try JSONValue(parsing: line)["t"]!.doubleValue!
            return "{\"t\":\(t + gap)" + line.drop { $0 != "," }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).jsonl")
        try ([lines[0]] + first + second).joined(separator: "\n").appending("\n").write(
            to: url, atomically: true, encoding: .utf8)
        return (url, first)
    }

    /// Three athletes at once on one box, each with their own strap (and Cleo her power meter) and
    /// zones: each gets a workout of their own sensors' values, zoned with their zones and kept
    /// under their name; Cleo's strap dropping out half-way ends nothing of Anna's or Ben's.
    @Test func threeAthletesAtOnceEachGetTheirOwnWorkout() throws {
        let devices = [
            ("anna", "HRM-A", "C4:7E:11:22:33:01"), ("ben", "HRM-B", "C4:7E:11:22:33:02"),
            ("cleo", "HRM-C", "C4:7E:11:22:33:03"), ("cleopower", "PM-C", "E8:FE:6E:91:9F:03"),
        ]
        let header = "{\"sensorbridge\":\"trace\",\"version\":1,\"start\":\"2026-11-02T17:30:00Z\",\"devices\":{"
            + devices.map { "\"\($0.0)\":{\"name\":\"\($0.1)\",\"address\":\"\($0.2)\"}" }.joined(separator: ",") + "}}"
        var lines = [header]
        // 6 s of trace at 4 values a second each: Anna 120 bpm, Ben 150, Cleo 100 bpm and 200 W;
        // Cleo's strap is out of range from t = 3.
        for step in 0..<24 {
            let t = Double(step) * 0.25
            lines.append("{\"t\":\(t),\"device\":\"anna\",\"uuid\":\"2a37\",\"hex\":\"0678\"}")
            lines.append("{\"t\":\(t),\"device\":\"ben\",\"uuid\":\"2a37\",\"hex\":\"0696\"}")
            if t < 3 { lines.append("{\"t\":\(t),\"device\":\"cleo\",\"uuid\":\"2a37\",\"hex\":\"0664\"}") }
            if t == 3 { lines.append("{\"t\":3,\"device\":\"cleo\",\"event\":\"disconnected\"}") }
            lines.append("{\"t\":\(t),\"device\":\"cleopower\",\"uuid\":\"2a63\",\"hex\":\"2000c800e8fd0000\"}")
        }
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("athletes-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: trace) }

        let store = FileManager.default.temporaryDirectory.appendingPathComponent("athletes-\(UUID().uuidString).sqlite").path
        for words in [
            ["athletes", "add", "Anna", "--hr-zones", "100,110,130,150"], ["athletes", "add", "Ben", "--hr-zones", "120,140,160,180"],
            ["athletes", "add", "Cleo", "--hr-zones", "90,95,105,115", "--power-zones", "100,150,250"],
            ["athletes", "assign", "Anna", "--hr", "C4:7E:11:22:33:01"], ["athletes", "assign", "Ben", "--hr", "C4:7E:11:22:33:02"],
            ["athletes", "assign", "Cleo", "--hr", "C4:7E:11:22:33:03", "--power", "E8:FE:6E:91:9F:03"],
        ] {
            let run = runCLI(words + ["--store", store])
            #expect(run.status == .success, "\(words): \(run.errors)")
        }
        let mock = try MockBlueZ(trace: trace, speed: 2)
        defer { mock.stop() }
        let serving = Serving(mock, ["--idle-timeout", "2"], store: store, zones: false)
        let sent = lines.filter { $0.contains("\"hex\"") }.count
        #expect(mock.waitUntilPlayed(timeout: .seconds(60)) == sent)
        #expect(try serving.waitForSavedWorkouts(3))
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        for line in ["Anna: sensors: Anna/hr HRM-A (C4:7E:11:22:33:01)", "Ben: sensors: Ben/hr HRM-B (C4:7E:11:22:33:02)",
            "Cleo: sensors: Cleo/hr HRM-C (C4:7E:11:22:33:03), Cleo/power PM-C (E8:FE:6E:91:9F:03)", "Cleo: HRM-C lost; reconnecting", "Anna: HRM-A connected", "Ben: waiting for the sensors to send"]
        {
            #expect(run.errors.contains(line), "\(line): \(run.errors)")
        }

        let listed = try serving.workouts()
        #expect(Set(listed.compactMap { $0["athlete"]?.stringValue }) == ["Anna", "Ben", "Cleo"], "\(listed)")
        func workout(of athlete: String) throws -> JSONValue? {
            try listed.first { $0["athlete"]?.stringValue == athlete }.flatMap { try serving.show($0["id"]!.doubleValue!) }
        }
        func boundaries(_ workout: JSONValue?, _ quantity: String) -> [Double]? {
            workout?["zoneGroups"]?[quantity]?["configuration"]?["zones"]?.arrayValue?.compactMap { $0["maximum"]?.doubleValue }
        }
        let anna = try workout(of: "Anna"), ben = try workout(of: "Ben"), cleo = try workout(of: "Cleo")
        #expect(anna?["statistics"]?["heartRate"]?["count"] == 24 && anna?["statistics"]?["heartRate"]?["average"] == 120)
        #expect(anna?["statistics"]?["cyclingPower"] == nil)
        #expect(boundaries(anna, "heartRate") == [100, 110, 130, 150])
        #expect(ben?["statistics"]?["heartRate"]?["count"] == 24 && ben?["statistics"]?["heartRate"]?["average"] == 150)
        #expect(boundaries(ben, "heartRate") == [120, 140, 160, 180])
        #expect(cleo?["statistics"]?["heartRate"]?["count"] == 12 && cleo?["statistics"]?["heartRate"]?["average"] == 100)
        #expect(cleo?["statistics"]?["cyclingPower"]?["count"] == 24 && cleo?["statistics"]?["cyclingPower"]?["average"] == 200)
        #expect(boundaries(cleo, "heartRate") == [90, 95, 105, 115] && boundaries(cleo, "cyclingPower") == [100, 150, 250])
        // All of Anna's and Ben's time is in their own third zone.
        for (rider, workout) in [("Anna", anna), ("Ben", ben)] {
            let durations = workout?["zoneGroups"]?["heartRate"]?["zoneDurations"]?.arrayValue?.compactMap { $0["duration"]?.doubleValue } ?? []
            #expect(durations.count == 5 && durations[2] > 0 && durations.enumerated().allSatisfy { $0.offset == 2 || $0.element == 0 }, "\(rider): \(durations)")
        }
    }

    /// The README's class: its athletes added and assigned as it shows, then its `serve --http`
    /// (on a free port) on the mock with Anna's strap and Ben's strap and power meter: `/api/class`
    /// has both riders, and each workout is saved under its rider's name.
    @Test func theREADMEClassExampleServesBothRiders() throws {
        let examples = try readmeExamples(under: "## A class on one box")
        #expect(examples.count == 5)
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("class-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        var serveWords: [String] = []
        for (command, shown) in examples {
            let words = command.split(separator: " ").dropFirst().map(String.init)
            guard words.first != "serve" else {
                serveWords = Array(words.dropFirst())
                continue
            }
            let run = runCLI(words + ["--store", store])
            #expect(run.status == .success && run.output.split(separator: "\n").map(String.init) == shown.filter { !$0.isEmpty }, "\(command): \(run.output)\(run.errors)")
        }
        #expect(serveWords == ["--http", "8080"])
        let header = #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"anna":{"name":"HRM-A","address":"C4:7E:11:22:35:01"},"ben":{"name":"HRM-B","address":"C4:7E:11:22:35:02"},"benpower":{"name":"PM-B","address":"E8:FE:6E:91:9F:35"}}}"#
        var lines = [header]
        for step in 0..<24 {
            let t = Double(step) * 0.5
            lines.append(#"{"t":\#(t),"device":"anna","uuid":"2a37","hex":"0696"}"#)
            lines.append(#"{"t":\#(t),"device":"ben","uuid":"2a37","hex":"068c"}"#)
            lines.append(#"{"t":\#(t),"device":"benpower","uuid":"2a63","hex":"0000d200"}"#)
        }
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("class-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: trace) }
        let mock = try MockBlueZ(trace: trace, speed: 1)
        defer { mock.stop() }
        let port = try freeLoopbackPort()
        let serving = Serving(mock, ["--idle-timeout", "2", "--http", "\(port)"], store: store, zones: false)
        let base = "http://127.0.0.1:\(port)"
        try WebTests.Running.waitUntilServing(base + "/")
        var riders: [JSONValue] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let snapshot = try JSONValue(parsing: WebTests.liveSnapshot(try WebTests.curl(base + "/api/class", ["--max-time", "1", "-N"]).text))
            riders = snapshot["riders"]?.arrayValue ?? []
            if riders.count == 2, riders.allSatisfy({ $0["heartRate"] != .null && $0["calories"] != .null }), riders.last?["power"] == 210 {
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(riders.map { $0["name"]?.stringValue } == ["Anna", "Ben"], "\(riders)")
        // Anna 150 bpm of her 188 (80 %); Ben 140 of 208 - 0.7 × 41 = 179.3 (78 %), 210 W.
        #expect(riders.first?["heartRate"] == 150 && riders.first?["percentOfMaximum"] == 80, "\(riders)")
        #expect(riders.last?["heartRate"] == 140 && riders.last?["percentOfMaximum"] == 78 && riders.last?["power"] == 210, "\(riders)")
        // Ben's 210 W of his 80 kg; Anna's calories from heart rate (her sex, weight and age), Ben's from his work.
        #expect(riders.last?["wattsPerKilogram"] == 2.6 && riders.allSatisfy { ($0["calories"]?.doubleValue ?? -1) >= 0 }, "\(riders)")
        #expect(riders.allSatisfy { $0["zonePoints"]?.doubleValue != nil }, "\(riders)")
        #expect(try WebTests.curl(base + "/athletes/ben/live").text.contains("Live: Ben"))
        #expect(try WebTests.curl(base + "/athletes/nobody/live").status == 404)
        #expect(try serving.waitForSavedWorkouts(2))
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(Set(try serving.workouts().compactMap { $0["athlete"]?.stringValue }) == ["Anna", "Ben"])
    }

    @Test func twoRidesWithASilenceBetweenThemAreTwoSavedWorkouts() throws {
        // 2 s of the ride, silence, the same 2 s again from t = 12; twice real time: 1 s, 5 s quiet, 1 s.
        let (trace, ride) = try Self.twoRides(seconds: 2, gap: 12)
        #expect(try BlueZCommandTests.notifications(trace).count == 2 * ride.count)
        let mock = try MockBlueZ(trace: trace, speed: 2, paired: true)
        defer { mock.stop() }
        // No --hr or --power: the paired sensors.
        let serving = Serving(mock, ["--idle-timeout", "2", "--json"])
        #expect(mock.waitUntilPlayed(timeout: .seconds(60)) == 2 * ride.count)
        #expect(serving.waitForNotifications(2 * ride.count))
        #expect(try serving.waitForSavedWorkouts(2))
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(
            run.errors.contains("sensors: hr HRM-Pro (C4:7E:11:22:33:44), power Assioma (E8:FE:6E:91:9F:16)"),
            "\(run.errors)")
        #expect(run.errors.components(separatedBy: "saved (ended after 2 s without data)").count == 3, "\(run.errors)")
        #expect(run.errors.contains("stopped"))

        let workouts = try serving.workouts()
        #expect(workouts.count == 2)
        let hrLines = ride.filter { $0.contains("\"hr\"") }.count
        for (index, listed) in workouts.enumerated() {
            let workout = try serving.show(listed["id"]!.doubleValue!)
            #expect(
                workout?["statistics"]?["heartRate"]?["count"]?.doubleValue == Double(hrLines), "workout \(index + 1)")
            #expect(
                workout?["statistics"]?["cyclingPower"]?["count"]?.doubleValue == Double(ride.count - hrLines),
                "workout \(index + 1)")
            // Each ride lasts 1 s: the workout ends at its last sample, not 2 s later at the timeout.
            #expect((workout?["duration"]?.doubleValue ?? 99) < 1.9, "workout \(index + 1)")
        }
        // --json: one line per saved workout, with its id.
        let printed = try jsonLines(run.output)
        #expect(printed.map { $0["id"]?.doubleValue } == workouts.map { $0["id"]?.doubleValue })
    }

    @Test func stoppingDuringAWorkoutSavesIt() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 2)
        defer { mock.stop() }
        let serving = Serving(mock, ["--hr", "HRM-Pro", "--power", "Assioma"])
        #expect(serving.waitForNotifications(20))
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("HRM-Pro connected") && run.errors.contains("Assioma connected"), "\(run.errors)")
        #expect(run.errors.contains("HRM-Pro: battery 87 %"))
        #expect(run.errors.contains("saved (serve is stopping)"), "\(run.errors)")
        let workouts = try serving.workouts()
        #expect(workouts.count == 1)
        #expect(workouts.first?["state"]?.stringValue == "finished")
        let workout = try serving.show(workouts.first?["id"]?.doubleValue ?? 0)
        #expect((workout?["statistics"]?["cyclingPower"]?["count"]?.doubleValue ?? 0) >= 10)
    }

    @Test func losingTheBusSavesTheWorkoutAndExitsWithFailure() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 2)
        defer { mock.stop() }
        let serving = Serving(mock, ["--hr", "HRM-Pro", "--power", "Assioma"])
        #expect(serving.waitForNotifications(20))
        mock.stopBus()
        let run = serving.waitForExit()
        #expect(run.status == .failure, "\(run.errors)")
        #expect(run.errors.contains("saved (the bus connection was lost)"), "\(run.errors)")
        #expect(run.errors.contains("exiting with status 1 so that systemd starts serve again"), "\(run.errors)")
        let workouts = try serving.workouts()
        #expect(workouts.map { $0["state"]?.stringValue } == ["finished"])
    }

    @Test func bluezGoingAwayAndComingBackIsWaitedOut() throws {
        let source = try BlueZCommandTests.trace(lines: 40)
        let sent = try BlueZCommandTests.notifications(source).count
        // Eight times real time (1 s a play): measurements follow each reconnection, which is what makes
        // the regained events part of the workout.
        let mock = try MockBlueZ(trace: source, speed: 8)
        defer { mock.stop() }
        // BlueZ is not running when serve starts: it waits.
        mock.stopBlueZ()
        let serving = Serving(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--idle-timeout", "60"])
        Thread.sleep(forTimeInterval: 0.5)
        try mock.restartBlueZ()
        #expect(mock.waitUntilPlayed(timeout: .seconds(60)) == sent)
        #expect(serving.waitForNotifications(sent))
        // BlueZ restarts during the workout: the sensors are lost, reconnected, and the trace plays again.
        try mock.restartBlueZ()
        #expect(mock.waitUntilPlayed(timeout: .seconds(60)) == sent)
        #expect(serving.waitForNotifications(2 * sent))
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("BlueZ is not running"), "\(run.errors)")
        #expect(run.errors.contains("HRM-Pro lost; reconnecting") && run.errors.contains("Assioma lost; reconnecting"))
        let workouts = try serving.workouts()
        #expect(workouts.count == 1)
        let events = try serving.show(workouts.first?["id"]?.doubleValue ?? 0)?["events"]?.arrayValue ?? []
        #expect(events.filter { $0["type"]?.stringValue == "sensorLost" }.count == 2, "\(events)")
        #expect(events.filter { $0["type"]?.stringValue == "sensorRegained" }.count == 2, "\(events)")
    }

    @Test func aWorkoutShorterThanTheMinimumIsDiscarded() throws {
        let source = try BlueZCommandTests.trace(lines: 40)
        let mock = try MockBlueZ(trace: source, speed: 8)
        defer { mock.stop() }
        let serving = Serving(
            mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--idle-timeout", "1", "--min-duration", "30"])
        #expect(serving.waitForNotifications(try BlueZCommandTests.notifications(source).count))
        Thread.sleep(forTimeInterval: 1.5)  // past the idle timeout
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("discarded a workout of 0:0"), "\(run.errors)")
        #expect(run.errors.contains("(ended after 1 s without data): shorter than --min-duration 30 s"), "\(run.errors)")
        #expect(try serving.workouts().isEmpty)
    }

    /// A strap without skin contact sends measurements, which start a workout, but no value that
    /// counts: the empty workout is logged and not stored.
    @Test func aWorkoutWithoutValuesIsLoggedAndNotStored() throws {
        let trace = try BlueZCommandTests.trace(lines: 0, extra: BlueZCommandTests.noContact)
        let mock = try MockBlueZ(trace: trace, speed: 8)
        defer { mock.stop() }
        let serving = Serving(mock, ["--hr", "HRM-Pro", "--idle-timeout", "1"])
        #expect(serving.waitForNotifications(BlueZCommandTests.noContact.count))
        Thread.sleep(forTimeInterval: 1.5)  // past the idle timeout
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("(ended after 1 s without data): no values were recorded: nothing saved"), "\(run.errors)")
        #expect(!run.errors.contains("saved (ended"), "\(run.errors)")
        #expect(try serving.workouts().isEmpty)
    }

    @Test func anAdapterUnpluggedAndPluggedInAgainIsWaitedOut() throws {
        let source = try BlueZCommandTests.trace(lines: 40)
        let sent = try BlueZCommandTests.notifications(source).count
        // Eight times real time (1 s a play): measurements follow each reconnection, which is what makes
        // the regained events part of the workout.
        let mock = try MockBlueZ(trace: source, speed: 8)
        defer { mock.stop() }
        let serving = Serving(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--idle-timeout", "60"])
        #expect(mock.waitUntilPlayed(timeout: .seconds(60)) == sent)
        #expect(serving.waitForNotifications(sent))
        // The adapter's objects vanish without a word about the links: the sensors count as lost.
        try mock.unplugAdapter()
        mock.replugAdapter()
        #expect(mock.waitUntilPlayed(timeout: .seconds(60), round: 2) == sent)
        #expect(serving.waitForNotifications(2 * sent))
        let run = serving.stop()
        #expect(run.status == .success, "\(run.errors)")
        #expect(
            run.errors.contains("HRM-Pro lost; reconnecting") && run.errors.contains("Assioma lost; reconnecting"),
            "\(run.errors)")
        let workouts = try serving.workouts()
        #expect(workouts.count == 1)
        let events = try serving.show(workouts.first?["id"]?.doubleValue ?? 0)?["events"]?.arrayValue ?? []
        #expect(events.filter { $0["type"]?.stringValue == "sensorLost" }.count == 2, "\(events)")
        #expect(events.filter { $0["type"]?.stringValue == "sensorRegained" }.count == 2, "\(events)")
    }

    /// The built `sensorbridge serve` as a child process against `mock`, with a store of its own,
    /// once it has started saving workout 1.
    static func serveProcess(_ mock: MockBlueZ, _ extra: [String] = []) throws -> (ChildProcess, store: String) {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).sqlite").path
        let serve = try ChildProcess(
            DeploymentFilesTests.binary,
            ["serve", "--hr", "HRM-Pro", "--power", "Assioma", "--store", store, "--min-duration", "0"] + extra
                + BlueZCommandTests.zones,
            environment: mock.environment)
        #expect(serve.waitForLine(timeout: .seconds(30)) { $0.contains("saving workout 1") } != nil, "\(serve.output)")
        return (serve, store)
    }

    @Test(
        .enabled(
            if: DeploymentFilesTests.binary != "/bin/true", "the sensorbridge binary was not built beside the tests"))
    func sigtermToTheProcessSavesTheWorkoutAndExitsZero() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 2)
        defer { mock.stop() }
        let (serve, store) = try Self.serveProcess(mock)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        Thread.sleep(forTimeInterval: 0.5)
        serve.stop(grace: .seconds(20))
        #expect(serve.terminationStatus == 0, "\(serve.output)")
        #expect(serve.output.contains("workout 1 saved (serve is stopping)"), "\(serve.output)")
        #expect(!serve.output.contains("\u{1B}"), "no terminal control codes in the log")
        let list = try JSONValue(parsing: runCLI(["workouts", "list", "--json", "--store", store]).output)
        #expect(list["workouts"]?.arrayValue?.map { $0["state"]?.stringValue } == ["finished"])
    }

    /// SIGUSR2 pauses and resumes the workout `serve` records, SIGUSR1 marks a lap, SIGRTMIN
    /// begins the next activity of `--activities` (and says when none is next); all are events in
    /// the stored workout, and none ends the process.
    @Test(
        .enabled(
            if: DeploymentFilesTests.binary != "/bin/true", "the sensorbridge binary was not built beside the tests"))
    func signalsPauseResumeMarkALapAndBeginTheNextActivity() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 2)
        defer { mock.stop() }
        let (serve, store) = try Self.serveProcess(mock, ["--auto-pause", "off", "--activities", "cycling,running"])
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let nextActivity = __libc_current_sigrtmin()
        for signal in [SIGUSR2, SIGUSR2, SIGUSR1, nextActivity, nextActivity, nextActivity] {
            Thread.sleep(forTimeInterval: 1)
            serve.send(signal)
        }
        #expect(
            serve.waitForLine(timeout: .seconds(10)) { $0.contains("SIGRTMIN: no activity comes next") } != nil, "\(serve.output)")
        #expect(serve.output.contains("transition begins (SIGRTMIN)") && serve.output.contains("running begins (SIGRTMIN)"))
        Thread.sleep(forTimeInterval: 0.5)
        serve.stop(grace: .seconds(20))
        #expect(serve.terminationStatus == 0, "\(serve.output)")
        let shown = try JSONValue(parsing: runCLI(["workouts", "show", "1", "--json", "--store", store]).output)
        let events = (shown["workout"]?["events"]?.arrayValue ?? []).compactMap { e -> String? in
            guard let type = e["type"]?.stringValue, ["pause", "resume", "lap", "activity"].contains(type) else { return nil }
            return "\(type) \(e["cause"]?.stringValue ?? e["activityType"]?.stringValue ?? "")"
        }
        #expect(
            events.prefix(5) == ["pause manual", "resume manual", "lap manual", "activity transition", "activity running"], "\(events)")
        #expect(shown["workout"]?["activityType"]?.stringValue == "multisport")
        let activities = shown["workout"]?["activities"]?.arrayValue ?? []
        #expect(activities.compactMap { $0["activityType"]?.stringValue } == ["cycling", "transition", "running"], "\(activities)")
    }

    @Test func helpAndBadOptions() {
        let help = runCLI(["serve", "--help"])
        #expect(help.status == .success)
        #expect(help.output.contains("--idle-timeout SECONDS") && help.output.contains("Examples:"))
        let bad = runCLI(["serve", "--idle-timeout", "0"])
        #expect(bad.status == .usage)
        #expect(bad.errors.contains("--idle-timeout 0 is out of range"), "\(bad.errors)")
        // A profile that cannot give zones is refused at the start, not at the first ride.
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        #expect(runCLI(["serve", "--min-duration", "-1"]).status == .usage)
        let model = runCLI(["serve", "--store", store, "--max-hr", "100", "--resting-hr", "120"])
        #expect(model.status == .usage, "\(model.errors)")
    }

    @Test func livePathOptionsSayWhatTheyTakeAndWhatIsWrong() {
        for command in ["serve", "record"] {
            let help = runCLI([command, "--help"])
            #expect(help.output.contains("--latency-budget MS") && help.output.contains("--no-acquire-notify"), "\(help.output)")
            #expect(!help.output.contains("\\(LivePathOptions"), "the help is interpolated")
            let range = runCLI([command, "--hr", "HRM-Pro", "--latency-budget", "5000"])
            #expect(range.status == .usage)
            #expect(range.errors.contains("--latency-budget 5000 is out of range; give a value from 0 to 1000"), "\(range.errors)")
            let text = runCLI([command, "--hr", "HRM-Pro", "--latency-budget", "soon"])
            #expect(text.errors.contains("--latency-budget needs a number from 0 to 1000, not 'soon'"), "\(text.errors)")
            let both = runCLI([command, "--hr", "HRM-Pro", "--acquire-notify", "--no-acquire-notify"])
            #expect(both.status == .usage)
            #expect(both.errors.contains("give --acquire-notify or --no-acquire-notify, not both"), "\(both.errors)")
        }
    }
}
