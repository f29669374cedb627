import Captures
import Foundation
import GATT
import SensorBridge
import SensorCore
import Testing
import Outputs

/// `decode --capture`, `convert`, `replay` of btsnoop captures, and `capture`'s error path.
@Suite struct CaptureCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized
    static let fixture = root.appendingPathComponent("Tests/Fixtures/conformance/gatt-cases.btsnoop").path
    static let profile = ["--age", "40", "--resting-hr", "50", "--ftp", "250"]

    static func temporary(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-\(UUID().uuidString)-\(name)")
    }

    // MARK: - decode --capture

    @Test func decodeCaptureGivesEveryConformanceCaseWithDecodesKeys() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("Tests/Fixtures/conformance/gatt-cases.json"))
        let cases = try #require(try JSONValue(parsing: [UInt8](data))["cases"]?.arrayValue)
        let run = runCLI(["decode", "--capture", Self.fixture, "--jsonl"])
        #expect(run.status == .success)
        #expect(run.errors.isEmpty)
        let lines = try jsonLines(run.output)
        #expect(lines.count == cases.count)
        let handles = ["2a37": 0x12, "2a63": 0x22, "2a64": 0x29, "2a5b": 0x32]
        for (line, c) in zip(lines, cases) {
            let uuid = try #require(c["uuid"]?.stringValue)
            let hex = try #require(c["payload_hex"]?.stringValue)
            #expect(line["uuid"]?.stringValue == uuid)
            #expect(line["hex"]?.stringValue == hex)
            #expect(line["handle"]?.integerValue == handles[uuid])
            #expect(line["connection"] == 64)
            #expect(line["record"]?.integerValue == c["frame"]?.integerValue)
            #expect(line["time"]?.doubleValue == Double(c["time_epoch"]?.stringValue ?? ""))
            // After the link keys, exactly what `decode` prints for the same payload.
            let single = try JSONValue(parsing: runCLI(["decode", "--uuid", uuid, "--hex", hex]).output)
            let keys = try #require(line.objectValue?.keys)
            #expect(
                Array(keys.prefix(9)) == [
                    "time", "record", "adapter", "connection", "handle", "direction", "pdu", "uuid", "hex",
                ])
            #expect(Array(keys.dropFirst(9)) == single.objectValue?.keys.filter { $0 != "uuid" })
            for key in keys.dropFirst(9) { #expect(line[key] == single[key], "\(key) of \(hex)") }
        }
    }

    @Test func decodeCaptureTable() {
        let run = runCLI(["decode", "--capture", Self.fixture])
        #expect(run.status == .success)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 721)
        #expect(lines.first == "time (UTC)                   link    handle  uuid  value")
        #expect(
            lines[1] == "2023-11-14T22:13:20.000000Z  0x0040  0x0012  2a37  heartRate=184 sensorContact=notSupported")
    }

    @Test func decodeCaptureOfAJSONLTrace() throws {
        let trace = Self.temporary("trace.jsonl")
        try """
        {"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{}}
        {"t":0.5,"device":"hr","uuid":"2a37","hex":"16480003"}
        {"t":1,"event":"lap"}
        {"t":1.25,"device":"power","uuid":"2a63","hex":"2000"}
        """.write(to: trace, atomically: true, encoding: .utf8)
        let run = runCLI(["decode", "--capture", trace.path, "--jsonl"])
        #expect(run.status == .success)
        let lines = try jsonLines(run.output)
        #expect(lines.count == 2)
        #expect(
            lines[0].objectValue?.keys == [
                "time", "device", "uuid", "hex", "heartRate", "sensorContact", "rrIntervals",
            ])
        #expect(lines[0]["time"] == 1_795_935_600.5)
        #expect(lines[1]["error"]?["kind"] == "truncated")
        #expect(runCLI(["decode", "--capture", trace.path, "--handle", "0x0012=2a37"]).status == .usage)
    }

    @Test func undiscoveredHandlesAndACaptureCutShort() throws {
        var w = HCITrafficWriter()
        w.connect(
            handle: 0x0040, peer: BluetoothAddress(0xC47E_1122_3344), addressType: 0,
            at: BtsnoopTime(unixMicroseconds: 0))
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: BtsnoopTime(unixMicroseconds: 1))
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x49], at: BtsnoopTime(unixMicroseconds: 2))
        let bytes = w.takeBytes()
        let file = Self.temporary("capture.btsnoop")
        try Data(bytes).write(to: file)
        let plain = runCLI(["decode", "--capture", file.path, "--jsonl"])
        #expect(plain.status == .success)
        let line = try #require(try jsonLines(plain.output).first)
        #expect(line["uuid"] == .null)
        #expect(line["error"]?["kind"] == "undiscoveredHandle")
        #expect(line["error"]?["message"]?.stringValue?.contains("--handle 0x0012=UUID") == true)
        #expect(plain.errors.contains("skipped 2 notifications on handles no discovery named"))
        let mapped = runCLI(["decode", "--capture", file.path, "--jsonl", "--handle", "0x0012=2a37"])
        #expect(try jsonLines(mapped.output).map { $0["heartRate"] } == [72, 73])
        #expect(mapped.errors.isEmpty)
        // Cut inside the last record: the first notification, then the error.
        try Data(bytes.dropLast(1)).write(to: file)
        let cut = runCLI(["decode", "--capture", file.path, "--jsonl", "--handle", "18=2a37"])
        #expect(cut.status == .failure)
        #expect(try jsonLines(cut.output).count == 1)
        #expect(cut.errors.contains("cut short"))
        #expect(runCLI(["decode", "--capture", file.path, "--handle", "0x12"]).status == .usage)
        #expect(runCLI(["decode", "--capture", file.path, "--handle", "0x12=2a37,18=2a38"]).status == .usage)
        #expect(runCLI(["decode", "--capture", file.path, "--uuid", "2a37"]).status == .usage)
        #expect(runCLI(["decode", "--capture", "/nonexistent.btsnoop"]).status == .failure)
    }

    // MARK: - convert and replay

    @Test func convertBothWaysGivesTheSameTraceBack() throws {
        let original = Self.root.appendingPathComponent("Captures/multisport-bike-run.jsonl")
        let capture = Self.temporary("multisport.btsnoop")
        let back = Self.temporary("multisport.jsonl")
        let there = runCLI(["convert", original.path, capture.path])
        #expect(there.status == .success, "\(there.errors)")
        #expect(there.output.contains("3440 notifications, 3 events"))
        let again = runCLI(["convert", capture.path, back.path])
        #expect(again.status == .success, "\(again.errors)")
        #expect(try Data(contentsOf: back) == Data(contentsOf: original))
    }

    /// OUT that exists is refused before anything is read or written, unless --force.
    @Test func convertRefusesAnExistingOutUnlessForce() throws {
        let original = Self.root.appendingPathComponent("Captures/run-30min-hr.jsonl")
        let capture = Self.temporary("run.btsnoop")
        defer { try? FileManager.default.removeItem(at: capture) }
        let old = Data("keep me\n".utf8)
        try old.write(to: capture)
        let refused = runCLI(["convert", original.path, capture.path])
        #expect(refused.status == .failure)
        #expect(refused.errors == "sensorbridge convert: \(capture.path) exists; give --force to replace it, or another name for OUT\n")
        #expect(try Data(contentsOf: capture) == old)
        let forced = runCLI(["convert", original.path, capture.path, "--force"])
        #expect(forced.status == .success, "\(forced.errors)")
        #expect(try Data(contentsOf: capture) != old)
        // And back: an existing trace is refused too.
        let trace = Self.temporary("run.jsonl")
        defer { try? FileManager.default.removeItem(at: trace) }
        try old.write(to: trace)
        #expect(runCLI(["convert", capture.path, trace.path]).errors.contains("exists; give --force"))
        #expect(try Data(contentsOf: trace) == old)
        #expect(runCLI(["convert", capture.path, trace.path, "--force"]).status == .success)
        #expect(try Data(contentsOf: trace) == Data(contentsOf: original))
    }

    @Test func replayOfTheConvertedCaptureIsTheSameWorkout() throws {
        let original = Self.root.appendingPathComponent("Captures/ride-60min-hr-power.jsonl")
        let capture = Self.temporary("ride.btsnoop")
        #expect(runCLI(["convert", original.path, capture.path]).status == .success)
        let fromTrace = runCLI(["replay", original.path, "--json", "--events"] + Self.profile)
        let fromCapture = runCLI(["replay", capture.path, "--json", "--events"] + Self.profile)
        #expect(fromCapture.status == .success, "\(fromCapture.errors)")
        #expect(fromCapture.errors == fromTrace.errors)
        #expect(try JSONValue(parsing: fromCapture.output) == JSONValue(parsing: fromTrace.output))
        #expect(fromCapture.output.contains("sensorLost"))
    }

    @Test func replayOfACaptureWithoutNotes() throws {
        // An HRM and a power meter as btmon records them; the power meter drops out 4-6 s.
        let start = BtsnoopTime(unixMicroseconds: 1_795_935_600_000_000)
        func at(_ seconds: Double) -> BtsnoopTime { start.adding(.milliseconds(Int64(seconds * 1000))) }
        var w = HCITrafficWriter()
        w.addController(address: BluetoothAddress(0x001A_7DDA_7113), at: start)
        w.connect(handle: 0x0040, peer: BluetoothAddress(0xC47E_1122_3344), addressType: 0, at: start)
        w.discover(
            GATTServerLayout(characteristics: [.heartRateMeasurement], name: "HRM-Pro"), handle: 0x0040, at: start)
        w.connect(handle: 0x0041, peer: BluetoothAddress(0xE8FE_6E91_9F16), addressType: 0, at: start)
        w.discover(GATTServerLayout(characteristics: [.cyclingPowerMeasurement]), handle: 0x0041, at: start)
        for second in 0..<10 {
            let time = at(Double(second))
            if second == 4 { w.disconnect(handle: 0x0041, at: time) }
            if second == 6 {
                w.connect(handle: 0x0041, peer: BluetoothAddress(0xE8FE_6E91_9F16), addressType: 0, at: time)
            }
            w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 150], at: time)
            if second < 4 || second >= 6 {
                w.notify(handle: 0x0041, attribute: 0x0012, value: [0x00, 0x00, 200, 0x00], at: time)
            }
        }
        let file = Self.temporary("two-sensors.btsnoop")
        try Data(w.takeBytes()).write(to: file)
        let run = runCLI(["replay", file.path, "--json"] + Self.profile)
        #expect(run.status == .success, "\(run.errors)")
        let workout = try JSONValue(parsing: run.output)["workout"]
        #expect(workout?["statistics"]?["heartRate"]?["count"] == 10)
        #expect(workout?["statistics"]?["cyclingPower"]?["count"] == 8)
        let events = workout?["events"]?.arrayValue?.map {
            "\($0["type"]!.stringValue!) \($0["device"]?.stringValue ?? "")@\($0["t"]!.integerValue!)"
        }
        #expect(events == ["sensorLost power@4", "sensorRegained power@6"])
        #expect(workout?["start"] == "2026-11-29T07:00:00Z")
    }

    @Test func replayOfACaptureCutShort() throws {
        let capture = Self.temporary("cut.btsnoop")
        #expect(runCLI(["convert", Self.root.appendingPathComponent("Captures/run-30min-hr.jsonl").path, capture.path]).status == .success)
        let bytes = try Data(contentsOf: capture)
        try bytes.dropLast(3).write(to: capture)
        let run = runCLI(["replay", capture.path, "--json"] + Self.profile)
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.errors.contains("skipped 1 record cut short at the end of the file"))
        // The last record was the `end` note at 1800 s: the workout ends at the last notification.
        let workout = try JSONValue(parsing: run.output)["workout"]
        #expect(workout?["statistics"]?["heartRate"]?["count"] == 1800)
        #expect(workout?["duration"] == 1799)
    }

    @Test func aReplayRefusesATimeYearsAfterTheStartAndSavesNothing() throws {
        let store = Self.temporary("store.sqlite").path
        // A strap's heart rates at 1 s, 2 s and 300 years: a clock that jumped. This replay once
        // died of an overflow (SIGILL); at 100 years it saved a workout no export could write.
        let start = BtsnoopTime(unixMicroseconds: 1_795_935_600_000_000)
        var w = HCITrafficWriter()
        w.connect(handle: 0x0040, peer: BluetoothAddress(0xC47E_1122_3344), addressType: 0, at: start)
        w.discover(GATTServerLayout(characteristics: [.heartRateMeasurement]), handle: 0x0040, at: start)
        for (seconds, bpm) in [(1, 72), (2, 80), (300 * 365 * 86_400, 90)] as [(Int64, UInt8)] {
            w.notify(
                handle: 0x0040, attribute: 0x0012, value: [0x00, bpm],
                at: BtsnoopTime(microseconds: start.microseconds + seconds * 1_000_000))
        }
        let capture = Self.temporary("jump.btsnoop")
        try Data(w.takeBytes()).write(to: capture)
        let replay = runCLI(["replay", capture.path, "--json", "--save", "--store", store] + Self.profile)
        #expect(replay.status == .failure)
        #expect(replay.output.isEmpty)
        #expect(replay.errors.contains("9460800000 s (109500.0 days) after the trace's start"), "\(replay.errors)")
        #expect(replay.errors.contains("at most 7 days"))
        #expect(try #require(replay.errors.firstRange(of: "record ")).lowerBound < replay.errors.firstRange(of: "stamped")!.lowerBound)
        #expect(runCLI(["convert", capture.path, Self.temporary("jump.jsonl").path]).status == .failure)

        // The same in a JSONL trace: 9e8 s (28.5 years), which a replay once took for a workout.
        let trace = Self.temporary("jump.jsonl")
        try """
        {"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{"hr":{}}}
        {"t":1,"device":"hr","uuid":"2a37","hex":"0048"}
        {"t":2,"device":"hr","uuid":"2a37","hex":"0050"}
        {"t":900000000,"device":"hr","uuid":"2a37","hex":"005a"}

        """.write(to: trace, atomically: true, encoding: .utf8)
        let second = runCLI(["replay", trace.path, "--save", "--store", store] + Self.profile)
        #expect(second.status == .failure)
        #expect(second.errors.contains("line 4: \"t\" 900000000.0 is 10416.7 days after the trace's start"), "\(second.errors)")
        let listed = try JSONValue(parsing: runCLI(["workouts", "list", "--json", "--store", store]).output)
        #expect(listed["workouts"]?.arrayValue == [])
    }

    @Test func convertAndReplayUsageErrors() throws {
        let trace = Self.root.appendingPathComponent("Captures/run-30min-hr.jsonl").path
        #expect(runCLI(["convert", trace]).status == .usage)
        #expect(runCLI(["convert", trace, trace]).status == .usage)
        #expect(runCLI(["convert", trace, Self.temporary("x.jsonl").path]).errors.contains("name it .btsnoop"))
        #expect(runCLI(["convert", Self.fixture, Self.temporary("x.btsnoop").path]).errors.contains("name it .jsonl"))
        #expect(runCLI(["convert", trace, Self.temporary("x.btsnoop").path, "--handle", "0x12=2a37"]).status == .usage)
        #expect(runCLI(["convert", "/nonexistent.jsonl", Self.temporary("x.btsnoop").path]).status == .failure)
        #expect(runCLI(["convert", trace, "/nonexistent/dir/x.btsnoop"]).errors.contains("cannot create"))
        #expect(runCLI(["replay", trace, "--handle", "0x12=2a37"]).status == .usage)
        let bad = Self.temporary("bad.btsnoop")
        try Data(Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEB]).write(to: bad)
        let replay = runCLI(["replay", bad.path])
        #expect(replay.status == .failure)
        #expect(replay.errors.contains("datalink 1003"))
    }

    // MARK: - capture

    @Test func captureErrorMessagesSayWhatIsMissing() {
        let denied = HCIMonitorError(errno: EPERM, operation: .bind)
        #expect(denied.name == .permissionDenied)
        #expect(denied.description.contains("CAP_NET_RAW") && denied.description.contains("setcap cap_net_raw+ep"))
        let absent = HCIMonitorError(errno: EAFNOSUPPORT, operation: .open)
        #expect(absent.name == .bluetoothUnavailable)
        #expect(absent.description.contains("no Bluetooth") && absent.description.contains("modprobe bluetooth"))
        #expect(HCIMonitorError(errno: EIO, operation: .receive).name == .other)
    }

    /// Where the monitor socket cannot be opened (no Bluetooth, or no CAP_NET_RAW: the case on CI),
    /// `capture` says why, exits 1 and writes no file.
    @Test(.enabled(if: (try? HCIMonitorSocket()) == nil, "the HCI monitor can be opened here"))
    func captureWithoutTheMonitorFailsClearly() {
        let out = Self.temporary("live.btsnoop")
        let run = runCLI(["capture", "--out", out.path])
        #expect(run.status == .failure)
        #expect(run.errors.contains("no Bluetooth") || run.errors.contains("CAP_NET_RAW"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func captureUsage() {
        #expect(runCLI(["capture"]).status == .usage)
        #expect(runCLI(["capture", "--out", "x.btsnoop", "--adapter", "usb0"]).errors.contains("hci0"))
        #expect(runCLI(["capture", "--help"]).output.contains("CAP_NET_RAW"))
    }
}
