import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

/// What bluetoothd really does, as its source shows (docs/bluez-behaviours.md), played by the mock:
/// what differs between releases (`--bluez-version`: how notifications are read, what a link lost
/// while they are being subscribed to does) and a `Connect` to a sensor out of range.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct RealBlueZTests {
    static let sensors = ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + BlueZCommandTests.zones

    /// By default a socket (`AcquireNotify`) only where bluetoothd is 5.84 or later (its device
    /// objects carry `org.bluez.Bearer.LE1`), `StartNotify` before; the flags choose either way.
    @Test(arguments: [("5.66", [String](), false), ("5.84", [], true), ("5.66", ["--acquire-notify"], true), ("5.84", ["--no-acquire-notify"], false)])
    func theNotifyPathFollowsTheBlueZRelease(bluez: String, flags: [String], socket: Bool) throws {
        let source = try BlueZCommandTests.trace(lines: 40)
        let mock = try MockBlueZ(trace: source, acquireNotify: ["hr", "power"], bluez: bluez)
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors + flags)
        #expect(run.status == .success, "\(run.errors)")
        let sent = try BlueZCommandTests.notifications(source).count
        #expect(run.received == run.played && run.played == sent, "\(mock.output)")
        for device in ["hr 2a37", "power 2a63"] {
            #expect(mock.output.contains("acquired \(device)") == socket, "\(mock.output)")
            #expect(mock.output.contains("notifying \(device) (1)") == !socket, "\(mock.output)")
        }
    }

    /// The power meter's link drops while its first subscription is set up (it stays in range).
    /// By default, on 5.66 (StartNotify: the ATT error) and on 5.84 (AcquireNotify: the ATT error,
    /// and the characteristic usable again), that is a failed attempt: the meter is connected again
    /// and every value it sends arrives.
    @Test(arguments: ["5.66", "5.84"])
    func aSensorWhoseLinkDropsWhileItSubscribesIsConnectedAgain(bluez: String) throws {
        let source = try BlueZCommandTests.trace(lines: 60)
        let mock = try MockBlueZ(trace: source, acquireNotify: ["hr", "power"], bluez: bluez, extra: ["--drop-during-subscribe", "power"])
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.output.contains(bluez == "5.66" ? "link power dropped during StartNotify" : "link power dropped during AcquireNotify"), "\(mock.output)")
        #expect(!mock.output.contains("stuck") && !mock.output.contains("crashed"), "\(mock.output)")
        // Every value of the trace was sent (a stuck meter's are not) and arrived.
        let sent = try BlueZCommandTests.notifications(source).count
        #expect(run.played == sent, "\(mock.output)")
        #expect(run.received == run.played, "\(run.errors)")
        #expect(run.errors.contains("Assioma: "), "the failed attempt is said: \(run.errors)")
        #expect(run.errors.contains("Assioma connected"), "\(run.errors)")
    }

    /// Asked for sockets on 5.66 (`--acquire-notify`), the same drop leaves `AcquireNotify`
    /// unanswered and the characteristic refusing every subscription, as bluetoothd before 5.84
    /// does; a `StopNotify` there would crash it. The recording goes on with the strap, says what
    /// happened and what to do, and never sends that `StopNotify`, not even when it stops.
    @Test(.timeLimit(.minutes(2))) func aCharacteristicLeftStuckIsSaidAndNeverSentStopNotify() throws {
        let source = try BlueZCommandTests.trace(lines: 60)
        let mock = try MockBlueZ(trace: source, acquireNotify: ["power"], bluez: "5.66", extra: ["--drop-during-subscribe", "power"])
        defer { mock.stop() }
        var refused = false
        let run = try BlueZCommandTests.record(mock, Self.sensors + ["--acquire-notify"]) {
            // After AcquireNotify's 10 s without an answer, the next attempt's StartNotify is refused.
            refused = mock.printed("refused StartNotify power 2a63 (stuck)", timeout: .seconds(40))
            return 0
        }
        #expect(refused, "\(mock.output)")
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.output.contains("link power dropped during AcquireNotify (unanswered, stuck)"), "\(mock.output)")
        #expect(!mock.output.contains("crashed"), "\(mock.output)")
        #expect(
            run.errors.contains(
                "BlueZ refuses every subscription to Assioma's Cycling Power Measurement (2A63) since its link dropped while AcquireNotify was subscribing"),
            "\(run.errors)")
        #expect(run.errors.contains("sudo systemctl restart bluetooth"), "\(run.errors)")
        let heartRate = try BlueZCommandTests.notifications(source).filter { $0.hasPrefix("hr ") }.count
        #expect(run.played == heartRate && run.received == heartRate, "\(mock.output)")
    }

    /// A power meter out of range for 5 s of a ride played at 4 times its pace. bluetoothd answers
    /// a `Connect` to it only when the kernel's connection attempt times out (about 20 s; the
    /// mock's 2 s here), holding the adapter's one LE connection attempt meanwhile: so it is sent
    /// none while it is away, and is connected again as soon as it advertises.
    @Test(.timeLimit(.minutes(2))) func aSensorOutOfRangeIsSentNoConnectUntilItAdvertises() throws {
        let away = (0..<20).map { i in #"{"t":\#(8.5 + Double(i)),"device":"hr","uuid":"2a37","hex":"0678"}"# }
        let back = (1...12).map { i in
            i % 4 == 0
                ? #"{"t":\#(28 + Double(i) / 4),"device":"hr","uuid":"2a37","hex":"0679"}"#
                : #"{"t":\#(28 + Double(i) / 4),"device":"power","uuid":"2a63","hex":"20007b0022feab9a"}"#
        }
        let source = try BlueZCommandTests.trace(
            lines: 40,
            extra: [#"{"t":8,"event":"disconnected","device":"power"}"#] + away + [#"{"t":28,"event":"connected","device":"power"}"#] + back)
        let mock = try MockBlueZ(trace: source, speed: 4)
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.output.contains("link power in range again"), "\(mock.output)")
        #expect(!mock.output.contains("connect power failed"), "\(mock.output)")
        #expect(run.errors.contains("Assioma reconnected"), "\(run.errors)")
        #expect(run.received == run.played, "\(run.errors)")
        // The strap never left: all its values arrived.
        let strap = try BlueZCommandTests.notifications(source).filter { $0.hasPrefix("hr ") }.count
        #expect(run.played >= strap, "\(mock.output)")
    }

    /// A ride on Debian 12's bluetoothd (5.66), both sensors offering `AcquireNotify` as real
    /// BlueZ's do, relayed: the power meter's link drops while its notifications are subscribed
    /// to, bluetoothd restarts (owning its name a second before the adapter appears; the meter
    /// drops again), and the adapter is unplugged and plugged back. The recording and the relay go
    /// on through all of it, every value played arrives, and nothing is read through a socket, so
    /// nothing can send `StopNotify` where `AcquireNotify` gave none (the mock would crash, as
    /// bluetoothd does).
    @Test(.timeLimit(.minutes(3))) func aRideOnBlueZ566ThroughADropARestartAndAReplug() throws {
        let source = try BlueZCommandTests.trace(lines: 60)
        let sent = try BlueZCommandTests.notifications(source).count
        let mock = try MockBlueZ(
            trace: source, acquireNotify: ["hr", "power"], bluez: "5.66", extra: ["--drop-during-subscribe", "power", "--late-adapter", "1"])
        defer { mock.stop() }
        #expect(mock.printed("advertising manager added", timeout: .seconds(10)), "\(mock.output)")
        /// The mock's output once its central has been relayed `count` values (or after 20 s).
        func relayed(_ count: Int) -> String {
            let deadline = ContinuousClock.now + .seconds(20)
            while mock.output.split(separator: "\n").filter({ $0.hasPrefix("relayed 0 ") }).count < count, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
            return mock.output
        }
        var outputs: [String] = []
        let run = try BlueZCommandTests.record(mock, Self.sensors + ["--relay", "Box"]) {
            outputs.append(relayed(sent))
            try mock.restartBlueZ()
            let restarted = mock.waitUntilPlayed(timeout: .seconds(60)) ?? -1
            _ = relayed(sent)
            try mock.unplugAdapter()
            Thread.sleep(forTimeInterval: 1)
            mock.replugAdapter()
            let replugged = mock.waitUntilPlayed(timeout: .seconds(60), round: 2) ?? -1
            outputs.append(relayed(2 * sent))
            return restarted + replugged
        }
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.played == 3 * sent, "\(outputs)")
        #expect(run.received == run.played, "\(run.errors)")
        for output in outputs {
            #expect(output.contains("link power dropped during StartNotify"), "\(output)")
            #expect(!output.contains("acquired ") && !output.contains("crashed"), "\(output)")
            #expect(output.contains("advertising Box: 180d 1818 (discoverable)"), "\(output)")
        }
        // Relayed, in order: every value of the first bluetoothd's ride, and of the second's
        // before and after the replug; the relay offered again after the restart and the replug.
        let expected = try BlueZCommandTests.notifications(source).map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
        let relayed = outputs.map { $0.split(separator: "\n").filter { $0.hasPrefix("relayed 0 ") }.map { $0.dropFirst(10) } }
        #expect(relayed.map { $0.map(String.init) } == [expected, expected + expected], "\(outputs)")
        #expect(run.errors.components(separatedBy: "relay: offering the sensors on hci0").count == 4, "\(run.errors)")
        #expect(!run.errors.contains("too old"), "\(run.errors)")
        let events = try JSONValue(parsing: run.output)["workout"]?["events"]?.arrayValue ?? []
        #expect(events.contains { $0["type"]?.stringValue == "sensorRegained" }, "\(events)")
    }
}
