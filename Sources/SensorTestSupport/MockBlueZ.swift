public import Foundation
import Synchronization

/// A private `dbus-daemon` and a mock `org.bluez` on it (`scripts/mock-bluez.py`, built on
/// python-dbusmock) that plays a JSONL trace's notifications. Both processes are this object's:
/// `stop()` (or `deinit`) ends them, with time limits, by their own process ids.
public final class MockBlueZ: Sendable {
    /// The bus address to give as `DBUS_SYSTEM_BUS_ADDRESS`.
    public let address: String
    public let directory: URL
    private let daemon: ChildProcess
    private let mock: Mutex<ChildProcess>
    private let mockArguments: [String]

    public static let python = "/usr/bin/python3"
    public static let daemonPath = "/usr/bin/dbus-daemon"

    /// Why the mock cannot run here (nil when it can): dbus-daemon or python3-dbusmock is absent.
    public static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: daemonPath) else {
            return "dbus-daemon is not installed (Debian package dbus)"
        }
        guard let imports = try? pythonImports("dbusmock, gi", python: python) else {
            return "\(python) is not installed"
        }
        return imports ? nil : "python3-dbusmock is not installed (Debian package python3-dbusmock)"
    }()

    /// Whether `python` imports `modules` (a comma-separated list); throws when it does not run.
    public static func pythonImports(_ modules: String, python: String) throws -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import \(modules)"]
        probe.standardError = FileHandle.nullDevice
        try ChildLaunch.run(probe)
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// The default policy of Debian's system bus (/usr/share/dbus-1/system.conf, dbus 1.14): anyone
    /// may connect; method calls and owning names are refused unless a policy allows them; signals,
    /// replies to calls and receiving are allowed, and so is talking to the bus itself.
    public static let systemBusDefaults = """
          <policy context="default">
            <allow user="*"/>
            <deny own="*"/>
            <deny send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
            <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus" send_member="UpdateActivationEnvironment"/>
          </policy>
        """

    /// The mock's script, beside this package's sources.
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/mock-bluez.py")

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts the bus and the mock. `speed` 0 plays as fast as possible; `denyBlueZ` makes the
    /// bus refuse every call to org.bluez (AccessDenied, as a strict system policy does); `policy`
    /// is a D-Bus policy file included by a bus whose defaults are the system bus's
    /// (`systemBusDefaults`: method calls refused unless a policy allows them), with the mock's
    /// user allowed what BlueZ's own policy allows bluetoothd (owning org.bluez, calling agents);
    /// `paired` makes the sensors paired already; `stamp`
    /// appends the send time to each notification (`LatencyProbe`); the `bonding` devices (trace
    /// keys) ask for bonding when paired, through the agent registered with AgentManager1; the
    /// `acquireNotify` devices' measurements offer AcquireNotify (a socket pair); the
    /// `notifyInProgress` devices answer their first StartNotify with InProgress, the `silent`
    /// devices send nothing on their first subscription, the `notifyFails` devices' StartNotify
    /// fails (NotPermitted); the AcquireNotify socket that carries the `closeSocketAfter`-th value
    /// closes, its device staying connected; `bluez` is the bluetoothd release whose behaviours the
    /// mock plays (its `--bluez-version`; 5.66 when nil, Debian 12's). A device that comes back in
    /// range is reconnected by the mock only when a registered GattProfile1 names one of its
    /// services, as by bluetoothd.
    public init(
        trace: URL, speed: Double = 0, adapterOff: Bool = false, denyBlueZ: Bool = false, policy: URL? = nil,
        paired: Bool = false, stamp: Bool = false, bonding: [String] = [], acquireNotify: [String] = [],
        notifyInProgress: [String] = [], silent: [String] = [], notifyFails: [String] = [],
        closeSocketAfter: Int? = nil, bluez: String? = nil, extra: [String] = []
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        let rules: String
        if let policy {
            rules = """
                \(Self.systemBusDefaults)
                  <policy user="\(getuid())">
                    <allow own="org.bluez"/>
                    <allow send_interface="org.bluez.Agent1"/>
                    <allow send_interface="org.bluez.GattCharacteristic1"/>
                    <allow send_interface="org.bluez.LEAdvertisement1"/>
                    <allow send_interface="org.freedesktop.DBus.ObjectManager" send_path="/org/sensorbridge/relay"/>
                    <allow send_interface="org.freedesktop.DBus.ObjectManager" send_path="/org/sensorbridge/profile"/>
                    <allow send_interface="org.freedesktop.DBus.Properties" send_path="/org/sensorbridge/relay/advertisement0"/>
                  </policy>
                  <include>\(policy.path)</include>
                """
        } else {
            let allow = ["send_type=\"method_call\"", "send_type=\"signal\"", "send_type=\"method_return\"",
                "send_type=\"error\"", "receive_type=\"method_call\"", "receive_type=\"signal\"",
                "receive_type=\"method_return\"", "receive_type=\"error\"", "own=\"*\"", "user=\"*\""]
            let deny = denyBlueZ ? "\n    <deny send_destination=\"org.bluez\"/>" : ""
            rules = """
                  <policy context="default">
                \(allow.map { "    <allow \($0)/>" }.joined(separator: "\n"))\(deny)
                  </policy>
                """
        }
        try """
            <busconfig>
              <listen>unix:path=\(directory.path)/bus</listen>
              <auth>EXTERNAL</auth>
            \(rules)
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        daemon = try ChildProcess(
            Self.daemonPath, ["--config-file=\(config.path)", "--nofork", "--print-address=1"], environment: [:])
        guard let line = daemon.waitForLine(timeout: .seconds(10), where: { $0.hasPrefix("unix:") }) else {
            daemon.stop()
            throw Failure(description: "dbus-daemon did not print its address: \(daemon.output)")
        }
        address = line
        var arguments = [Self.script.path, "--trace", trace.path, "--speed", String(speed)]
        if adapterOff { arguments.append("--adapter-off") }
        if paired { arguments.append("--paired") }
        if stamp { arguments.append("--stamp") }
        for key in bonding { arguments += ["--bonding", key] }
        for key in acquireNotify { arguments += ["--acquire-notify", key] }
        for key in notifyInProgress { arguments += ["--notify-in-progress", key] }
        for key in silent { arguments += ["--silent", key] }
        for key in notifyFails { arguments += ["--notify-fails", key] }
        if let closeSocketAfter { arguments += ["--close-socket-after", String(closeSocketAfter)] }
        if let bluez { arguments += ["--bluez-version", bluez] }
        arguments += extra
        mockArguments = arguments
        let mock = try Self.startMock(arguments, address: address)
        guard mock.waitForLine(timeout: .seconds(20), where: { $0 == "ready" }) != nil else {
            mock.stop()
            daemon.stop()
            throw Failure(description: "the mock org.bluez did not start: \(mock.output)")
        }
        self.mock = Mutex(mock)
    }

    private static func startMock(_ arguments: [String], address: String) throws -> ChildProcess {
        try ChildProcess(python, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
    }

    /// BlueZ restarts: the mock stops and a new one takes `org.bluez` (a new owner), with the
    /// same objects, and plays the trace again once notifications start.
    public func restartBlueZ() throws {
        stopBlueZ()
        let fresh = try Self.startMock(mockArguments, address: address)
        mock.withLock { $0 = fresh }
        guard fresh.waitForLine(timeout: .seconds(20), where: { $0 == "ready" }) != nil else {
            throw Failure(description: "the mock org.bluez did not start again: \(fresh.output)")
        }
    }

    /// The environment a bridge needs to talk to this bus.
    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// Everything the mock printed (standard output and error), for a failing test's message.
    public var output: String { mock.withLock { $0 }.output }

    /// Whether the mock printed `line` (it prints `bonded PATH` when a device bonded through the
    /// agent), waiting up to `timeout` for it: the mock prints before it answers the call, but its
    /// output reaches the test through a pipe and a reader thread, which may not have read it yet.
    public func printed(_ line: String, timeout: Duration = .seconds(5)) -> Bool {
        printedLine(timeout: timeout) { $0 == line } != nil
    }

    /// The first line the mock printed that satisfies `predicate`, waiting up to `timeout` for it
    /// (nil once the mock has exited without printing one).
    public func printedLine(timeout: Duration = .seconds(5), where predicate: (String) -> Bool) -> String? {
        mock.withLock { $0 }.waitForLine(timeout: timeout, where: predicate)
    }

    /// How many notifications the mock played, once it has played the whole trace (the `round`th
    /// time, after `replugAdapter`).
    public func waitUntilPlayed(timeout: Duration, round: Int = 1) -> Int? {
        let current = mock.withLock { $0 }
        return current.waitForLine(timeout: timeout, occurrence: round, where: { $0.hasPrefix("played ") })
            .flatMap { Int($0.dropFirst(7)) }
    }

    /// The adapter is unplugged: its objects vanish (InterfacesRemoved) and the links with them.
    public func unplugAdapter() throws {
        let current = mock.withLock { $0 }
        let before = current.output.split(separator: "\n").filter { $0 == "unplugged" }.count
        current.send(SIGUSR1)
        guard current.waitForLine(timeout: .seconds(10), occurrence: before + 1, where: { $0 == "unplugged" }) != nil else {
            throw Failure(description: "the mock did not unplug its adapter: \(current.output)")
        }
    }

    /// The adapter is back, its sensors known and disconnected; the trace plays again once they notify.
    public func replugAdapter() { mock.withLock { $0 }.send(SIGUSR2) }

    /// Stops the mock alone (BlueZ goes away); the bus stays.
    public func stopBlueZ() { mock.withLock { $0 }.stop() }

    /// The bus itself goes away (dbus-daemon stops; the mock with it): every connection is lost.
    public func stopBus() {
        daemon.stop()
        stopBlueZ()
    }

    public func stop() {
        stopBlueZ()
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

/// A child process whose standard output is collected line by line.
///
/// Foundation's `Process` on Linux starts children with almost every signal blocked (the mask of
/// its launching thread), so SIGTERM would wait for SIGKILL; the child is started through a
/// one-line Python `exec` that clears the mask first.
public final class ChildProcess: Sendable {
    private let process: Process
    private let lines = Mutex<[String]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    public init(_ path: String, _ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MockBlueZ.python)
        process.arguments =
            ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])", path]
            + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = ChildLaunch.pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        self.process = process
        process.terminationHandler = { [exited] _ in exited.signal() }
        let handle = pipe.fileHandleForReading
        let reader = Thread { [self] in
            var pending: [UInt8] = []
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                pending += data
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    self.lines.withLock { $0.append(line) }
                    self.arrived.signal()
                }
            }
        }
        try ChildLaunch.run(process)
        reader.start()
    }

    /// The process id (`/proc/PID/...`); another process's once this one has exited and been reaped.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// The exit status, or the number of the signal that ended it; once it has exited.
    public var terminationStatus: Int32 { process.terminationStatus }

    /// The signal that ended the process, or nil when it exited (or runs); once it has exited.
    public var terminatingSignal: Int32? {
        !process.isRunning && process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
    }

    /// Waits up to `timeout` for the process to exit; whether it has.
    public func waitForExit(timeout: Duration) -> Bool {
        guard exited.wait(timeout: .now() + timeout.seconds) == .success else { return false }
        exited.signal()  // for the next wait
        return true
    }

    /// Everything printed so far.
    public var output: String { lines.withLock { $0.joined(separator: "\n") } }

    /// Waits for the `occurrence`th line that satisfies `predicate`; nil after `timeout`, or once
    /// the process has exited without printing it.
    public func waitForLine(timeout: Duration, occurrence: Int = 1, where predicate: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let exited = !process.isRunning
            if let line = lines.withLock({ $0.lazy.filter(predicate).dropFirst(occurrence - 1).first }) { return line }
            let left = deadline - .now
            if left <= .zero || exited { return nil }
            _ = arrived.wait(timeout: .now() + min(left.seconds, 0.2))
        }
    }

    /// Sends a signal (SIGUSR1, say) to the process, unless it has exited.
    public func send(_ signal: Int32) {
        guard !waitForExit(timeout: .zero) else { return }
        kill(process.processIdentifier, signal)
    }

    /// SIGTERM, then SIGKILL after `grace`; waits for the exit.
    public func stop(grace: Duration = .seconds(2)) {
        let first = stopped.withLock { s in
            defer { s = true }
            return !s
        }
        // One that has exited (and been reaped) is not signalled: its id may be another's by now.
        guard first, !waitForExit(timeout: .zero) else { return }
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        if exited.wait(timeout: .now() + grace.seconds) == .timedOut {
            kill(pid, SIGKILL)
            exited.wait()
        }
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
