import Foundation
import Glibc
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing

/// The files of `udev/`: the systemd units pass `systemd-analyze verify`, the D-Bus policy is read
/// by a real dbus-daemon and lets through what the commands call, the udev rule is well formed.
@Suite(.serialized)
struct DeploymentFilesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../udev").standardized
    static let systemdAnalyze = "/usr/bin/systemd-analyze"
    static let udevadm = "/usr/bin/udevadm"
    /// The binary this test run built, for ExecStart (systemd-analyze checks that it exists).
    static let binary: String = {
        let built = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sensorbridge").path
        return FileManager.default.isExecutableFile(atPath: built) ? built : "/bin/true"
    }()

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// Runs a program (killed after 60 s); its status and its output and errors together.
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + 60) == .timedOut {
            process.terminate()
            exited.wait()
        }
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }

    /// `systemd-analyze verify` of a unit's text with ExecStart on the built binary, in a folder of
    /// its own; `user` verifies it for a user manager. Its complaints, empty when there are none.
    static func verify(_ unit: String, name: String, user: Bool) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let runtime = directory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent(name)
        try unit.replacingOccurrences(of: "/usr/local/bin/sensorbridge", with: binary).write(
            to: file, atomically: true, encoding: .utf8)
        let run = try Self.run(
            systemdAnalyze, (user ? ["--user"] : []) + ["verify", file.path],
            environment: ["XDG_RUNTIME_DIR": runtime.path])
        return run.status == 0 && run.output.isEmpty ? "" : "status \(run.status): \(run.output)"
    }

    static let units = [("sensorbridge.service", false), ("sensorbridge-user.service", true)]

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: systemdAnalyze),
            "systemd-analyze is missing (Debian package systemd)"))
    func theUnitsVerify() throws {
        for (name, user) in Self.units {
            let unit = try Self.text(name)
            #expect(try Self.verify(unit, name: name, user: user) == "", "\(name)")
            // The check catches a misspelt key and a missing program.
            let typo = unit.replacingOccurrences(of: "NoNewPrivileges=", with: "NoNewPriviliges=")
            #expect(try Self.verify(typo, name: name, user: user).contains("Unknown key"), "\(name)")
            let missing = unit.replacingOccurrences(
                of: "/usr/local/bin/sensorbridge", with: "/nonexistent/sensorbridge")
            #expect(try Self.verify(missing, name: name, user: user).contains("/nonexistent/sensorbridge"), "\(name)")
        }
    }

    /// The unit's settings, `Key=value` lines.
    static func settings(_ unit: String) -> [String: [String]] {
        var settings: [String: [String]] = [:]
        for line in unit.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("[") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return settings
    }

    @Test func theUnitsRunServeAndStopItCleanly() throws {
        for (name, user) in Self.units {
            let s = Self.settings(try Self.text(name))
            #expect(s["ExecStart"] == ["/usr/local/bin/sensorbridge serve"], "\(name)")
            #expect(s["KillSignal"] == ["SIGTERM"] && s["Restart"] == ["on-failure"], "\(name)")
            // Time to finish and save a workout: serve needs well under a second; the default is 90 s.
            #expect(Double(s["TimeoutStopSec"]?.first ?? "") ?? 0 >= 10, "\(name)")
            #expect(s["RestrictAddressFamilies"] == ["AF_UNIX"] && s["NoNewPrivileges"] == ["yes"], "\(name)")
            #expect(s["WantedBy"] == [user ? "default.target" : "multi-user.target"], "\(name)")
            // The words after the program parse as serve's command line.
            let words = s["ExecStart"]!.first!.split(separator: " ").dropFirst().map(String.init)
            #expect(runCLI(words + ["--help"]).status == .success)
        }
        let system = Self.settings(try Self.text("sensorbridge.service"))
        #expect(system["User"] == ["sensorbridge"] && system["SupplementaryGroups"] == ["bluetooth"])
        #expect(system["StateDirectory"] == ["sensorbridge"])
        #expect(system["Environment"] == ["SENSORBRIDGE_STORE=/var/lib/sensorbridge/workouts.sqlite"])
        #expect(
            system["After"]?.first?.contains("bluetooth.service") == true && system["Wants"] == ["bluetooth.service"])
    }

    /// The policy fragment with its group replaced by this process's own, so that it applies here.
    static func policyForThisProcess(removing line: String? = nil) throws -> URL {
        var text = try Self.text("sensorbridge-dbus.conf")
        if let line { text = text.split(separator: "\n").filter { !$0.contains(line) }.joined(separator: "\n") }
        let group = getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) } ?? "root"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).conf")
        try text.replacingOccurrences(of: "group=\"bluetooth\"", with: "group=\"\(group)\"").write(
            to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func thePolicyNamesTheInterfacesTheCommandsCall() throws {
        let text = try Self.text("sensorbridge-dbus.conf")
        let interfaces = text.components(separatedBy: "send_interface=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(
            Set(interfaces) == [
                "org.freedesktop.DBus.ObjectManager", "org.freedesktop.DBus.Properties", "org.bluez.Adapter1",
                "org.bluez.Device1", "org.bluez.GattCharacteristic1", "org.bluez.AgentManager1",
            ])
        #expect(text.contains("<policy group=\"bluetooth\">"))
    }

    @Test(.enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
    func aRealDBusDaemonReadsThePolicyAndItLetsTheCommandsThrough() throws {
        // A bus that refuses every call to org.bluez but what the fragment allows.
        let trace = try BlueZCommandTests.trace(lines: 40)
        let mock = try MockBlueZ(trace: trace, adapterOff: true, policy: try Self.policyForThisProcess())
        defer { mock.stop() }
        let scan = runCLI(["scan", "--timeout", "0.1", "--json"], environment: mock.environment)
        #expect(scan.status == .success, "\(scan.errors)")
        let pair = runCLI(["pair", "HRM-Pro"], environment: mock.environment)
        #expect(pair.status == .success, "\(pair.errors)")
        let record = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"])
        #expect(record.status == .success, "\(record.errors)")
        #expect(record.played == (try BlueZCommandTests.notifications(trace)).count)

        // Without the Adapter1 line, scan is refused and says why.
        let strict = try MockBlueZ(trace: trace, policy: try Self.policyForThisProcess(removing: "org.bluez.Adapter1"))
        defer { strict.stop() }
        let refused = runCLI(["scan", "--timeout", "0.1"], environment: strict.environment)
        #expect(refused.status == .failure)
        #expect(refused.errors.contains("permission denied talking to BlueZ"), "\(refused.errors)")

        // dbus-daemon refuses to start with a misspelt attribute.
        let misspelt = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).conf")
        try (try Self.text("sensorbridge-dbus.conf")).replacingOccurrences(
            of: "send_interface=", with: "send_interfac="
        )
        .write(to: misspelt, atomically: true, encoding: .utf8)
        #expect(throws: MockBlueZ.Failure.self) { _ = try MockBlueZ(trace: trace, policy: misspelt) }
    }

    @Test func installServiceInstallsEveryFileAndReloads() throws {
        let script = Self.folder.appendingPathComponent("../scripts/install-service").standardized.path
        for mode in [[], ["--user"]] {
            let run = try Self.run("/bin/bash", [script, "--print"] + mode)
            #expect(run.status == 0, "\(run.output)")
            let lines = run.output.split(separator: "\n").map { $0.replacingOccurrences(of: "sudo ", with: "") }
            for expected in [
                "install -m 0755 $(swift build -c release --show-bin-path)/sensorbridge /usr/local/bin/sensorbridge",
                "install -m 0644 udev/60-sensorbridge-bluetooth-autosuspend.rules /etc/udev/rules.d/",
                "udevadm control --reload",
                "install -m 0644 udev/sensorbridge-dbus.conf /etc/dbus-1/system.d/sensorbridge.conf",
                mode.isEmpty
                    ? "install -m 0644 udev/sensorbridge.service /etc/systemd/system/sensorbridge.service"
                    : "install -D -m 0644 udev/sensorbridge-user.service \(NSHomeDirectory())/.config/systemd/user/sensorbridge.service",
                mode.isEmpty ? "systemctl daemon-reload" : "systemctl --user daemon-reload",
                mode.isEmpty
                    ? "usermod -aG bluetooth sensorbridge"
                    : "usermod -aG bluetooth \(String(cString: getpwuid(getuid())!.pointee.pw_name))",
            ] {
                #expect(lines.contains(expected), "\(mode): \(expected)")
            }
        }
    }

    @Test func theUdevRuleIsWellFormed() throws {
        let rule = try Self.text("60-sensorbridge-bluetooth-autosuspend.rules")
        let help =
            FileManager.default.isExecutableFile(atPath: Self.udevadm)
            ? try Self.run(Self.udevadm, ["--help"]).output : ""
        if help.contains("verify") {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "60-test-\(UUID().uuidString).rules")
            try rule.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try Self.run(Self.udevadm, ["verify", file.path])
            #expect(run.status == 0, "\(run.output)")
        }
        // Always (udevadm before systemd 254 has no verify): the key and operator syntax.
        #expect(UdevRuleSyntax.problems(in: rule) == [])
        for (typo, problem) in [
            ("SUBSYSTEM==", "SUBSYTEM=="), ("ACTION==", "ACTION="),
            ("ATTR{../power/control}=\"on\"", "ATTR{../power/control}=\"on"),
            ("ATTR{bInterfaceClass}", "ATTR"), ("\", TEST", "\" TEST"),
        ] {
            #expect(UdevRuleSyntax.problems(in: rule.replacingOccurrences(of: typo, with: problem)) != [], "\(problem)")
        }
        // What it does: the USB interface of class e0/01/01 (Bluetooth), its device's power/control on.
        let line = rule.split(separator: "\n").first { !$0.hasPrefix("#") }.map(String.init) ?? ""
        for part in [
            "SUBSYSTEM==\"usb\"", "ENV{DEVTYPE}==\"usb_interface\"", "ATTR{bInterfaceClass}==\"e0\"",
            "ATTR{bInterfaceSubClass}==\"01\"", "ATTR{bInterfaceProtocol}==\"01\"", "ATTR{../power/control}=\"on\"",
        ] {
            #expect(line.contains(part), "\(part)")
        }
    }
}
