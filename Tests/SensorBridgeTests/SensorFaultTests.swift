import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing

/// Sensors that come back, stay silent or refuse their notifications, against the mock BlueZ
/// (issue 20): no value that arrives is dropped, a silent measurement is noticed and subscribed to
/// again, and a failure says what failed.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct SensorFaultTests {
    static let sensors = ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + BlueZCommandTests.zones

    static func eventTypes(_ output: String) throws -> [String] {
        (try JSONValue(parsing: output)["workout"]?["events"]?.arrayValue ?? []).compactMap { $0["type"]?.stringValue }
    }

    /// In BlueZ's default cache mode a known sensor that comes back is reconnected by BlueZ, and its
    /// notifications resume at once. They used to be dropped until the next scheduled retry (156 of
    /// 259 values after a 26 s outage); every one must arrive, after a `sensorRegained`.
    @Test(.timeLimit(.minutes(10))) func aSensorBackInCacheModeLosesNoValue() throws {
        let after = (0..<40).map { i in
            i % 2 == 0
                ? #"{"t":\#(33 + Double(i) / 4),"device":"power","uuid":"2a63","hex":"20007b0022feab9a"}"#
                : #"{"t":\#(33 + Double(i) / 4),"device":"hr","uuid":"2a37","hex":"0678"}"#
        }
        let source = try BlueZCommandTests.trace(
            lines: 120,
            extra: [#"{"t":31,"event":"disconnected","device":"power"}"#, #"{"t":32,"event":"connected","device":"power"}"#]
                + after)
        let mock = try MockBlueZ(trace: source, cacheMode: ["power"])
        defer { mock.stop() }
        let run = try BlueZCommandTests.record(mock, Self.sensors)
        #expect(run.status == .success, "\(run.errors)")
        #expect(mock.output.contains("link power back by itself"), "\(mock.output)")
        #expect(run.played == (try BlueZCommandTests.notifications(source)).count, "\(mock.output)")
        #expect(run.received == run.played, "\(run.errors)")
        let types = try Self.eventTypes(run.output)
        let lost = try #require(types.firstIndex(of: "sensorLost"), "\(types)")
        #expect(types[lost...].contains("sensorRegained"), "\(types)")
        let power = try JSONValue(parsing: run.output)["workout"]?["statistics"]?["cyclingPower"]?["count"]?.doubleValue
        #expect(power.map { $0 >= 80 } == true, "\(String(describing: power))")
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
