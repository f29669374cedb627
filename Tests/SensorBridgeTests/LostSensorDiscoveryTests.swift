import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

/// A lost sensor is reconnected as soon as it advertises again (issue 14): discovery runs while a
/// sensor is not connected (lost, or not yet connected), and only then, against the mock BlueZ,
/// whose devices advertise (RSSI changes) while in range and seen by a discovery. A sensor is sent
/// `Connect` only once it is seen advertising (issue 38): one out of range is never waited for.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct LostSensorDiscoveryTests {
    static let power = "20007b0022feab9a"

    /// The record lines of a trace, header left out.
    static func records(_ url: URL) throws -> [JSONValue] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().map {
            try JSONValue(parsing: String($0))
        }
    }

    /// `instant` as CLOCK_BOOTTIME nanoseconds, the clock of the times the mock prints: the offset
    /// between the two clocks (the same clock on Linux) is read now.
    static func bootTimeNanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        let now = ContinuousClock.now
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let (seconds, attoseconds) = (now - instant).components
        let ago = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec) - ago
    }

    /// The index of the first line of the mock's output that starts with `prefix`.
    static func line(_ prefix: String, in output: String) -> Int? {
        output.split(separator: "\n").firstIndex { $0.hasPrefix(prefix) }
    }

    /// A power meter out of range for 40 s, longer than the longest backoff (30 s), while the strap
    /// goes on, played at the real pace: once it is back its values arrive within 2 s of the mock
    /// bringing it back in range (with backoff alone the attempt after a 40 s absence comes 21 s
    /// later), the gap is recorded, and every value sent arrives. Discovery runs from the loss to
    /// the reconnection. About 50 s.
    @Test(.timeLimit(.minutes(10))) func aPowerMeterGone40sNotifiesAgainWithin2sOfComingBack() throws {
        let gone = (0..<40).map { i in #"{"t":\#(3.5 + Double(i)),"device":"hr","uuid":"2a37","hex":"0678"}"# }
        let back = (1...12).map { i in
            i % 4 == 0
                ? #"{"t":\#(43 + Double(i) / 4),"device":"hr","uuid":"2a37","hex":"0679"}"#
                : #"{"t":\#(43 + Double(i) / 4),"device":"power","uuid":"2a63","hex":"\#(Self.power)"}"#
        }
        let source = try BlueZCommandTests.trace(
            lines: 15,
            extra: [#"{"t":3,"event":"disconnected","device":"power"}"#] + gone
                + [#"{"t":43,"event":"connected","device":"power"}"#] + back)
        let mock = try MockBlueZ(trace: source, speed: 1)
        defer { mock.stop() }
        let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: recorded) }
        let recording = BlueZCommandTests.Recording(mock, SensorFaultTests.sensors + ["--trace", recorded.path])
        let played = try #require(mock.waitUntilPlayed(timeout: .seconds(90)), "\(mock.output)")
        recording.waitForNotifications(played)
        let received = recording.control.notificationsReceived
        let anchor = try #require(recording.control.anchor)
        recording.control.stop()
        let run = recording.waitForExit()
        #expect(run.status == .success, "\(run.errors)")

        // Back in range at (CLOCK_BOOTTIME) ...
        let output = mock.output
        let again = try #require(Self.line("link power in range again at ", in: output), "\(output)")
        let backAt = try #require(Int64(output.split(separator: "\n")[again].split(separator: " ").last ?? ""))
        // ... and its first value after the loss arrived at anchor + t.
        let records = try Self.records(recorded)
        let loss = try #require(records.firstIndex { $0["event"]?.stringValue == "disconnected" }, "\(records.count)")
        let first = try #require(
            records[loss...].first { $0["device"]?.stringValue == "power" && $0["hex"] != nil }?["t"]?.doubleValue,
            "no value from the power meter after it was lost: \(run.errors)")
        let arrivedAt = Self.bootTimeNanoseconds(anchor + .nanoseconds(Int64((first * 1e9).rounded())))
        let delay = Double(arrivedAt - backAt) / 1e9
        #expect(delay > 0 && delay < 2, "its first value came \(delay) s after it was back: \(run.errors)")

        // The gap, in the workout and in the recorded trace.
        let types = try SensorFaultTests.eventTypes(run.output)
        let lost = try #require(types.firstIndex(of: "sensorLost"), "\(types)")
        #expect(types[lost...].contains("sensorRegained"), "\(types)")
        let traced = records.compactMap { $0["event"]?.stringValue }
        #expect(traced.firstIndex(of: "disconnected").map { traced[$0...].contains("connected") } == true, "\(traced)")
        // Every value played arrived; all the strap's, which never left.
        #expect(received == played, "\(output)")
        let strap = { (lines: [String]) in lines.filter { $0.hasPrefix("hr ") } }
        #expect(try strap(BlueZCommandTests.notifications(recorded)) == strap(BlueZCommandTests.notifications(source)))
        // Discovery from the loss to the reconnection, and no Connect to the meter while it was away.
        let lines = output.split(separator: "\n")
        let down = try #require(Self.line("link power down", in: output), "\(output)")
        let started = try #require(lines[down...].firstIndex { $0.hasPrefix("discovery started: le any rssi -127") }, "\(output)")
        let stopped = try #require(lines[down...].firstIndex { $0.hasPrefix("discovery stopped") }, "\(output)")
        #expect(started < again && again < stopped, "\(output)")
        #expect(!output.contains("connect power failed"), "\(output)")
    }

    /// Once the lost sensor is back nothing is lost: discovery stops while the recording goes on.
    @Test(.timeLimit(.minutes(10))) func discoveryRunsOnlyWhileASensorIsLost() throws {
        let source = try BlueZCommandTests.trace(
            lines: 120,
            extra: [
                #"{"t":31,"event":"disconnected","device":"power"}"#, #"{"t":32,"event":"connected","device":"power"}"#,
                #"{"t":33,"device":"power","uuid":"2a63","hex":"\#(Self.power)"}"#,
            ])
        let mock = try MockBlueZ(trace: source)
        defer { mock.stop() }
        let recording = BlueZCommandTests.Recording(mock, SensorFaultTests.sensors)
        let played = try #require(mock.waitUntilPlayed(timeout: .seconds(60)), "\(mock.output)")
        recording.waitForNotifications(played)
        // Still recording: discovery stops once the meter is back.
        let deadline = ContinuousClock.now + .seconds(10)
        func stoppedSinceTheLoss() -> Bool {
            let lines = mock.output.split(separator: "\n")
            return lines.firstIndex { $0.hasPrefix("link power down") }.map { lines[$0...].contains("discovery stopped") } ?? false
        }
        while !stoppedSinceTheLoss(), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(stoppedSinceTheLoss(), "\(mock.output)")
        let received = recording.control.notificationsReceived
        recording.control.stop()
        let run = recording.waitForExit()
        #expect(run.status == .success, "\(run.errors)")
        #expect(received == played)
        #expect(run.errors.contains("Assioma reconnected"), "\(run.errors)")
        // To find the sensors at the start and while the meter was lost (one session across both
        // when the loss comes before the start's was stopped), each started once and stopped.
        let lines = mock.output.split(separator: "\n").filter { $0.hasPrefix("discovery") }
        #expect(lines.first == "discovery started: le any rssi -127" && lines.last == "discovery stopped", "\(mock.output)")
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 } && lines.count <= 4, "\(mock.output)")
    }

    /// A sensor still lost when the recording stops: its discovery is stopped, not left to BlueZ
    /// to end when the bridge leaves the bus.
    @Test(.timeLimit(.minutes(10))) func stoppingEndsTheDiscoveryForASensorStillLost() throws {
        let source = try BlueZCommandTests.trace(
            lines: 60, extra: [#"{"t":13,"event":"disconnected","device":"power"}"#])
        let mock = try MockBlueZ(trace: source)
        defer { mock.stop() }
        let recording = BlueZCommandTests.Recording(mock, SensorFaultTests.sensors)
        let played = try #require(mock.waitUntilPlayed(timeout: .seconds(60)), "\(mock.output)")
        recording.waitForNotifications(played)
        #expect(mock.printed("discovery started: le any rssi -127", timeout: .seconds(10)), "\(mock.output)")
        recording.control.stop()
        let run = recording.waitForExit()
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("Assioma lost; reconnecting"), "\(run.errors)")
        #expect(mock.printed("discovery stopped", timeout: .seconds(5)), "\(mock.output)")
        #expect(!mock.output.contains("discovery stopped (client gone)"), "\(mock.output)")
    }
}
