public import Foundation
import GATT
import SensorCore

/// Reads a JSONL trace as a stream: the header at once, then one record per `next()`, reading
/// the file in large chunks so that a three-hour ride never sits in memory whole. Unknown keys
/// are ignored (later versions may add some); a line that is not what the format says is a
/// `TraceError` naming its line number, never a skipped line, and so is a line longer than
/// `maximumLineLength` (1 MiB) or a `t` more than `Duration.maximumWorkoutSpan` (7 days) after the
/// start. The one exception is a last line cut short, as a crash while `record --trace` wrote it
/// leaves one: a last line without its newline that is not JSON ends the trace there, and is kept
/// in `skippedLastLine` for the caller to warn about. Reading stops at the `end` event. Each line
/// is parsed in time linear in its length.
///
/// Not thread-safe: one thread reads at a time.
public final class TraceReader {
    public let header: TraceHeader
    private var lines: LineChunks
    private var lineNumber = 0
    private var previousTime = Duration.zero
    private var finished = false
    /// The last line, when it was cut short (no newline, and not JSON) and so left out: its number
    /// and what is wrong with it. Known once `next()` has returned nil.
    public private(set) var skippedLastLine: TraceError?

    /// Opens a trace file and reads its header.
    public convenience init(contentsOf url: URL) throws(TraceError) {
        let handle: FileHandle
        do {
            handle = try InputFile.open(url)
        } catch {
            throw TraceError(line: 0, error.description)
        }
        try self.init(lines: LineChunks(handle: handle))
    }

    /// A reader over trace text in memory (UTF-8, lines ending in `\n` or `\r\n`).
    public convenience init(bytes: [UInt8]) throws(TraceError) {
        try self.init(lines: LineChunks(bytes: bytes))
    }

    private init(lines: LineChunks) throws(TraceError) {
        self.lines = lines
        var lineNumber = 0
        while true {
            guard let (buffer, range, _) = try Self.nextLine(&self.lines, &lineNumber) else {
                throw TraceError(line: 0, "empty trace: the first line must be the trace header")
            }
            guard let range else { continue }
            header = try Self.parseHeader(
                try Self.object(try Self.json(buffer, range, line: lineNumber), line: lineNumber), line: lineNumber)
            break
        }
        self.lineNumber = lineNumber
    }

    /// The next record, or nil after the last line or the `end` event.
    public func next() throws(TraceError) -> TraceRecord? {
        guard !finished else { return nil }
        while let (buffer, range, terminated) = try Self.nextLine(&lines, &lineNumber) {
            guard let range else { continue }
            let record: TraceRecord
            if let compact = Self.compactNotification(buffer, range) {
                record = compact
            } else {
                let value: JSONValue
                do {
                    value = try Self.json(buffer, range, line: lineNumber)
                } catch where !terminated {
                    // The last line, cut short: everything before it is the trace.
                    skippedLastLine = TraceError(
                        line: lineNumber,
                        "the last line is cut short (no newline, and \(error.message)), as a recording stopped while "
                            + "writing it leaves it; skipped, and the lines before it read")
                    break
                }
                record = try Self.parseRecord(try Self.object(value, line: lineNumber), line: lineNumber)
            }
            guard record.time >= previousTime else {
                throw TraceError(
                    line: lineNumber,
                    "t \(record.time.seconds) is earlier than the line before (\(previousTime.seconds)); lines must be in time order")
            }
            previousTime = record.time
            if case .event(_, .end) = record { finished = true }
            return record
        }
        finished = true
        return nil
    }

    /// Reads a whole trace file.
    public static func read(contentsOf url: URL) throws(TraceError) -> Trace {
        try readAll(TraceReader(contentsOf: url))
    }

    /// Parses a whole trace from its text.
    public static func parse(_ bytes: [UInt8]) throws(TraceError) -> Trace {
        try readAll(TraceReader(bytes: bytes))
    }

    private static func readAll(_ reader: TraceReader) throws(TraceError) -> Trace {
        var records: [TraceRecord] = []
        while let record = try reader.next() { records.append(record) }
        return Trace(header: reader.header, records: records)
    }

    /// The longest line a trace may hold, in bytes before its `\n`: 1 MiB. A notification line is
    /// under 200 bytes and a header with a dozen devices under 2 KiB; a longer line is refused
    /// before it is parsed, so hostile input costs bounded memory and time per line.
    public static let maximumLineLength = 1 << 20

