@testable import Captures
import Foundation
import GATT
import Testing

@Suite struct TraceTests {
    static let header = #"{"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{"hr":{"name":"HRM","address":"C4:7E:11:22:33:44"}}}"#

    @Test func readsHeaderNotificationsAndEvents() throws {
        let text = """
            \(Self.header)
            {"t":0.5,"device":"hr","uuid":"2a37","hex":"16480003","rssi":-60}
            {"t":600.0,"event":"pause"}
            {"t":660,"event":"resume"}
            {"t":700.25,"event":"activity","activityType":"running"}
            {"t":701,"event":"disconnected","device":"hr"}
            {"t":702,"event":"connected","device":"hr"}
            {"t":703,"event":"lap"}
            {"t":710,"event":"end"}
            {"t":720,"device":"hr","uuid":"2a37","hex":"0048"}
            """
        let trace = try TraceReader.parse(Array(text.utf8))
        #expect(trace.header.start == Date(timeIntervalSince1970: 1_795_935_600))
        #expect(trace.header.devices["hr"] == TraceDevice(name: "HRM", address: "C4:7E:11:22:33:44"))
        #expect(
            trace.records == [
                .notification(time: .milliseconds(500), device: "hr", uuid: .heartRateMeasurement, bytes: [0x16, 0x48, 0x00, 0x03]),
                .event(time: .seconds(600), .pause), .event(time: .seconds(660), .resume),
                .event(time: .milliseconds(700_250), .activity(type: "running")),
                .event(time: .seconds(701), .disconnected(device: "hr")), .event(time: .seconds(702), .connected(device: "hr")),
                .event(time: .seconds(703), .lap), .event(time: .seconds(710), .end),
            ])
        #expect(trace.end == .seconds(710))
        #expect(trace.notificationCount == 1)
    }

    @Test func endsAtTheLastLineWithoutAnEndEvent() throws {
        let trace = try TraceReader.parse(Array("\(Self.header)\n{\"t\":3.25,\"event\":\"lap\"}\r\n".utf8))
        #expect(trace.end == .milliseconds(3250))
    }

    @Test(arguments: [
        ("{\"t\":1,\"event\":\"lap\"}", 1, "header"),
        ("\(header)\n{\"t\":1,\"device\":\"hr\",\"uuid\":\"2a37\",\"hex\":\"1\"}", 2, "hex"),
        ("\(header)\n{\"t\":2,\"event\":\"lap\"}\n{\"t\":1,\"event\":\"lap\"}", 3, "time order"),
        ("\(header)\n\n{\"t\":1,\"event\":\"jump\"}", 3, "unknown event"),
        ("\(header)\n{\"event\":\"lap\"}", 2, "\"t\""),
        ("\(header)\n{\"t\":-1,\"event\":\"lap\"}", 2, "\"t\""),
        ("\(header)\n[1,2]", 2, "object"),
        // Cut short, but followed by a newline (and so by the rest of the trace): an error.
        ("\(header)\n{\"t\":1\n", 2, "not JSON"),
        ("\(header)\n{\"t\":1\n{\"t\":2,\"event\":\"lap\"}", 2, "not JSON"),
        ("\(header)\n{\"t\":1,\"event\":\"activity\"}", 2, "activityType"),
        ("{\"sensorbridge\":\"trace\",\"version\":2,\"start\":\"2026-11-29T07:00:00Z\"}", 1, "newer"),
        ("{\"sensorbridge\":\"trace\",\"version\":1,\"start\":\"yesterday\"}", 1, "ISO 8601"),
        ("", 0, "empty"),
    ])
    func malformedLinesNameTheirLineNumber(text: String, line: Int, mentions: String) {
        do {
            _ = try TraceReader.parse(Array(text.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.line == line)
            #expect(error.description.contains(mentions), "\(error)")
        }
    }

    /// A last line cut short (no newline, and not JSON), as a crash while `record --trace` wrote it
    /// leaves one, is skipped and kept for a warning; the lines before it are the trace.
    @Test func aLastLineCutShortIsSkippedAndNamed() throws {
        let whole = "\(Self.header)\n{\"t\":0.5,\"device\":\"hr\",\"uuid\":\"2a37\",\"hex\":\"16480003\"}\n\n{\"t\":1,\"event\":\"lap\"}\n"
        let expected = try TraceReader.parse(Array(whole.utf8))
        for cut in [#"{"t":1.5,"device":"hr","uuid":"2a37","hex":"1648"#, #"{"t":1.5"#, "{"] {
            let reader = try TraceReader(bytes: Array((whole + cut).utf8))
            var records: [TraceRecord] = []
            while let record = try reader.next() { records.append(record) }
            #expect(records == expected.records, "\(cut)")
            #expect(reader.skippedLastLine?.line == 5, "\(cut)")
            #expect(reader.skippedLastLine?.description.hasPrefix("line 5: the last line is cut short (no newline, and not JSON") == true)
            #expect(try reader.next() == nil)
        }
        // A whole last line without its newline is read, and nothing is skipped.
        let unterminated = try TraceReader(bytes: Array((whole + #"{"t":2,"event":"lap"}"#).utf8))
        var count = 0
        while try unterminated.next() != nil { count += 1 }
        #expect(count == 3 && unterminated.skippedLastLine == nil)
        // From a file, read in chunks, the same.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data((whole + #"{"t":1.5,"dev"#).utf8).write(to: url)
        let file = try TraceReader(contentsOf: url)
        var read: [TraceRecord] = []
        while let record = try file.next() { read.append(record) }
        #expect(read == expected.records && file.skippedLastLine?.line == 5)
        // A last line that is JSON but not a trace line is an error, newline or not.
        #expect(throws: TraceError(line: 5, "unknown event 'jump' (known: pause, resume, lap, activity, disconnected, connected, end)")) {
            _ = try TraceReader.parse(Array((whole + #"{"t":2,"event":"jump"}"#).utf8))
        }
    }

    @Test func writerRoundTrips() throws {
        let trace = Trace(
            header: TraceHeader(
                start: Date(timeIntervalSince1970: 1_795_935_600.25),
                devices: ["hr": TraceDevice(name: "Strap \"A\"", address: "C4:7E:11:22:33:44"), "power": TraceDevice()]),
            records: [
                .notification(time: .nanoseconds(12_345_000_001), device: "power", uuid: .cyclingPowerMeasurement, bytes: [0x20, 0, 0xFA, 0, 1, 0, 0, 4]),
                .event(time: .seconds(13), .activity(type: "running")),
                .event(time: .seconds(14), .disconnected(device: "power")),
                .event(time: .seconds(15), .end),
            ])
        let text = TraceWriter.text(trace)
        #expect(text.contains(#"{"t":12.345000001,"device":"power","uuid":"2a63","hex":"2000fa0001000004"}"#))
        #expect(try TraceReader.parse(Array(text.utf8)) == trace)
    }
}

@Suite struct CompactNotificationTests {
    /// The fast path must give exactly what the general parser gives, or step aside.
    @Test(arguments: [
        #"{"t":12.345,"device":"hr","uuid":"2a37","hex":"16480003"}"#,
        #"{"t":0,"device":"power","uuid":"2A63","hex":"2000FA00"}"#,
        #"{"t":1e2,"device":"hr","uuid":"00002a37-0000-1000-8000-00805f9b34fb","hex":""}"#,
        #"{"t":3.5,"device":"h\u0072","uuid":"2a37","hex":"0048"}"#,
        #"{"t":3.5,"device":"hr","uuid":"2a37","hex":"0048","rssi":-60}"#,
        #"{ "t":3.5,"device":"hr","uuid":"2a37","hex":"0048"}"#,
        #"{"t":01,"device":"hr","uuid":"2a37","hex":"0048"}"#,
        #"{"t":-1,"device":"hr","uuid":"2a37","hex":"0048"}"#,
        #"{"t":3.5,"device":"hr","uuid":"2a37","hex":"004"}"#,
        #"{"t":3.5,"device":"hr","uuid":"2a37","hex":"00zz"}"#,
        #"{"t":3.5,"device":"hr","uuid":"zz","hex":"00"}"#,
        #"{"t":3.5,"device":"hr","uuid":"2a37","hex":"00"}x"#,
    ])
    func fastPathAgreesWithTheGeneralParser(_ line: String) {
        let general: Result<TraceRecord, TraceError> = Result {
            () throws(TraceError) -> TraceRecord in
            try TraceReader.parse(Array("\(TraceTests.header)\n\(line)\n".utf8)).records[0]
        }
        let fast = TraceReader.compactNotification(Array(line.utf8), 0..<line.utf8.count)
        if let fast {
            #expect(general == .success(fast))
        } else if case .success(let record) = general {
            // The fast path stepped aside; the general parser read it.
            #expect(record.time >= .zero)
        }
    }

    @Test func bundledCapturesTakeTheFastPath() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Captures/ride-60min-hr-power.jsonl")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
        let notifications = lines.filter { $0.contains("\"hex\"") }
        #expect(notifications.count > 18000)
        for line in notifications.prefix(500) {
            let bytes = Array(line.utf8)
            #expect(TraceReader.compactNotification(bytes, 0..<bytes.count) != nil, "\(line)")
        }
    }
}
