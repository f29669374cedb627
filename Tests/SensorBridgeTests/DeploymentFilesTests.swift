import Foundation
import Glibc
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

/// The files of `udev/`: the systemd units pass `systemd-analyze verify`, the D-Bus policy is read
/// by a real dbus-daemon and lets through what the commands call and nothing else, the udev rule
/// is well formed.
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
        try ChildLaunch.run(process)
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

    /// The policy fragment with its group replaced by `group` (this process's own by default), so
    /// that it applies to a process of that group; `removing` leaves out the lines containing it.
    static func policy(removing line: String? = nil, group: String? = nil) throws -> URL {
        var text = try Self.text("sensorbridge-dbus.conf")
        if let line { text = text.split(separator: "\n").filter { !$0.contains(line) }.joined(separator: "\n") }
        let group = group ?? getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) } ?? "root"
        return try Self.temporaryPolicy(text.replacingOccurrences(of: "group=\"bluetooth\"", with: "group=\"\(group)\""))
    }

    static func temporaryPolicy(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).conf")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The org.bluez methods sensorbridge calls, as `Interface.Member`: what the policy allows.
    static let calledMethods: Set<String> = [
        "org.freedesktop.DBus.ObjectManager.GetManagedObjects",
        "org.bluez.Adapter1.SetDiscoveryFilter", "org.bluez.Adapter1.StartDiscovery", "org.bluez.Adapter1.StopDiscovery",
        "org.bluez.Device1.Connect", "org.bluez.Device1.Disconnect", "org.bluez.Device1.Pair",
        "org.bluez.GattCharacteristic1.StartNotify", "org.bluez.GattCharacteristic1.StopNotify",
        "org.bluez.GattCharacteristic1.AcquireNotify", "org.bluez.GattCharacteristic1.ReadValue",
        "org.bluez.AgentManager1.RegisterAgent", "org.bluez.AgentManager1.RequestDefaultAgent",
        "org.bluez.AgentManager1.UnregisterAgent",
        "org.bluez.GattManager1.RegisterApplication", "org.bluez.GattManager1.UnregisterApplication",
        "org.bluez.LEAdvertisingManager1.RegisterAdvertisement", "org.bluez.LEAdvertisingManager1.UnregisterAdvertisement",
    ]

    /// The value of `attribute` in an XML element's text, or nil.
    static func attribute(_ attribute: String, in element: Substring) -> String? {
        let element = " " + element
        guard let start = element.range(of: " \(attribute)=\"") else { return nil }
        return String(element[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test func thePolicyAllowsExactlyTheMethodsTheCommandsCall() throws {
        let text = try Self.text("sensorbridge-dbus.conf")
        #expect(text.contains("<policy group=\"bluetooth\">"))
        let rules = text.components(separatedBy: "<allow ").dropFirst().map { $0.prefix { $0 != ">" } }
        let sends = rules.filter { $0.contains("send_") }
        // Each send rule names the destination, the interface and the method: nothing wider.
        for rule in sends {
            #expect(Self.attribute("send_destination", in: rule) == "org.bluez", "\(rule)")
            #expect(Self.attribute("send_interface", in: rule) != nil && Self.attribute("send_member", in: rule) != nil, "\(rule)")
        }
        let allowed = sends.map { "\(Self.attribute("send_interface", in: $0) ?? "").\(Self.attribute("send_member", in: $0) ?? "")" }
        #expect(allowed.count == Set(allowed).count)
        #expect(Set(allowed) == Self.calledMethods)
        // No property setting or reading on BlueZ: Properties.Set cannot be limited to one property.
        #expect(!sends.contains { $0.contains("org.freedesktop.DBus.Properties") })
        // The receive rules: BlueZ calling the pairing agent, the relay's objects and the
        // auto-connect profile's, each from org.bluez and, but for the characteristics (one path
        // each), at its path.
        let receives = rules.filter { $0.contains("receive_") }
        let called = receives.map { "\(Self.attribute("receive_interface", in: $0) ?? "") \(Self.attribute("receive_path", in: $0) ?? "*")" }
        #expect(
            called == [
                "org.bluez.Agent1 \(Self.agentPath)", "org.freedesktop.DBus.ObjectManager /org/sensorbridge/relay",
                "org.freedesktop.DBus.ObjectManager /org/sensorbridge/profile", "org.bluez.GattProfile1 /org/sensorbridge/profile/sensors",
                "org.bluez.GattCharacteristic1 *", "org.bluez.LEAdvertisement1 /org/sensorbridge/relay/advertisement0",
                "org.freedesktop.DBus.Properties /org/sensorbridge/relay/advertisement0",
            ])
        #expect(receives.allSatisfy { Self.attribute("receive_sender", in: $0) == "org.bluez" })
        #expect(!text.contains("<deny") && !text.contains("own="))
    }

    @Test(.enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
    func aRealDBusDaemonReadsThePolicyAndItLetsTheCommandsThrough() throws {
        // A bus with the system bus's defaults (method calls refused) and the fragment.
        let trace = try BlueZCommandTests.trace(lines: 40)
        let policy = try Self.policy()
        defer { try? FileManager.default.removeItem(at: policy) }
        let mock = try MockBlueZ(trace: trace, policy: policy, bonding: ["hr"])
        defer { mock.stop() }
        let scan = runCLI(["scan", "--timeout", "0.1", "--json"], environment: mock.environment)
        #expect(scan.status == .success, "\(scan.errors)")
        // Pairing through the agent works; marking the sensor trusted (a property) is refused, and said.
        let pair = runCLI(["pair", "HRM-Pro"], environment: mock.environment)
        #expect(pair.status == .success, "\(pair.errors)")
        #expect(mock.printed("bonded /org/bluez/hci0/dev_C4_7E_11_22_33_44"), "\(mock.output)")
        #expect(pair.output.contains("Paired with HRM-Pro (C4:7E:11:22:33:44)."), "\(pair.output)")
        #expect(pair.errors.contains("HRM-Pro is not marked trusted"), "\(pair.errors)")
        let record = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--auto-connect"])
        #expect(record.status == .success, "\(record.errors)")
        #expect(record.played == (try BlueZCommandTests.notifications(trace)).count)
        // BlueZ reads the sensors' auto-connect profile (`--auto-connect`), and it is unregistered at the end.
        #expect(mock.printed("profile registered: 180d 1818") && mock.printed("profile unregistered: 180d 1818"), "\(mock.output)")
        let acquiring = try MockBlueZ(trace: trace, policy: policy, acquireNotify: ["hr", "power"])
        defer { acquiring.stop() }
        let acquired = try BlueZCommandTests.record(
            acquiring, ["--hr", "HRM-Pro", "--power", "Assioma", "--acquire-notify", "--json"])
        #expect(acquired.status == .success, "\(acquired.errors)")
        #expect(acquiring.output.contains("acquired hr 2a37"), "\(acquiring.output)")

        // The relay registers its application and advertisement, and BlueZ reads and subscribes to it.
        let relaying = try MockBlueZ(trace: trace, policy: policy)
        defer { relaying.stop() }
        let relayed = try BlueZCommandTests.record(relaying, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box"])
        #expect(relayed.status == .success, "\(relayed.errors)")
        #expect(relaying.printed("relay subscribed 2a37 1") && relaying.printed("advertising Box: 180d 1818 (discoverable)"), "\(relaying.output)")
        // Without the RegisterApplication line: refused, saying what to install.
        let withoutRelay = try Self.policy(removing: "RegisterApplication")
        defer { try? FileManager.default.removeItem(at: withoutRelay) }
        let unrelayed = try MockBlueZ(trace: trace, policy: withoutRelay)
        defer { unrelayed.stop() }
        let refusedRelay = runCLI(["relay", "--hr", "HRM-Pro", "--duration", "5"], environment: unrelayed.environment)
        #expect(refusedRelay.status == .failure)
        #expect(refusedRelay.errors.contains("the D-Bus policy does not let this user offer sensors"), "\(refusedRelay.errors)")

        // An adapter that is off cannot be switched on (that is setting a property): said so.
        let off = try MockBlueZ(trace: trace, adapterOff: true, policy: policy)
        defer { off.stop() }
        let dark = runCLI(["scan", "--timeout", "0.1"], environment: off.environment)
        #expect(dark.status == .failure)
        #expect(dark.errors.contains("hci0 is off, and the bus policy does not let this user switch it on"), "\(dark.errors)")

        // Without its StartDiscovery line, scan is refused and says why.
        let withoutDiscovery = try Self.policy(removing: "StartDiscovery")
        defer { try? FileManager.default.removeItem(at: withoutDiscovery) }
        let strict = try MockBlueZ(trace: trace, policy: withoutDiscovery)
        defer { strict.stop() }
        let refused = runCLI(["scan", "--timeout", "0.1"], environment: strict.environment)
        #expect(refused.status == .failure)
        #expect(refused.errors.contains("permission denied talking to BlueZ"), "\(refused.errors)")

        // dbus-daemon refuses to start with a misspelt attribute.
        let misspelt = try Self.temporaryPolicy(
            try Self.text("sensorbridge-dbus.conf").replacingOccurrences(of: "send_member=", with: "send_membr="))
        defer { try? FileManager.default.removeItem(at: misspelt) }
        #expect(throws: MockBlueZ.Failure.self) { _ = try MockBlueZ(trace: trace, policy: misspelt) }
    }

    /// The user the probe runs as, when this process may switch to it (root, setpriv, a `nobody`).
    static let probeUser: (uid: uid_t, gid: gid_t, group: String)? = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv), let user = getpwnam("nobody"),
            let group = getgrgid(user.pointee.pw_gid)
        else { return nil }
        return (user.pointee.pw_uid, user.pointee.pw_gid, String(cString: group.pointee.gr_name))
    }()
    static let setpriv = "/usr/bin/setpriv"

    /// Runs `scripts/bluez-policy-probe.py` as `probeUser` (no other groups) on `mock`'s bus: the
    /// user it ran as, and each call's answer by name.
    static func probe(_ mock: MockBlueZ, _ calls: [JSONValue]) throws -> (uid: Int?, answers: [String: String]) {
        let user = try #require(probeUser)
        let script = try String(
            contentsOf: MockBlueZ.script.deletingLastPathComponent().appendingPathComponent("bluez-policy-probe.py"),
            encoding: .utf8)
        let child = try ChildProcess(
            setpriv,
            ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", MockBlueZ.python, "-c", script,
                JSONValue.array(calls).serialized],
            environment: mock.environment)
        defer { child.stop() }
        try #require(child.waitForExit(timeout: .seconds(60)), "the probe did not finish: \(child.output)")
        #expect(child.terminationStatus == 0, "\(child.output)")
        let lines = try child.output.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        var answers: [String: String] = [:]
        for line in lines.dropFirst() {
            if let call = line["call"]?.stringValue { answers[call] = line["answer"]?.stringValue }
        }
        #expect(answers.count == calls.count, "\(child.output)")
        return (lines.first?["uid"]?.integerValue, answers)
    }

    static func call(
        _ name: String, _ path: String, _ interface: String, _ member: String, _ signature: String = "",
        _ arguments: [JSONValue] = []
    ) -> JSONValue {
        .object([
            "name": .string(name), "path": .string(path), "interface": .string(interface), "member": .string(member),
            "signature": .string(signature), "args": .array(arguments),
        ])
    }

    static let adapterPath = "/org/bluez/hci0"
    /// Where `pair` exports its agent (`PairingAgent.path`).
    static let agentPath = "/org/sensorbridge/agent"
    static let devicePath = "/org/bluez/hci0/dev_C4_7E_11_22_33_44"
    /// The strap's Heart Rate Measurement in the mock (its first service and characteristic).
    static let measurementPath = devicePath + "/service000c/char000e"

    /// Every call sensorbridge makes to org.bluez, each named after its method.
    static let neededCalls: [JSONValue] = [
        call("org.freedesktop.DBus.ObjectManager.GetManagedObjects", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"),
        call("org.bluez.Adapter1.SetDiscoveryFilter", adapterPath, "org.bluez.Adapter1", "SetDiscoveryFilter", "a{sv}", [.object(["Transport": "le"])]),
        call("org.bluez.Adapter1.StartDiscovery", adapterPath, "org.bluez.Adapter1", "StartDiscovery"),
        call("org.bluez.Adapter1.StopDiscovery", adapterPath, "org.bluez.Adapter1", "StopDiscovery"),
        call("org.bluez.Device1.Connect", devicePath, "org.bluez.Device1", "Connect"),
        call("org.bluez.Device1.Disconnect", devicePath, "org.bluez.Device1", "Disconnect"),
        call("org.bluez.Device1.Pair", devicePath, "org.bluez.Device1", "Pair"),
        call("org.bluez.GattCharacteristic1.AcquireNotify", measurementPath, "org.bluez.GattCharacteristic1", "AcquireNotify", "a{sv}", [.object([:])]),
        call("org.bluez.GattCharacteristic1.StartNotify", measurementPath, "org.bluez.GattCharacteristic1", "StartNotify"),
        call("org.bluez.GattCharacteristic1.StopNotify", measurementPath, "org.bluez.GattCharacteristic1", "StopNotify"),
        call("org.bluez.GattCharacteristic1.ReadValue", measurementPath, "org.bluez.GattCharacteristic1", "ReadValue", "a{sv}", [.object([:])]),
        call("org.bluez.AgentManager1.RegisterAgent", "/org/bluez", "org.bluez.AgentManager1", "RegisterAgent", "os", [.string(agentPath), "NoInputNoOutput"]),
        call("org.bluez.AgentManager1.RequestDefaultAgent", "/org/bluez", "org.bluez.AgentManager1", "RequestDefaultAgent", "o", [.string(agentPath)]),
        call("org.bluez.AgentManager1.UnregisterAgent", "/org/bluez", "org.bluez.AgentManager1", "UnregisterAgent", "o", [.string(agentPath)]),
        call("org.bluez.GattManager1.RegisterApplication", adapterPath, "org.bluez.GattManager1", "RegisterApplication", "oa{sv}", [.string("/org/sensorbridge/relay"), .object([:])]),
        call("org.bluez.GattManager1.UnregisterApplication", adapterPath, "org.bluez.GattManager1", "UnregisterApplication", "o", [.string("/org/sensorbridge/relay")]),
        call("org.bluez.LEAdvertisingManager1.RegisterAdvertisement", adapterPath, "org.bluez.LEAdvertisingManager1", "RegisterAdvertisement", "oa{sv}", [.string("/org/sensorbridge/relay/advertisement0"), .object([:])]),
        call("org.bluez.LEAdvertisingManager1.UnregisterAdvertisement", adapterPath, "org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", "o", [.string("/org/sensorbridge/relay/advertisement0")]),
    ]

    /// Calls sensorbridge does not make, which a member of the group could otherwise use to change
    /// the adapter or disturb other people's devices. RemoveDevice last: it removes the strap.
    static let unneededCalls: [JSONValue] = [
        call("WriteValue", measurementPath, "org.bluez.GattCharacteristic1", "WriteValue", "aya{sv}", [[1], .object([:])]),
        call("Set Adapter1.Alias", adapterPath, "org.freedesktop.DBus.Properties", "Set", "ssv", ["org.bluez.Adapter1", "Alias", "mine now"]),
        call("Set Adapter1.Discoverable", adapterPath, "org.freedesktop.DBus.Properties", "Set", "ssv", ["org.bluez.Adapter1", "Discoverable", true]),
        call("Set Adapter1.Powered", adapterPath, "org.freedesktop.DBus.Properties", "Set", "ssv", ["org.bluez.Adapter1", "Powered", false]),
        call("Set Device1.Alias", devicePath, "org.freedesktop.DBus.Properties", "Set", "ssv", ["org.bluez.Device1", "Alias", "mine now"]),
        call("Set Device1.Trusted", devicePath, "org.freedesktop.DBus.Properties", "Set", "ssv", ["org.bluez.Device1", "Trusted", true]),
        call("Get Adapter1.Address", adapterPath, "org.freedesktop.DBus.Properties", "Get", "ss", ["org.bluez.Adapter1", "Address"]),
        call("Introspect", "/", "org.freedesktop.DBus.Introspectable", "Introspect"),
        call("RemoveDevice", adapterPath, "org.bluez.Adapter1", "RemoveDevice", "o", [.string(devicePath)]),
    ]

    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"

    /// As an unprivileged user whose group the policy names (`nobody`'s primary group stands in
    /// for `bluetooth`, which this machine need not have), on a bus with the system bus's
    /// defaults: every call sensorbridge makes succeeds, every other one is refused by the bus.
    @Test(
        .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"),
        .enabled(if: probeUser != nil, "needs root, /usr/bin/setpriv and a user nobody to run a client as an unprivileged user"))
    func anUnprivilegedMemberOfTheGroupCanCallWhatSensorBridgeCallsAndNothingElse() throws {
        let user = try #require(Self.probeUser)
        let trace = try BlueZCommandTests.trace(lines: 40)
        let policy = try Self.policy(group: user.group)
        defer { try? FileManager.default.removeItem(at: policy) }
        let mock = try MockBlueZ(trace: trace, policy: policy, acquireNotify: ["hr"])
        defer { mock.stop() }
        let (uid, answers) = try Self.probe(mock, Self.neededCalls + Self.unneededCalls)
        #expect(uid == Int(user.uid))
        for call in Self.neededCalls.compactMap({ $0["name"]?.stringValue }) {
            #expect(answers[call] == "ok", "\(call): \(answers[call] ?? "no answer")")
        }
        #expect(Set(Self.neededCalls.compactMap { $0["name"]?.stringValue }) == Self.calledMethods)
        for call in Self.unneededCalls.compactMap({ $0["name"]?.stringValue }) {
            #expect(answers[call] == Self.accessDenied, "\(call): \(answers[call] ?? "no answer")")
        }

        // The control: under a policy that opens all of org.bluez to the group, the same user gets
        // every one of those calls through (the mock answers them), RemoveDevice included.
        let open = try Self.temporaryPolicy(
            "<busconfig><policy group=\"\(user.group)\"><allow send_destination=\"org.bluez\"/></policy></busconfig>")
        defer { try? FileManager.default.removeItem(at: open) }
        let wide = try MockBlueZ(trace: trace, policy: open)
        defer { wide.stop() }
        let (_, through) = try Self.probe(wide, Self.unneededCalls)
        for call in Self.unneededCalls.compactMap({ $0["name"]?.stringValue }) {
            #expect(through[call] != nil && through[call] != Self.accessDenied, "\(call): \(through[call] ?? "no answer")")
        }
        #expect(through["RemoveDevice"] == "ok")
    }

    @Test func installServiceInstallsEveryFileAndReloads() throws {
        let script = Self.folder.appendingPathComponent("../scripts/install-service").standardized.path
        for mode in [[], ["--user"]] {
            let run = try Self.run("/bin/bash", [script, "--print"] + mode)
            #expect(run.status == 0, "\(run.output)")
            let lines = run.output.split(separator: "\n").map { $0.replacingOccurrences(of: "sudo ", with: "") }
            for expected in [
                "install -m 0755 $(swift build -c release --show-bin-path)/sensorbridge /usr/local/bin/sensorbridge",
                "$(swift build -c release --show-bin-path)/sensorbridge man > .build/sensorbridge.1",
                "install -D -m 0644 .build/sensorbridge.1 /usr/local/share/man/man1/sensorbridge.1",
                "$(swift build -c release --show-bin-path)/sensorbridge completion bash > .build/sensorbridge.bash",
                "install -D -m 0644 .build/sensorbridge.bash /usr/local/share/bash-completion/completions/sensorbridge",
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
