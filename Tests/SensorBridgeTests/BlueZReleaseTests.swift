import Foundation
import SensorBridge
import SensorTestSupport
import Testing

/// What differs between bluetoothd releases (docs/bluez-behaviours.md §1), played by the mock's
/// `--bluez-version`: how notifications are read, and what a link lost while they are being
/// subscribed to does.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct BlueZReleaseTests {
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
}
