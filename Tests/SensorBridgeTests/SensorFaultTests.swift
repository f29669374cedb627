import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

/// Sensors that come back, stay silent or refuse their notifications, against the mock BlueZ
/// (issue 20): no value that arrives is dropped, a silent measurement is noticed and subscribed to
/// again, and a failure says what failed.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct SensorFaultTests {
    static let sensors = ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + BlueZCommandTests.zones

    static func eventTypes(_ output: String) throws -> [String] {
        (try JSONValue(parsing: output)["workout"]?["events"]?.arrayValue ?? []).compactMap { $0["type"]?.stringValue }
    }

    /// The trace of a ride whose power meter goes out of range for a second at 31 s and comes back,
    /// with 40 values of both sensors after that.
    static func powerMeterBack() throws -> URL {
        let after = (0..<40).map { i in
            i % 2 == 0
                ? #"{"t":\#(33 + Double(i) / 4),"device":"power","uuid":"2a63","hex":"20007b0022feab9a"}"#
                : #"{"t":\#(33 + Double(i) / 4),"device":"hr","uuid":"2a37","hex":"0678"}"#
        }
        return try BlueZCommandTests.trace(
            lines: 120,
            extra: [#"{"t":31,"event":"disconnected","device":"power"}"#, #"{"t":32,"event":"connected","device":"power"}"#]
                + after)
    }

    /// Every value played arrived, after a `sensorLost` and a `sensorRegained`.
    static func expectNoValueLost(
        _ run: (status: SensorBridge.ExitStatus, output: String, errors: String, played: Int, received: Int), _ mock: MockBlueZ, _ source: URL
    ) throws {
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.played == (try BlueZCommandTests.notifications(source)).count, "\(mock.output)")
        #expect(run.received == run.played, "\(run.errors)")
        let types = try Self.eventTypes(run.output)
        let lost = try #require(types.firstIndex(of: "sensorLost"), "\(types)")
        #expect(types[lost...].contains("sensorRegained"), "\(types)")
        let power = try JSONValue(parsing: run.output)["workout"]?["statistics"]?["cyclingPower"]?["count"]?.doubleValue
        #expect(power.map { $0 >= 80 } == true, "\(String(describing: power))")
    }

    /// bluetoothd reconnects no heart-rate or power sensor by itself, whatever its cache setting:
    /// the `GattProfile1` record registers with `--auto-connect` (180D, 1818) has the kernel's passive scan connect the
    /// known power meter as soon as it is back (the mock does so only for a registered profile).
    /// bluetoothd restores its `StartNotify` subscription but not its `AcquireNotify` socket, which
    /// is acquired again; either way every value arrives, and at the end the profile is unregistered.
    @Test(.timeLimit(.minutes(10)), arguments: [false, true])
    func aSensorBackByAutoConnectLosesNoValue(acquireNotify: Bool) throws {
        let source = try Self.powerMeterBack()
        let mock = try MockBlueZ(trace: source, acquireNotify: acquireNotify ? ["power"] : [])
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(
            mock, Self.sensors + ["--auto-connect", acquireNotify ? "--acquire-notify" : "--no-acquire-notify"])
        #expect(mock.output.contains("profile registered: 180d 1818"), "\(mock.output)")
        #expect(run.errors.contains("BlueZ reconnects the sensors by itself on hci0 (auto-connect for 180D, 1818)"), "\(run.errors)")
        #expect(mock.output.contains("link power back by auto-connect"), "\(mock.output)")
        #expect(!mock.output.contains("link power in range again"), "\(mock.output)")
        let acquired = mock.output.components(separatedBy: "acquired power 2a63").count - 1
        #expect(acquired == (acquireNotify ? 2 : 0), "\(mock.output)")
        try Self.expectNoValueLost(run, mock, source)
        #expect(mock.printed("profile unregistered: 180d 1818"), "\(mock.output)")
        #expect(mock.printed("profile released"), "\(mock.output)")
    }

    /// Without `--auto-connect` no profile is registered (its auto-connect would outlive the run,
    /// for every known sensor with those services: bluetoothd clears it only when it restarts);
    /// when BlueZ refuses it (here the bus policy leaves out RegisterApplication); or for a meter
    /// with a private address, which bluetoothd never makes auto-connect: nothing reconnects the
    /// power meter by itself. It advertises, and record's own discovery and `Connect` bring it back,
    /// with every value; a refusal is said once.
    @Test(.timeLimit(.minutes(10)), arguments: ["default", "refused", "private address"])
    func aSensorIsReconnectedWithoutTheProfile(_ case: String) throws {
        let source = try Self.powerMeterBack()
        let policy = try DeploymentFilesTests.policy(removing: "RegisterApplication")
        defer { try? FileManager.default.removeItem(at: policy) }
        let mock = try MockBlueZ(
            trace: source, policy: `case` == "refused" ? policy : nil, extra: `case` == "private address" ? ["--private-address", "power"] : [])
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors + ["--no-acquire-notify"] + (`case` == "default" ? [] : ["--auto-connect"]))
        let refusals = run.errors.components(separatedBy: "BlueZ refused the sensors' auto-connect on hci0").count - 1
        #expect(refusals == (`case` == "refused" ? 1 : 0), "\(run.errors)")
        #expect(mock.output.contains("profile registered") == (`case` == "private address"), "\(mock.output)")
        #expect(mock.output.contains("link power in range again"), "\(mock.output)")
        #expect(!mock.output.contains("back by auto-connect"), "\(mock.output)")
        try Self.expectNoValueLost(run, mock, source)
    }

    /// BlueZ answers `InProgress` to a StartNotify and nothing is sent: the measurement turns
    /// stale after 5 s and is subscribed to again; everything the sensor then sends arrives.
    @Test(.timeLimit(.minutes(10))) func aSubscriptionAnsweredInProgressIsRenewed() throws {
        let source = try BlueZCommandTests.trace(lines: 60)
        let mock = try MockBlueZ(trace: source, notifyInProgress: ["power"])
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.output.contains("in progress power 2a63"))
        #expect(run.errors.contains("Assioma: no Cycling Power Measurement (2A63) for 5 s (stale); subscribing again"), "\(run.errors)")
        #expect(run.played == (try BlueZCommandTests.notifications(source)).count, "\(mock.output)")
        #expect(run.received == run.played)
    }

    /// A subscription that succeeds but on which the sensor never sends: noticed as stale, renewed,
    /// and the values sent after that arrive. The silent part is the sensor's, not counted as played.
    @Test(.timeLimit(.minutes(10))) func aSilentMeasurementIsNoticedAndRenewed() throws {
        let source = try BlueZCommandTests.trace(lines: 60)  // about 12 s of ride, played in real time
        let mock = try MockBlueZ(trace: source, speed: 1, silent: ["power"])
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors)
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("Assioma: no Cycling Power Measurement (2A63) for 5 s (stale); subscribing again"), "\(run.errors)")
        #expect(run.errors.contains("Assioma: Cycling Power Measurement (2A63) values again"), "\(run.errors)")
        #expect(mock.output.contains("notifying power 2a63 (2)"), "\(mock.output)")
        #expect(run.received == run.played)
        let power = try JSONValue(parsing: run.output)["workout"]?["statistics"]?["cyclingPower"]?["count"]?.doubleValue
        #expect(power.map { $0 > 0 } == true, "\(String(describing: power))")
    }

    /// A StartNotify that fails says so, naming the characteristic; it is not "could not connect".
    @Test(.timeLimit(.minutes(10))) func aFailedStartNotifySaysWhatFailed() throws {
        let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 20), notifyFails: ["power"])
        defer { mock.stop() }
        let run = runCLI(["record", "--duration", "2", "--no-save"] + Self.sensors, environment: mock.environment)
        #expect(run.status == .success, "\(run.errors)")
        #expect(
            run.errors.contains(
                "Assioma: connected to Assioma, but could not start the notifications of its Cycling Power Measurement (2A63)"),
            "\(run.errors)")
        #expect(!run.errors.contains("could not connect"), "\(run.errors)")
    }
}
