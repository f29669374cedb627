public import Foundation
import GATT
import SensorCore

/// Reads JSONL traces. Unknown keys are ignored (later versions may add some); a line that is
/// not what the format says is a `TraceError` naming its line number, never a skipped line.
public enum TraceReader {
    /// Reads a whole trace file.
    public static func read(contentsOf url: URL) throws(TraceError) -> Trace {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TraceError(line: 0, "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try parse([UInt8](data))
    }

    /// Parses trace text (UTF-8 bytes, lines ending in `\n` or `\r\n`).
    public static func parse(_ bytes: [UInt8]) throws(TraceError) -> Trace {
        var header: TraceHeader?
        var records: [TraceRecord] = []
        var lineNumber = 0
        var previousTime = Duration.zero
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let content = line.last == 0x0D ? line.dropLast() : line[...]
            if !content.contains(where: { $0 != 0x20 && $0 != 0x09 }) { continue }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: Array(content))
            } catch {
                throw TraceError(line: lineNumber, "not JSON (\(error))")
            }
            guard let object = value.objectValue else { throw TraceError(line: lineNumber, "expected a JSON object") }
            if header == nil {
                header = try parseHeader(object, line: lineNumber)
                continue
            }
            let record = try parseRecord(object, line: lineNumber)
            guard record.time >= previousTime else {
                throw TraceError(
                    line: lineNumber,
                    "t \(record.time.seconds) is earlier than the line before (\(previousTime.seconds)); lines must be in time order")
            }
            previousTime = record.time
            records.append(record)
            if case .event(_, .end) = record { break }
        }
        guard let header else { throw TraceError(line: 0, "empty trace: the first line must be the trace header") }
        return Trace(header: header, records: records)
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
        guard let start = parseISO8601(startText) else {
            throw TraceError(line: line, "\"start\": '\(startText)' is not an ISO 8601 time such as 2026-11-29T07:00:00Z")
        }
        var devices: [String: TraceDevice] = [:]
        if let deviceObject = object["devices"] {
            guard let entries = deviceObject.objectValue else {
                throw TraceError(line: line, "\"devices\" must be an object of {\"name\",\"address\"} by device key")
            }
            for (key, entry) in entries.pairs {
                devices[key] = TraceDevice(name: entry["name"]?.stringValue, address: entry["address"]?.stringValue)
            }
        }
        return TraceHeader(version: version, start: start, devices: devices)
    }

    static func parseRecord(_ object: JSONObject, line: Int) throws(TraceError) -> TraceRecord {
        guard let t = object["t"]?.doubleValue else { throw TraceError(line: line, "no number \"t\" (seconds from start)") }
        guard t.isFinite, t >= 0, t < 1e9 else { throw TraceError(line: line, "\"t\" \(t) is not a time from start") }
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

    static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
