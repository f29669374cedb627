import Foundation
import SensorBridge
import Session
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// scan, pair and record against a private dbus-daemon and a mock org.bluez (python-dbusmock)
/// that plays a trace: no Bluetooth hardware. Skipped, saying why, only when dbus-daemon or
/// python3-dbusmock is missing.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct BlueZCommandTests {
    static let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl")
    static let zones = ["--hr-zones", "110,120,130,140", "--power-zones", "100,120,140,160"]

    /// The header and the first `lines` lines of the 60-minute ride, then `extra` lines.
    static func trace(lines: Int, extra: [String] = []) throws -> URL {
        let text = try String(contentsOf: ride, encoding: .utf8)
        let kept = text.split(separator: "\n").prefix(lines + 1).map(String.init) + extra
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bluez-\(UUID().uuidString).jsonl")
        try (kept.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Heart-rate measurements of a strap without skin contact (flags 0x04, 0 bpm): notifications
    /// that give no value, for `trace(lines: 0, extra:)`.
    static let noContact = (0..<8).map { #"{"t":\#(Double($0) * 0.25),"device":"hr","uuid":"2a37","hex":"0400"}"# }

    /// The notification lines of a trace as (device, uuid, hex), in order.
    static func notifications(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().compactMap { line in
            let o = try JSONValue(parsing: String(line))
            guard let hex = o["hex"]?.stringValue else { return nil }
            return "\(o["device"]!.stringValue!) \(o["uuid"]!.stringValue!) \(hex)"
        }
    }

    /// Runs `record` until the mock has played its trace and every notification has arrived.
    /// `whilePlaying` runs after the first full play (a BlueZ restart, say) and tells how many more
    /// notifications the mock played.
    static func record(
        _ mock: MockBlueZ, _ arguments: [String], whilePlaying: () throws -> Int = { 0 }
    ) throws -> (status: SensorBridge.ExitStatus, output: String, errors: String, played: Int, received: Int) {
        let recording = Recording(mock, arguments)
        let played = try mock.waitUntilPlayed(timeout: .seconds(60)).map { try $0 + whilePlaying() }
        if let played { recording.waitForNotifications(played) }
        let received = recording.control.notificationsReceived
        recording.control.stop()
        let (status, output, errors) = recording.waitForExit()
        return (status, output, errors, played ?? -1, received)
    }

    /// `record` running on a thread of its own against `mock`.
    final class Recording: Sendable {
        let control = RecordingControl()
        private let finished = DispatchSemaphore(value: 0)
        private let outcome = Mutex<(SensorBridge.ExitStatus, String, String)?>(nil)

        init(_ mock: MockBlueZ, _ arguments: [String]) {
            let environment = mock.environment
            Thread.detachNewThread { [self] in
                var context = CommandContext(
                    input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
                context.recordingControl = control
                // Without a store given, nothing is saved (record saves by default).
                let saving = arguments.contains("--store") ? [] : ["--no-save"]
                let status = SensorBridgeCLI.run(["record"] + arguments + saving, context: context)
                let result = (status, context.output.text, context.errors.text)
                outcome.withLock { $0 = result }
                finished.signal()
            }
        }

        /// Waits (up to 30 s) until `count` notifications have arrived.
        func waitForNotifications(_ count: Int) {
            let deadline = ContinuousClock.now + .seconds(30)
            while control.notificationsReceived < count, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }

        /// Waits (up to 30 s) for `record` to return.
        func waitForExit() -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
            #expect(finished.wait(timeout: .now() + 30) == .success)
            return outcome.withLock { $0 } ?? (.failure, "", "record did not finish")
        }
    }

    /// When record stops it takes down the links it made: bluetoothd keeps a link up after the
    /// program that asked for it has gone, and the rider's watch could not reach the strap. A
    /// sensor another program had connected stays connected.
    @Test(.timeLimit(.minutes(10))) func recordDisconnectsTheLinksItMadeWhenItStops() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 40))
        defer { mock.stop() }
        let connect = Process()
        connect.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        connect.arguments = [
            "--bus=\(mock.environment["DBUS_SYSTEM_BUS_ADDRESS"]!)", "--dest=org.bluez", "--print-reply",
            "/org/bluez/hci0/dev_E8_FE_6E_91_9F_16", "org.bluez.Device1.Connect",
        ]
        connect.standardOutput = FileHandle.nullDevice
        try ChildLaunch.run(connect)
        connect.waitUntilExit()
        #expect(connect.terminationStatus == 0)
        let run = try Self.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma"] + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.printed("disconnected C4:7E:11:22:33:44"), "\(mock.output)")
        #expect(!mock.output.contains("disconnected E8:FE:6E:91:9F:16"), "\(mock.output)")
    }

    /// bluetoothd forgets a device it found but never connected 30 s after it last saw it: `pair`
    /// (and `record`) after an earlier `scan` discover it again instead of saying no sensor matches.
    @Test(.timeLimit(.minutes(10))) func pairFindsASensorBlueZHasForgottenSinceTheScan() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10), extra: ["--temporary-timeout", "1", "--bonding", "hr"])
        defer { mock.stop() }
        #expect(mock.printed("removed C4:7E:11:22:33:44 (temporary)", timeout: .seconds(10)), "\(mock.output)")
        let run = runCLI(["pair", "C4:7E:11:22:33:44"], environment: mock.environment)
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.output.contains("Paired with HRM-Pro (C4:7E:11:22:33:44)"), "\(run.output)")
        #expect(mock.printed("found C4:7E:11:22:33:44"), "\(mock.output)")
    }

    /// bluetoothd sets ServicesResolved even when its service discovery failed: the strap's first
    /// link has no GATT objects. That is a failed attempt (not a sensor "connected" with nothing
    /// subscribed): the link is taken down and the next attempt finds the measurement.
    @Test(.timeLimit(.minutes(10))) func servicesResolvedWithoutMeasurementsIsAFailedAttempt() throws {
        let source = try Self.trace(lines: 40)
        let mock = try MockBlueZ(trace: source, extra: ["--gatt-fails", "hr"])
        defer { mock.stop() }
        let run = try Self.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.printed("services resolved without GATT objects C4:7E:11:22:33:44"), "\(mock.output)")
        #expect(mock.printed("disconnected C4:7E:11:22:33:44"), "\(mock.output)")
        #expect(run.errors.contains("BlueZ found none of its measurement characteristics"), "\(run.errors)")
        let sent = try Self.notifications(source).count
        #expect(run.received == run.played && run.played == sent, "\(run.received) of \(run.played)")
    }

    /// bluetoothd 5.87 crashes on a discovery filter that names UUIDs: sensorbridge's filter names
    /// none (transport LE, RSSI -127) and keeps the sensors itself, so scan works there too.
    @Test func scanWorksOnBlueZ587() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10), extra: ["--bluez-version", "5.87"])
        defer { mock.stop() }
        let run = runCLI(["scan", "--timeout", "0.2", "--json"], environment: mock.environment)
        #expect(run.status == .success, "\(run.errors) \(mock.output)")
        #expect(mock.printed("discovery started: le any rssi -127"), "\(mock.output)")
        #expect(!mock.output.contains("bluetoothd crashed"), "\(mock.output)")
        let sensors = try JSONValue(parsing: run.output)["sensors"]?.arrayValue ?? []
        #expect(sensors.map { $0["address"]?.stringValue } == ["C4:7E:11:22:33:44", "E8:FE:6E:91:9F:16"])
    }

    @Test func scanFindsTheMockSensors() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10))
        defer { mock.stop() }
        let run = runCLI(["scan", "--timeout", "0.2", "--json"], environment: mock.environment)
        #expect(run.status == .success, "\(run.errors)")
        let sensors = try JSONValue(parsing: run.output)["sensors"]?.arrayValue ?? []
        #expect(sensors.map { $0["address"]?.stringValue } == ["C4:7E:11:22:33:44", "E8:FE:6E:91:9F:16"])
        #expect(sensors.map { $0["name"]?.stringValue } == ["HRM-Pro", "Assioma"])
        #expect(sensors[0]["services"]?.arrayValue?.contains("180d") == true)
        #expect(sensors[1]["services"]?.arrayValue?.contains("1818") == true)

        let human = runCLI(["scan", "--timeout", "0.1"], environment: mock.environment)
        #expect(human.output.contains("HRM-Pro") && human.output.contains("cycling power"))
    }

    @Test func recordReceivesEveryNotificationAndMatchesAReplayOfItsTrace() throws {
        // A heart-rate payload with the RR flag and no value: truncated, so malformed.
        let source = try Self.trace(lines: 300, extra: [#"{"t":60,"device":"hr","uuid":"2a37","hex":"10"}"#])
        let mock = try MockBlueZ(trace: source)
        defer { mock.stop() }
        let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).jsonl")
        let run = try Self.record(
            mock, ["--hr", "HRM-Pro", "--power", "e8:fe:6e:91:9f:16", "--trace", recorded.path, "--json"] + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        let sent = try Self.notifications(source)
        #expect(run.played == sent.count)
        #expect(try Self.notifications(recorded) == sent)
        #expect(run.errors.contains("HRM-Pro: battery 87 %"))

        let live = try JSONValue(parsing: run.output)["workout"]
        let replayRun = runCLI(["replay", recorded.path, "--json"] + Self.zones)
        #expect(replayRun.status == .success, "\(replayRun.errors)")
        let replayed = try JSONValue(parsing: replayRun.output)["workout"]
        #expect(live?["statistics"]?["malformedNotifications"]?.doubleValue == 1)
        #expect(live?["statistics"] == replayed?["statistics"])
        #expect(live?["zoneGroups"] == replayed?["zoneGroups"])
        #expect(live?["duration"] == replayed?["duration"])
        // The strap's values arrive unchanged: the highest heart rate is the trace's.
        let rates = sent.compactMap { line -> UInt8? in
            let words = line.split(separator: " ")
            guard words[0] == "hr", words[2].count >= 4 else { return nil }
            return UInt8(words[2].dropFirst(2).prefix(2), radix: 16)
        }
        #expect(live?["statistics"]?["heartRate"]?["maximum"]?.doubleValue == Double(rates.max() ?? 0))
    }

    /// A recording whose sensors sent no value that counts (a strap without skin contact) is not
    /// saved: record says so, with what to check, and ends normally.
    @Test func recordSavesNoWorkoutWithoutValues() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 0, extra: Self.noContact))
        defer { mock.stop() }
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let run = try Self.record(mock, ["--hr", "HRM-Pro", "--store", store] + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.received == Self.noContact.count)
        #expect(run.errors.contains("sensorbridge record: no values were recorded: nothing saved"), "\(run.errors)")
        #expect(!run.output.contains("Saved as workout"), "\(run.output)")
        let listed = runCLI(["workouts", "list", "--json", "--store", store])
        #expect(try JSONValue(parsing: listed.output)["workouts"]?.arrayValue?.isEmpty == true, "\(listed.output)")
    }

    /// `--trace` to a new file writes it in place as notifications arrive (a crash keeps them);
    /// to an existing file, it leaves that file whole while recording, the trace so far in a
    /// temporary beside it, and replaces it when the recording ends.
    @Test func recordTraceStreamsANewFileAndReplacesAnExistingOneAtTheEnd() throws {
        let source = try Self.trace(lines: 100)
        let sent = try Self.notifications(source)
        for existing in [false, true] {
            let mock = try MockBlueZ(trace: source)
            defer { mock.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let recorded = folder.appendingPathComponent("ride.jsonl")
            let old = Data("not a trace, but somebody's file\n".utf8)
            if existing { try old.write(to: recorded) }
            func temporaries() throws -> [URL] {
                try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    .filter { $0.hasPrefix(".ride.jsonl.sensorbridge-") }.map { folder.appendingPathComponent($0) }
            }
            /// Every notification sent, in `file`, once the recorder has written the last one (up to 10 s).
            func holdsEveryNotification(_ file: URL?) -> Bool {
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    if let file, (try? Self.notifications(file)) == sent { return true }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                return false
            }

            if existing {
                // Without --force an existing file is refused, before anything connects.
                let refused = runCLI(
                    ["record", "--hr", "HRM-Pro", "--trace", recorded.path, "--no-save"], environment: mock.environment)
                #expect(refused.status == .usage)
                #expect(refused.errors.contains("--trace \(recorded.path) exists; give --force to replace it"), "\(refused.errors)")
                #expect(FileManager.default.contents(atPath: recorded.path) == old)
            }
            let recording = Recording(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--trace", recorded.path] + (existing ? ["--force"] : []) + Self.zones)
            let played = try #require(mock.waitUntilPlayed(timeout: .seconds(60)))
            #expect(played == sent.count)
            recording.waitForNotifications(played)
            // While it records: what a crash would leave.
            if existing {
                #expect(FileManager.default.contents(atPath: recorded.path) == old)
                #expect(try temporaries().count == 1)
                #expect(holdsEveryNotification(try temporaries().first), "the trace so far is beside the old file")
            } else {
                #expect(try temporaries() == [])
                #expect(holdsEveryNotification(recorded), "the new trace is written as notifications arrive")
            }
            recording.control.stop()
            let (status, _, errors) = recording.waitForExit()
            #expect(status == .success, "\(errors)")
            #expect(try Self.notifications(recorded) == sent)
            #expect(try temporaries() == [])
        }
    }

    @Test func anAcquireNotifySocketThatClosesIsReplacedByStartNotifyAndNothingIsLost() throws {
        let source = try Self.trace(lines: 300)
        // Both sensors offer AcquireNotify (read by default on BlueZ 5.84); the socket carrying the
        // 50th value closes while its sensor stays connected, and the mock plays on only once
        // StartNotify ran.
        let mock = try MockBlueZ(trace: source, acquireNotify: ["hr", "power"], closeSocketAfter: 50, bluez: "5.84")
        defer { mock.stop() }
        let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: recorded) }
        let run = try Self.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--trace", recorded.path, "--json"] + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.printed("acquired hr 2a37") && mock.printed("acquired power 2a63"))
        #expect(mock.output.contains("closed after 50 played"), "\(mock.output)")
        #expect(run.errors.contains("closed; reading it through StartNotify"), "\(run.errors)")
        let sent = try Self.notifications(source)
        #expect(run.played == sent.count)
        let got = try Self.notifications(recorded)
        for device in ["hr", "power"] {
            #expect(got.filter { $0.hasPrefix(device + " ") } == sent.filter { $0.hasPrefix(device + " ") })
        }
    }

    @Test func recordWithAcquireNotifyMatchesAReplayOfItsTrace() throws {
        let source = try Self.trace(lines: 300)
        // The power meter offers AcquireNotify (a socket, read by default on BlueZ 5.84), the strap
        // does not (StartNotify).
        let mock = try MockBlueZ(trace: source, acquireNotify: ["power"], bluez: "5.84")
        defer { mock.stop() }
        let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).jsonl")
        let run = try Self.record(
            mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--trace", recorded.path, "--json"] + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.printed("acquired power 2a63"))
        let sent = try Self.notifications(source)
        #expect(run.played == sent.count)
        // Two channels (signals, a socket) keep each sensor's order, not the order between them.
        let got = try Self.notifications(recorded)
        for device in ["hr", "power"] {
            #expect(got.filter { $0.hasPrefix(device + " ") } == sent.filter { $0.hasPrefix(device + " ") }, "\(mock.output)\n\(run.errors)")
        }
        let live = try JSONValue(parsing: run.output)["workout"]
        let replayRun = runCLI(["replay", recorded.path, "--json"] + Self.zones)
        #expect(replayRun.status == .success, "\(replayRun.errors)")
        let replayed = try JSONValue(parsing: replayRun.output)["workout"]
        #expect(live?["statistics"]?["cyclingPower"]?["count"]?.doubleValue ?? 0 > 0)
        #expect(live?["statistics"] == replayed?["statistics"])
        #expect(live?["zoneGroups"] == replayed?["zoneGroups"])
        #expect(live?["duration"] == replayed?["duration"])
    }

    /// Through StartNotify, and through AcquireNotify with the link's `Connected` false first or its
    /// socket's hang-up first (bluetoothd sends them from separate paths): a loss, never a socket
    /// taken for broken on a live link.
    @Test(arguments: [(false, 0), (true, 0), (true, 300)])
    func aPowerMeterThatDropsOutIsReconnectedAndTheGapRecorded(acquireNotify: Bool, hangupFirst: Int) throws {
        let source = try Self.trace(
            lines: 120,
            extra: [
                #"{"t":31,"event":"disconnected","device":"power"}"#, #"{"t":32,"event":"connected","device":"power"}"#,
                #"{"t":33,"device":"power","uuid":"2a63","hex":"20007b0022feab9a"}"#,
                #"{"t":33,"device":"hr","uuid":"2a37","hex":"0678"}"#,
            ])
        let mock = try MockBlueZ(
            trace: source, acquireNotify: acquireNotify ? ["power"] : [], extra: hangupFirst > 0 ? ["--hangup-first", "\(hangupFirst)"] : [])
        defer { mock.stop() }
        let run = try Self.record(
            mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + (acquireNotify ? ["--acquire-notify"] : []) + Self.zones)
        #expect(run.status == .success, "\(run.errors)")
        #expect(!run.errors.contains("closed; reading it through StartNotify") && !run.errors.contains("attempt"), "\(run.errors)")
        #expect(run.played == (try Self.notifications(source)).count, "the mock printed: \(mock.output)")
        // Also the values still waiting in the socket when the link dropped (at speed 0, all of them).
        #expect(run.received == run.played)
        #expect(run.errors.contains("Assioma lost; reconnecting"))
        #expect(run.errors.contains("Assioma reconnected"))
        let events = try JSONValue(parsing: run.output)["workout"]?["events"]?.arrayValue ?? []
        let types = events.compactMap { $0["type"]?.stringValue }
        #expect(types.contains("sensorLost") && types.contains("sensorRegained"), "\(types)")
    }

    @Test func bluezRestartingRebuildsTheMirrorAndReconnects() throws {
        let source = try Self.trace(lines: 40)
        let mock = try MockBlueZ(trace: source)
        defer { mock.stop() }
        let run = try Self.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + Self.zones) {
            try mock.restartBlueZ()
            return mock.waitUntilPlayed(timeout: .seconds(60)) ?? -1
        }
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.played == 2 * (try Self.notifications(source)).count)
        #expect(run.errors.contains("HRM-Pro reconnected") && run.errors.contains("Assioma reconnected"), "\(run.errors)")
        let events = try JSONValue(parsing: run.output)["workout"]?["events"]?.arrayValue ?? []
        #expect(events.filter { $0["type"]?.stringValue == "sensorLost" }.count == 2)
        #expect(events.filter { $0["type"]?.stringValue == "sensorRegained" }.count == 2)
    }

    @Test func losingTheBusEndsTheRecordingAndKeepsTheWorkout() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 40))
        defer { mock.stop() }
        let recording = Recording(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + Self.zones)
        recording.waitForNotifications(try #require(mock.waitUntilPlayed(timeout: .seconds(60))))
        mock.stopBus()
        // Nobody stops the recording: losing the bus does.
        let (status, output, errors) = recording.waitForExit()
        #expect(status == .success, "\(errors)")
        #expect(errors.contains("the system bus connection was lost"), "\(errors)")
        let statistics = try JSONValue(parsing: output)["workout"]?["statistics"]
        #expect((statistics?["heartRate"]?["count"]?.doubleValue ?? 0) > 0)
    }

    @Test func accessDeniedSaysWhichGroup() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10), denyBlueZ: true)
        defer { mock.stop() }
        let run = runCLI(["scan", "--timeout", "0.1"], environment: mock.environment)
        #expect(run.status == .failure)
        #expect(run.errors.contains("permission denied talking to BlueZ"), "\(run.errors)")
        #expect(run.errors.contains("bluetooth group"))
    }

    @Test func pairBondsAndTrusts() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10))
        defer { mock.stop() }
        let run = runCLI(["pair", "C4:7E:11:22:33:44"], environment: mock.environment)
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.output.contains("Paired with HRM-Pro (C4:7E:11:22:33:44) and trusted it."))
        let scan = runCLI(["scan", "--timeout", "0.1", "--json"], environment: mock.environment)
        let sensors = try JSONValue(parsing: scan.output)["sensors"]?.arrayValue ?? []
        #expect(sensors.first { $0["name"]?.stringValue == "HRM-Pro" }?["paired"]?.boolValue == true)
    }

    @Test func pairAnswersTheBondingRequestAsTheAgent() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10), bonding: ["hr"])
        defer { mock.stop() }
        let run = runCLI(["pair", "HRM-Pro"], environment: mock.environment)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.printed("bonded /org/bluez/hci0/dev_C4_7E_11_22_33_44"))
    }

    @Test func bluezNotRunningAndUnknownSensorsSayWhatToDo() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10))
        defer { mock.stop() }
        let unknown = runCLI(["pair", "Nope"], environment: mock.environment)
        #expect(unknown.status == .failure)
        #expect(unknown.errors.contains("no sensor matches 'Nope'; run 'sensorbridge scan'"), "\(unknown.errors)")
        mock.stopBlueZ()
        let run = runCLI(["scan", "--timeout", "0.1"], environment: mock.environment)
        #expect(run.status == .failure)
        #expect(run.errors.contains("BlueZ is not running"), "\(run.errors)")
        #expect(run.errors.contains("systemctl start bluetooth"))
    }

    @Test func aPoweredOffAdapterIsPoweredOn() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10), adapterOff: true)
        defer { mock.stop() }
        let run = runCLI(["scan", "--timeout", "0.1", "--json"], environment: mock.environment)
        #expect(run.status == .success, "\(run.errors)")
        #expect(try JSONValue(parsing: run.output)["adapter"]?.stringValue == "hci0")
    }

    @Test func noSuchAdapter() throws {
        let mock = try MockBlueZ(trace: try Self.trace(lines: 10))
        defer { mock.stop() }
        let run = runCLI(["scan", "--adapter", "hci7"], environment: mock.environment)
        #expect(run.status == .failure)
        #expect(run.errors.contains("no Bluetooth adapter hci7"), "\(run.errors)")
    }
}