    /// The next line's bytes as a range of the chunk buffer (a nil range for a blank line), and
    /// whether a newline ended it.
    private static func nextLine(_ lines: inout LineChunks, _ lineNumber: inout Int) throws(TraceError)
        -> ([UInt8], Range<Int>?, terminated: Bool)?
    {
        let line: (range: Range<Int>, terminated: Bool)?
        do {
            line = try lines.next()
        } catch {
            throw TraceError(line: lineNumber + 1, error.message)
        }
        guard let (range, terminated) = line else { return nil }
        lineNumber += 1
        let buffer = lines.buffer
        var end = range.upperBound
        if end > range.lowerBound, buffer[end - 1] == 0x0D { end -= 1 }
        var start = range.lowerBound
        while start < end, buffer[start] == 0x20 || buffer[start] == 0x09 { start += 1 }
        return (buffer, start < end ? start..<end : nil, terminated)
    }

    private static func json(_ buffer: [UInt8], _ range: Range<Int>, line: Int) throws(TraceError) -> JSONValue {
        do {
            return try JSONValue(parsing: buffer, in: range)
        } catch {
            throw TraceError(line: line, "not JSON (\(error))")
        }
    }

    private static func object(_ value: JSONValue, line: Int) throws(TraceError) -> JSONObject {
        guard let object = value.objectValue else { throw TraceError(line: line, "expected a JSON object") }
        return object
    }

    static func parseHeader(_ object: JSONObject, line: Int) throws(TraceError) -> TraceHeader {
        guard object["sensorbridge"]?.stringValue == "trace" else {
            throw TraceError(line: line, #"the first line must be the header {"sensorbridge":"trace","version":1,...}"#)
        }
        guard let version = object["version"]?.integerValue else {
            throw TraceError(line: line, "the header has no integer \"version\"")
        }
        guard version == 1 else {
            throw TraceError(line: line, "trace version \(version) is newer than this build reads (1); update sensorbridge")
        }
        guard let startText = object["start"]?.stringValue else {
            throw TraceError(line: line, "the header has no \"start\" time (ISO 8601, for example 2026-11-29T07:00:00Z)")
        }
        guard let start = ISO8601.parse(startText) else {
            throw TraceError(line: line, "\"start\": '\(startText)' is not an ISO 8601 time such as 2026-11-29T07:00:00Z")
        }
        var devices: [String: TraceDevice] = [:]
        if let deviceObject = object["devices"] {
            guard let entries = deviceObject.objectValue else {
                throw TraceError(line: line, "\"devices\" must be an object of {\"name\",\"address\"} by device key")
            }
            for (key, entry) in entries.pairs {
                devices[key] = TraceDevice(name: entry["name"]?.stringValue?.inert, address: entry["address"]?.stringValue?.inert)
            }
        }
        return TraceHeader(version: version, start: Date(timeIntervalSince1970: start), devices: devices)
    }

    static func parseRecord(_ object: JSONObject, line: Int) throws(TraceError) -> TraceRecord {
        guard let t = object["t"]?.doubleValue else { throw TraceError(line: line, "no number \"t\" (seconds from start)") }
        guard t.isFinite, t >= 0 else { throw TraceError(line: line, "\"t\" \(t) is not a time from start") }
        guard t <= maximumTime else {
            throw TraceError(
                line: line,
                "\"t\" \(t) is \(String(format: "%.1f", t / 86_400)) days after the trace's start; one trace is one "
                    + "workout of at most 7 days (\(Int(maximumTime)) s), so this is a clock jump or a damaged line")
        }
        let time = Duration.nanoseconds(Int64((t * 1e9).rounded()))
        if let event = object["event"] {
            guard let name = event.stringValue else { throw TraceError(line: line, "\"event\" must be a string") }
            return .event(time: time, try parseEvent(name, object, line: line))
        }
        guard let device = object["device"]?.stringValue else {
            throw TraceError(line: line, "a notification needs \"device\", \"uuid\" and \"hex\" (or the line needs \"event\")")
        }
        guard let uuidText = object["uuid"]?.stringValue, let uuid = BluetoothUUID(uuidText) else {
            throw TraceError(line: line, "\"uuid\" must be a Bluetooth UUID such as \"2a37\"")
        }
        guard let hex = object["hex"]?.stringValue else { throw TraceError(line: line, "no \"hex\" payload") }
        do {
            return .notification(time: time, device: device, uuid: uuid, bytes: try Hex.decode(hex))
        } catch {
            throw TraceError(line: line, "\"hex\": \(error)")
        }
    }

    /// The latest `t`, in seconds: `Duration.maximumWorkoutSpan`.
    static let maximumTime = Duration.maximumWorkoutSpan.seconds

    /// The fast path for the line `record --trace` writes most: exactly
    /// `{"t":12.345,"device":"hr","uuid":"2a37","hex":"16480003"}`, keys in that order, no spaces,
    /// no escapes. Anything else (or anything wrong) returns nil and takes the general path, which
    /// gives the same record or the error.
    static func compactNotification(_ b: [UInt8], _ range: Range<Int>) -> TraceRecord? {
        var i = range.lowerBound
        let end = range.upperBound
        func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard end - i >= count else { return false }
            for k in 0..<count where b[i + k] != text.utf8Start[k] { return false }
            i += count
            return true
        }
        /// A string's contents up to the closing quote: no escapes, no control characters.
        func plainString() -> Range<Int>? {
            let start = i
            while i < end {
                let c = b[i]
                if c == UInt8(ascii: "\"") {
                    defer { i += 1 }
                    return start..<i
                }
                if c == UInt8(ascii: "\\") || c < 0x20 { return nil }
                i += 1
            }
            return nil
        }
        guard literal("{\"t\":") else { return nil }
        let numberStart = i
        while i < end, b[i] != UInt8(ascii: ",") { i += 1 }
        // JSON's number grammar, checked by the general parser's rules.
        guard let t = try? JSONValue(parsing: b, in: numberStart..<i).doubleValue, t.isFinite, t >= 0, t <= maximumTime,
            literal(",\"device\":\""), let device = plainString(), literal(",\"uuid\":\""), let uuid = plainString(),
            literal(",\"hex\":\""), let hex = plainString(), literal("}"), i == end, hex.count % 2 == 0,
            let uuidValue = BluetoothUUID(String(decoding: b[uuid], as: UTF8.self))
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var k = hex.lowerBound
        while k < hex.upperBound {
            guard let high = hexDigit(b[k]), let low = hexDigit(b[k + 1]) else { return nil }
            bytes.append(high << 4 | low)
            k += 2
        }
        return .notification(
            time: .nanoseconds(Int64((t * 1e9).rounded())), device: String(decoding: b[device], as: UTF8.self),
            uuid: uuidValue, bytes: bytes)
    }

