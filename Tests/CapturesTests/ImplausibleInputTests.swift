import Captures
import Foundation
import GATT
import SensorCore
import Testing

/// Input that once cost minutes of parsing: a line longer than a trace line can be. It is refused
/// with an error that names its line.
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
}
