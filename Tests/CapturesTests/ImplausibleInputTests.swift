import Captures
import Foundation
import GATT
import SensorCore
import Testing

/// Input that once cost a crash, years of per-second exports or minutes of parsing: a line longer
/// than a trace line can be, a timestamp years after the start. Each is refused with an error
/// that names its line or record.
@Suite struct ImplausibleInputTests {
    static let header = #"{"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{"hr":{"name":"HRM"}}}"#

    /// The error reading `text` as a trace throws, or nil when it reads.
    static func traceError(_ text: [UInt8]) -> TraceError? {
        do {
            _ = try TraceReader.parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// A notification line with `keys` more keys, `"k0":0,"k1":0,...`: 160,000 of them took 22 s to
    /// parse (a scan for a duplicate per key) and were accepted.
    static func lineWithKeys(_ keys: Int) -> String {
        #"{"t":1,"device":"hr","uuid":"2a37","hex":"0048","#
            + (0..<keys).map { "\"k\($0)\":0" }.joined(separator: ",") + "}"
    }

    @Test func aLineLongerThanOneMebibyteIsRefusedNamingIt() throws {
        let keys = Array("\(Self.header)\n\(Self.lineWithKeys(1))\n\(Self.lineWithKeys(160_000))\n".utf8)
        #expect(keys.count > 1_800_000)
        let error = try #require(Self.traceError(keys))
        #expect(error.line == 3)
        #expect(error.description.contains("longer than 1 MiB"), "\(error)")

        // 15 MB on one line, read from a file in chunks: refused once 1 MiB of it is searched.
        var long = Array("\(Self.header)\n{\"t\":1,\"event\":\"lap\",\"note\":\"".utf8)
        long += [UInt8](repeating: UInt8(ascii: "x"), count: 15_000_000)
        long += Array("\"}\n".utf8)
        #expect(Self.traceError(long)?.line == 2)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("long-line-\(UUID().uuidString).jsonl")
        try Data(long).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: TraceError(line: 2, try #require(Self.traceError(long)).message)) {
            try TraceReader.read(contentsOf: url)
        }
    }

    @Test func aLineOfExactlyOneMebibyteIsRead() throws {
        let prefix = #"{"t":1,"device":"hr","uuid":"2a37","hex":"0048","pad":""#
        let padding = TraceReader.maximumLineLength - prefix.utf8.count - 2
        let line = prefix + String(repeating: "p", count: padding) + "\"}"
        #expect(line.utf8.count == TraceReader.maximumLineLength)
        for ending in ["\n", ""] {
            let trace = try TraceReader.parse(Array("\(Self.header)\n\(line)\(ending)".utf8))
            #expect(trace.records == [.notification(time: .seconds(1), device: "hr", uuid: .heartRateMeasurement, bytes: [0, 0x48])])
        }
        #expect(Self.traceError(Array("\(Self.header)\n\(line) \n".utf8))?.line == 2)
    }

    @Test(arguments: [
        // 9e8 s (28.5 years) on the fast path, on the general path, and as an event.
        #"{"t":900000000,"device":"hr","uuid":"2a37","hex":"005a"}"#,
        #"{"t": 900000000, "device":"hr","uuid":"2a37","hex":"005a"}"#,
        #"{"t":604800.001,"event":"lap"}"#,
    ])
    func aTimeMoreThanSevenDaysAfterTheStartIsRefused(line: String) throws {
        let text = "\(Self.header)\n{\"t\":1,\"device\":\"hr\",\"uuid\":\"2a37\",\"hex\":\"0048\"}\n\(line)\n"
        let error = try #require(Self.traceError(Array(text.utf8)))
        #expect(error.line == 3)
        #expect(error.description.contains("at most 7 days"), "\(error)")
        // The last moment of the seventh day is still a workout's.
        let edge = "\(Self.header)\n{\"t\":604800,\"event\":\"lap\"}\n"
        #expect(try TraceReader.parse(Array(edge.utf8)).end == .maximumWorkoutSpan)
    }

    // MARK: - btsnoop

    static let t0 = BtsnoopTime(unixMicroseconds: 1_700_000_000_123_456)
    static let year: Int64 = 365 * 86_400 * 1_000_000

    /// A strap's connection, discovery and heart rates at 1 s, 2 s and `last` after the first record.
    static func capture(last: Int64) -> [UInt8] {
        var w = HCITrafficWriter()
        w.connect(handle: 0x0040, peer: BluetoothAddress("C4:7E:11:22:33:44")!, addressType: 0, at: t0)
        w.discover(GATTServerLayout(characteristics: [.heartRateMeasurement]), handle: 0x0040, at: t0)
        for (offset, bpm) in [(1_000_000, 72), (2_000_000, 80), (last, 90)] as [(Int64, UInt8)] {
            w.notify(
                handle: 0x0040, attribute: 0x0012, value: [0x00, bpm],
                at: BtsnoopTime(microseconds: t0.microseconds + offset))
        }
        return w.takeBytes()
    }

    @Test(arguments: [100, 300, 290_000])
    func aRecordYearsAfterTheStartIsRefusedNamingIt(years: Int64) throws {
        let reader = try BtsnoopTraceReader(bytes: Self.capture(last: years * Self.year))
        var records: [TraceRecord] = []
        do {
            while let record = try reader.next() { records.append(record) }
            Issue.record("read \(records.count) records and no error")
        } catch {
            #expect(error.kind == .implausibleTime)
            #expect(error.description.contains("record \(error.record) (byte \(error.offset))"))
            #expect(error.description.contains("\(years * 365 * 86_400) s (\(years * 365).0 days)"), "\(error)")
            #expect(error.description.contains("at most 7 days"), "\(error)")
            // Everything before it was read; it is the capture's last record.
            #expect(records.map(\.time) == [.milliseconds(1000) + .microseconds(456), .milliseconds(2000) + .microseconds(456)])
            let all = try BtsnoopReader(bytes: Self.capture(last: years * Self.year))
            var last = 0
            while let event = try all.next() { last = event.record }
            #expect(error.record == last)
        }
    }

    @Test func aRecordSevenDaysAfterTheStartIsRead() throws {
        // The trace starts at the first record on a whole millisecond: 456 µs before it.
        let reader = try BtsnoopTraceReader(bytes: Self.capture(last: 7 * 86_400_000_000 - 456))
        var times: [Duration] = []
        while let record = try reader.next() { times.append(record.time) }
        #expect(times.last == .maximumWorkoutSpan)
    }
}
