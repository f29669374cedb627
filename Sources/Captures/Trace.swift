public import Foundation
public import GATT

/// A JSONL trace: the notifications and events of one recording, as `record --trace` writes
/// them and `replay` reads them (DESIGN 3, "Capture formats").
///
/// ```
/// {"sensorbridge":"trace","version":1,"start":"2026-11-29T07:00:00Z","devices":{"hr":{"name":"HRM-Pro","address":"C4:7E:11:22:33:44"}}}
/// {"t":0.512,"device":"hr","uuid":"2a37","hex":"16480003"}
/// {"t":600.0,"event":"pause"}
/// ```
public struct Trace: Sendable, Equatable {
    public var header: TraceHeader
    public var records: [TraceRecord]

    public init(header: TraceHeader, records: [TraceRecord]) {
        self.header = header
        self.records = records
    }

    /// The workout ends at the `end` event, or else at the last line.
    public var end: Duration {
        for record in records {
            if case .event(let t, .end) = record { return t }
        }
        return records.last?.time ?? .zero
    }

    /// Number of notification lines.
    public var notificationCount: Int {
        records.reduce(0) { count, record in
            if case .notification = record { return count + 1 }
            return count
        }
    }
}

/// The first line of a trace.
public struct TraceHeader: Sendable, Equatable {
    /// Format version; this build reads and writes 1.
    public var version: Int
    /// Wall-clock time of t = 0.
    public var start: Date
    /// Devices by the short key the lines use (`hr`, `power`).
    public var devices: [String: TraceDevice]

    public init(version: Int = 1, start: Date, devices: [String: TraceDevice]) {
        self.version = version
        self.start = start
        self.devices = devices
    }
}

/// A sensor named in the trace header.
public struct TraceDevice: Sendable, Equatable {
    public var name: String?
    /// Bluetooth address, `C4:7E:11:22:33:44`.
    public var address: String?

    public init(name: String? = nil, address: String? = nil) {
        self.name = name
        self.address = address
    }
}

/// One line after the header.
public enum TraceRecord: Sendable, Equatable {
    /// A characteristic value notified by `device` and received at `time` (offset from start).
    case notification(time: Duration, device: String, uuid: BluetoothUUID, bytes: [UInt8])
    /// A user or link event.
    case event(time: Duration, TraceEvent)

    public var time: Duration {
        switch self {
        case .notification(let time, _, _, _), .event(let time, _): time
        }
    }
}

/// What a person or the link did during the recording.
public enum TraceEvent: Sendable, Equatable {
    case pause
    case resume
    case lap
    /// A new activity of a multisport workout begins (`"activityType":"running"`).
    case activity(type: String)
    case disconnected(device: String)
    case connected(device: String)
    /// The workout ends here; later lines are ignored.
    case end

    /// The `event` value in the JSON line.
    public var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        case .lap: "lap"
        case .activity: "activity"
        case .disconnected: "disconnected"
        case .connected: "connected"
        case .end: "end"
        }
    }
}
