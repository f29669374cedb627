import Foundation
import GATT
import SensorCore

/// Writes JSONL traces line by line; `record --trace` uses it to keep any real ride as a replay test.
public enum TraceWriter {
    /// The header line (no newline).
    public static func headerLine(_ header: TraceHeader) -> String {
        var devices = JSONObject()
        for key in header.devices.keys.sorted() {
            let device = header.devices[key]!
            var entry = JSONObject()
            if let name = device.name { entry.append("name", .string(name)) }
            if let address = device.address { entry.append("address", .string(address)) }
            devices.append(key, .object(entry))
        }
        let object: JSONObject = [
            "sensorbridge": "trace", "version": .number(Double(header.version)),
            "start": .string(ISO8601.format(header.start.timeIntervalSince1970)), "devices": .object(devices),
        ]
        return JSONValue.object(object).serialized
    }

    /// One record line (no newline). Times print in seconds with up to nanosecond precision.
    public static func line(_ record: TraceRecord) -> String {
        var object = JSONObject()
        object.append("t", .number(seconds(record.time)))
        switch record {
        case .notification(_, let device, let uuid, let bytes):
            object.append("device", .string(device))
            object.append("uuid", .string(uuid.description))
            object.append("hex", .string(Hex.encode(bytes)))
        case .event(_, let event):
            appendFields(of: event, to: &object)
        }
        return JSONValue.object(object).serialized
    }

    /// An event's members after `t`: `"event"`, then `"activityType"` or `"device"` when it has one.
    static func appendFields(of event: TraceEvent, to object: inout JSONObject) {
        object.append("event", .string(event.name))
        switch event {
        case .activity(let type): object.append("activityType", .string(type))
        case .connected(let device), .disconnected(let device): object.append("device", .string(device))
        default: break
        }
    }

    /// The whole trace as text, one line each, newline-terminated.
    public static func text(_ trace: Trace) -> String {
        var out = headerLine(trace.header) + "\n"
        for record in trace.records { out += line(record) + "\n" }
        return out
    }

    /// Seconds as a Double that prints back to the same nanoseconds (`12.345`, not `12.345000000000001`).
    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        let nanos = String(atto / 1_000_000_000)
        return Double("\(s).\(String(repeating: "0", count: 9 - nanos.count))\(nanos)") ?? d.seconds
    }
}
