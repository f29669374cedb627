import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// Pausing, laps, auto-pause and sensor validity in a live recording, against the mock BlueZ:
/// the dashboard's keys through a pseudo-terminal, auto-pause from the power meter's values, and a
/// strap that loses contact.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct LiveControlTests {
    /// A trace of `seconds` of ride: heart rate every second, power every half second from
    /// `power(t)` (hex of a Cycling Power Measurement), heart rate from `heartRate(t)`.
    static func trace(seconds: Int, heartRate: (Double) -> String = { _ in "0678" }, power: (Double) -> String) throws -> URL {
        var lines = [
            #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"hr":{"name":"HRM-Pro","address":"C4:7E:11:22:33:44"},"power":{"name":"Assioma","address":"E8:FE:6E:91:9F:16"}}}"#
        ]
        for step in 0..<(seconds * 2) {
            let t = Double(step) / 2
            if step % 2 == 0 { lines.append(#"{"t":\#(t),"device":"hr","uuid":"2a37","hex":"\#(heartRate(t))"}"#) }
            lines.append(#"{"t":\#(t),"device":"power","uuid":"2a63","hex":"\#(power(t))"}"#)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static let pedalling = "0000c800"  // 200 W, no crank data
    static let still = "00000000"  // 0 W

    static func events(_ output: String) throws -> [String] {
        (try JSONValue(parsing: output)["workout"]?["events"]?.arrayValue ?? []).compactMap { e in
            guard let type = e["type"]?.stringValue, ["pause", "resume", "lap"].contains(type) else { return nil }
            return "\(type) \(e["cause"]?.stringValue ?? "?")"
        }
    }

    /// 3 s at 0 W pause the ride (auto), pedalling resumes it; on by default with a power meter.
    @Test(.timeLimit(.minutes(10))) func autoPauseAfterThreeStillSecondsResumesOnPedalling() throws {
        let source = try Self.trace(seconds: 14) { t in (4..<10).contains(t) ? Self.still : Self.pedalling }
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"])
        #expect(run.status == .success, "\(run.errors)")
        #expect(try Self.events(run.output) == ["pause auto", "resume auto"], "\(run.output)")
        let workout = try JSONValue(parsing: run.output)["workout"]
        let paused = (workout?["duration"]?.doubleValue ?? 0) - (workout?["activeDuration"]?.doubleValue ?? 0)
        // Still from 4 s to 10 s: paused from about 7 s (3 s after the last movement) to 10 s.
        #expect(paused > 2 && paused < 4.5, "paused \(paused) s")

        // --auto-pause off keeps the clock running.
        let mock2 = try MockBlueZ(trace: source, speed: 4)
        defer { mock2.stop() }
        let off = try BlueZCommandTests.record(mock2, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--auto-pause", "off"])
        #expect(try Self.events(off.output) == [])
    }

    /// A strap that reports no contact for a while (0 bpm, as straps do): those values are no
    /// samples, the time is reported as no contact, and the zones hold none of it past the last
    /// valid value's 5 s hold (the zone rule for any sample).
    @Test(.timeLimit(.minutes(10))) func contactLostIsExcludedFromZonesAndReported() throws {
        // 20 s of ride in real time: contact from 0 to 4 s, none (0 bpm) from 4 to 14 s, contact again.
        let source = try Self.trace(seconds: 20, heartRate: { t in (4..<14).contains(t) ? "0400" : "0678" }) { _ in Self.pedalling }
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(
            mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--hr-zones", "100,110,130,150"])
        #expect(run.status == .success, "\(run.errors)")
        let workout = try #require(try JSONValue(parsing: run.output)["workout"])
        let noContact = try #require(workout["sensors"]?["hr"]?["noContact"]?.doubleValue, "\(workout["sensors"] ?? nil)")
        #expect(noContact > 9 && noContact < 11, "\(noContact)")
        let hr = try #require(workout["statistics"]?["heartRate"])
        #expect(hr["minimum"]?.doubleValue == 120)
        let zoned = (workout["zoneGroups"]?["heartRate"]?["zoneDurations"]?.arrayValue ?? []).compactMap { $0["duration"]?.doubleValue }
        let duration = try #require(workout["duration"]?.doubleValue)
        #expect(zoned.reduce(0, +) <= duration - noContact + 5.5, "zones \(zoned), duration \(duration), no contact \(noContact)")
        #expect(zoned.reduce(0, +) < duration - 4, "zones \(zoned), duration \(duration)")
        let states = (workout["events"]?.arrayValue ?? []).compactMap { e in
            e["type"]?.stringValue == "sensorState" ? "\(e["device"]?.stringValue ?? "") \(e["state"]?.stringValue ?? "")" : nil
        }
        #expect(states.prefix(2) == ["hr noContact", "hr notifying"], "\(states)")
    }

    /// The dashboard as it is on screen, in a real terminal of 60×15 and of 120×40 (tmux, whose
    /// pane is read back as text after it has interpreted every escape code): the sensor lines
    /// always, nothing wider or taller than the terminal, big digits only on the large one.
    @Test(.timeLimit(.minutes(10)), arguments: [(60, 15), (120, 40)])
    func theDashboardFitsTheTerminal(columns: Int, rows: Int) throws {
        let source = try Self.trace(seconds: 60) { _ in Self.pedalling }
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let environment = mock.environment.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let command = "env \(environment) TERM=xterm-256color \(try CrashRecoveryTests.executable().path) record "
            + "--hr HRM-Pro --power Assioma --ftp 250 --hr-zones 100,110,130,150 --target-hr-zone 2 --no-save --duration 40"
        let terminal = try TerminalSession(command, columns: columns, rows: rows)
        let screen = try terminal.screen { screen in
            screen.contains(where: { $0.hasPrefix("Assioma (power)  connected") })
                && screen.contains(where: { $0.hasPrefix("HRM-Pro (hr)  connected") })
                && screen.contains(where: { $0.contains("Ride  avg 120 bpm") })
        }
        let text = screen.joined(separator: "\n")
        #expect(screen.contains { $0.hasPrefix("Assioma (power)  connected") }, "\(text)")
        #expect(screen.contains { $0.hasPrefix("HRM-Pro (hr)  connected") }, "\(text)")
        #expect(screen.contains { $0.hasPrefix("sensorbridge record  0:") }, "\(text)")
        #expect(screen.contains { $0.hasPrefix("Target heart-rate zone 2: ") }, "\(text)")
        #expect(screen.count <= rows && screen.allSatisfy { $0.count <= columns }, "\(text)")
        let big = screen.contains { $0.contains("███") }
        #expect(big == (rows >= 40), "\(text)")
        // 200 W against an FTP of 250.
        #expect(screen.contains { $0.contains("80 % FTP") }, "\(text)")
        if rows >= 40 { #expect(screen.contains { $0.contains("Zone 1") }, "\(text)") }
    }

    /// The dashboard's keys, typed on a pseudo-terminal that is the recording's standard input and
    /// standard error: space pauses, space resumes, `l` marks a lap, `q` ends and saves.
    /// `record --raise-max-hr`: 190 bpm held for 33 s (at real time: the workout's time is the
    /// arrivals'), above the 180 the profile's age gives, makes 190 the stored profile's maximum
    /// once the workout is saved.
    @Test(.timeLimit(.minutes(10))) func aHeartRateHeldAboveTheMaximumRaisesIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("raise-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("w.sqlite").path
        #expect(runCLI(["profile", "set", "--age", "40", "--resting-hr", "50", "--store", store]).status == .success)
        let source = try Self.trace(seconds: 33, heartRate: { _ in "06be" }) { _ in Self.pedalling }
        defer { try? FileManager.default.removeItem(at: source) }
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--raise-max-hr", "--store", store])
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("maximum heart rate raised to 190 bpm (held for 30 s; it was 180 bpm)"), "\(run.errors)")
        let profile = try JSONValue(parsing: runCLI(["profile", "show", "--json", "--store", store]).output)
        #expect(profile["maximumHeartRate"] == 190, "\(profile)")
    }

    @Test(.timeLimit(.minutes(10))) func dashboardKeysPauseResumeLapAndEnd() throws {
        let source = try Self.trace(seconds: 40) { _ in Self.pedalling }
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let recording = try DashboardRecording(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--no-save"])
        let terminal = recording.terminal
        // Both sensors connected and drawn before the keys.
        #expect(terminal.waitFor("Assioma (power)  connected", timeout: .seconds(20)), "\(terminal.screen.suffix(2000))")
        #expect(terminal.waitFor("space pause/resume", timeout: .seconds(5)))
        Thread.sleep(forTimeInterval: 1)
        terminal.type(" ")
        #expect(terminal.waitFor("PAUSED", timeout: .seconds(5)), "\(terminal.screen.suffix(2000))")
        Thread.sleep(forTimeInterval: 1)
        terminal.type(" ")
        Thread.sleep(forTimeInterval: 0.5)
        terminal.type("l")
        #expect(terminal.waitFor("lap 2", timeout: .seconds(5)))
        terminal.type("q")
        let (status, text) = recording.finish()
        #expect(status == 0)
        #expect(try Self.events(text) == ["pause manual", "resume manual", "lap manual"], "\(text)")
    }

    /// `n` on the dashboard of `record --activities cycling,running` begins the transition, then
    /// the run; the dashboard names each, and the saved workout has the three activities. The
    /// switches are written to the trace: its replay has the same activities, begun at the same times.
    @Test(.timeLimit(.minutes(10))) func theDashboardsKeyBeginsTheNextActivity() throws {
        let source = try Self.trace(seconds: 40) { _ in Self.pedalling }
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let written = FileManager.default.temporaryDirectory.appendingPathComponent("activities-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: written) }
        let recording = try DashboardRecording(
            mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--no-save", "--activities", "cycling,running", "--trace", written.path])
        let terminal = recording.terminal
        #expect(terminal.waitFor("Assioma (power)  connected", timeout: .seconds(20)), "\(terminal.screen.suffix(2000))")
        #expect(terminal.waitFor("n transition", timeout: .seconds(5)), "\(terminal.screen.suffix(2000))")
        Thread.sleep(forTimeInterval: 1)
        terminal.type("n")
        #expect(terminal.waitFor("Activity 2  transition", timeout: .seconds(5)), "\(terminal.screen.suffix(2000))")
        Thread.sleep(forTimeInterval: 1)
        terminal.type("n")
        #expect(terminal.waitFor("Activity 3  running", timeout: .seconds(5)), "\(terminal.screen.suffix(2000))")
        terminal.type("n")
        #expect(terminal.waitFor("no activity comes next", timeout: .seconds(5)), "\(terminal.screen.suffix(2000))")
        terminal.type("q")
        let (status, json) = recording.finish()
        #expect(status == 0)
        let workout = try JSONValue(parsing: json)["workout"]
        #expect(workout?["activities"]?.arrayValue?.compactMap { $0["activityType"]?.stringValue } == ["cycling", "transition", "running"])
        let replayed = runCLI(["replay", written.path, "--json"], environment: ["TZ": "UTC"])
        #expect(replayed.status == .success, "\(replayed.errors)")
        let again = try JSONValue(parsing: replayed.output)["workout"]
        // Each activity's type and start: the trace keeps times to the millisecond, as the JSON does.
        let instants = ISO8601DateFormatter()
        instants.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func activities(_ workout: JSONValue?) -> [(type: String, start: Date)] {
            (workout?["activities"]?.arrayValue ?? []).map {
                ($0["activityType"]?.stringValue ?? "", $0["start"]?.stringValue.flatMap(instants.date(from:)) ?? .distantPast)
            }
        }
        let (live, replayedActivities) = (activities(workout), activities(again))
        #expect(replayedActivities.map(\.type) == live.map(\.type) && live.count == 3, "\(replayedActivities) \(live)")
        #expect(
            zip(live, replayedActivities).allSatisfy { abs($0.start.timeIntervalSince($1.start)) <= 0.002 }, "\(replayedActivities) \(live)")
    }
}

/// `sensorbridge record ARGUMENTS` (the built binary) on `mock`, with a pseudo-terminal as its
/// standard input and error (the dashboard and its keys); its standard output (the JSON) is read
/// by `finish`. Killed if it still runs when let go (a test that failed half way).
final class DashboardRecording {
    let terminal: PseudoTerminal
    private let child = Process()
    private let output = ChildLaunch.pipe()

    init(_ mock: MockBlueZ, _ arguments: [String]) throws {
        terminal = try PseudoTerminal()
        child.executableURL = try CrashRecoveryTests.executable()
        child.arguments = ["record"] + arguments
        child.environment = mock.environment.merging(["TERM": "xterm", "COLUMNS": "100", "LINES": "50"]) { $1 }
        child.standardInput = terminal.follower
        child.standardError = terminal.follower
        child.standardOutput = output
        try ChildLaunch.run(child)
    }

    /// Waits for the recording to end: its exit status and what it printed on standard output.
    func finish() -> (status: Int32, output: String) {
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    deinit {
        guard child.isRunning else { return }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
    }
}

/// A pseudo-terminal for a child process: `follower` is its terminal; what it draws is read into
/// `screen` on a thread of its own (a terminal nobody reads fills up and blocks its writer).
final class PseudoTerminal: Sendable {
    let follower: FileHandle
    private let leader: Int32
    private let drawn = Drawn()

    private final class Drawn: Sendable {
        let text = Mutex("")
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    init() throws {
        // posix_openpt, unlockpt and ptsname as Linux's devpts does them (Glibc's declarations are
        // not imported): /dev/ptmx, then TIOCSPTLCK (unlock) and TIOCGPTN (its number), whose
        // values are the kernel's ABI (_IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int)).
        leader = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard leader >= 0, ioctl(leader, 0x4004_5431, &unlock) == 0, ioctl(leader, 0x8004_5430, &number) == 0 else {
            throw Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let name = "/dev/pts/\(number)"
        // Close-on-exec: a child is given the terminal as its standard input or error (a copy that
        // does not close), never passed the descriptor itself.
        let descriptor = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: "cannot open \(name)") }
        follower = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let leader = leader
        Thread.detachNewThread { [drawn] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(leader, &buffer, buffer.count)
                guard count > 0 else { return }
                let chunk = String(decoding: buffer[..<count], as: UTF8.self)
                drawn.text.withLock { $0 += chunk }
            }
        }
    }

    deinit { close(leader) }

    var screen: String { drawn.text.withLock { $0 } }

    func type(_ keys: String) {
        let bytes = Array(keys.utf8)
        _ = bytes.withUnsafeBufferPointer { write(leader, $0.baseAddress, $0.count) }
    }

    /// Waits until `needle` has been drawn.
    func waitFor(_ needle: String, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if drawn.text.withLock({ $0.contains(needle) }) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}