    @inline(__always)
    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func parseEvent(_ name: String, _ object: JSONObject, line: Int) throws(TraceError) -> TraceEvent {
        func device() throws(TraceError) -> String {
            guard let device = object["device"]?.stringValue else {
                throw TraceError(line: line, "a \(name) event needs \"device\"")
            }
            return device
        }
        switch name {
        case "pause": return .pause
        case "resume": return .resume
        case "lap": return .lap
        case "end": return .end
        case "activity":
            guard let type = object["activityType"]?.stringValue else {
                throw TraceError(line: line, "an activity event needs \"activityType\" (cycling, running, ...)")
            }
            return .activity(type: type)
        case "disconnected": return .disconnected(device: try device())
        case "connected": return .connected(device: try device())
        default:
            throw TraceError(
                line: line, "unknown event '\(name)' (known: pause, resume, lap, activity, disconnected, connected, end)")
        }
    }
}

/// Lines of a file read in 256 KiB chunks (through `ByteChunks`, as the btsnoop reader reads),
/// or of bytes in memory. A line's range stays valid in `buffer` until the next call.
struct LineChunks {
    private var bytes: ByteChunks

    init(handle: FileHandle) { bytes = ByteChunks(handle: handle, chunkSize: 1 << 18) }
    init(bytes: [UInt8]) { self.bytes = ByteChunks(bytes: bytes) }

    var buffer: [UInt8] { bytes.buffer }

    /// The next line's range (without its `\n`) and whether a newline ended it, or nil at the end.
    /// A last line without a newline is still a line. A line longer than
    /// `TraceReader.maximumLineLength` throws (line 0: the caller knows the number) once that many
    /// bytes are searched, whatever follows.
    mutating func next() throws(TraceError) -> (range: Range<Int>, terminated: Bool)? {
        let maximum = TraceReader.maximumLineLength
        var searched = 0  // bytes after `start` known to hold no newline
        while true {
            let start = bytes.start
            // A newline further than `maximum` bytes from the start ends too long a line.
            let limit = min(bytes.buffer.count, start + maximum + 1)
            if let newline = bytes.buffer[(start + searched)..<limit].firstIndex(of: 0x0A) {
                bytes.consume(newline + 1 - start)
                return (start..<newline, true)
            }
            searched = limit - start
            if searched > maximum {
                throw TraceError(
                    line: 0,
                    "longer than \(maximum >> 20) MiB, the most a trace line may hold (a notification line is under 200 bytes); this is not a trace line")
            }
            let more: Bool
            do {
                more = try bytes.require(searched + 1)
            } catch {
                throw TraceError(line: 0, "cannot read the trace: \(error)")
            }
            if !more {
                guard searched > 0 else { return nil }
                let last = bytes.start..<(bytes.start + searched)
                bytes.consume(searched)
                return (last, false)
            }
        }
    }
}
