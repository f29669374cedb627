public import Foundation
public import GATT
import SensorCore

/// A btsnoop capture read as a trace, for `replay` and `convert`: notifications the peers sent
/// with their device key, link events, and the trace events `convert` stored as notes.
///
/// Device keys: a `sensorbridge` device note (written by `convert`) names the link's key.
/// Otherwise the key comes from the peer's discovered services (Cycling Power 0x1818 `power`,
/// Heart Rate 0x180D `hr`, Cycling Speed and Cadence 0x1816 `csc`, in that order), else from the
/// first characteristic it notifies (2A63/2A64/2A65 `power`, 2A37 `hr`, 2A5B `csc`), else the peer
/// address; a second device with the same key gets `hr2`, `hr3`. A device keeps its key across
/// reconnections (it is found by its address).
///
/// Events: with a `sensorbridge` header note (a capture `convert` wrote), the notes are the
/// trace's events and start, and HCI link events are not turned into events again. Otherwise a
/// disconnection is `disconnected` and a reconnection after it `connected`; the first connection
/// of a device is the start of its recording, not an event. The trace starts at the capture's
/// first record, on a whole millisecond (the header's precision). Times never go backwards (a
/// record stamped earlier than the one before takes that one's time). Notifications this host's
/// own GATT server sent, and notifications on handles no discovery named, are left out. A capture
/// cut short inside its last record ends before it (counted as `cutShort`); other damage throws,
/// and so does a record stamped more than `Duration.maximumWorkoutSpan` (7 days) after the start
/// (`implausibleTime`, naming the record and the span), before it is yielded.
///
/// The header comes from a first pass over the whole capture; the records then stream.
public final class BtsnoopTraceReader: TraceRecordSource {
    public let header: TraceHeader
    private let reader: BtsnoopReader
    private var translator: BtsnoopTraceTranslator
    /// The file ended inside a record: the trace ended before it.
    private var cutShort = false

    /// What was skipped so far (everything, once `next()` has returned nil).
    public var statistics: CaptureStatistics {
        var statistics = reader.statistics
        if translator.malformedNotes > 0 { statistics.skip(.malformedNote, translator.malformedNotes) }
        if cutShort { statistics.skip(.cutShort) }
        return statistics
    }

    public convenience init(contentsOf url: URL, assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        try self.init { () throws(BtsnoopError) in try BtsnoopReader(contentsOf: url, assumedHandles: assumedHandles) }
    }

    public convenience init(bytes: [UInt8], assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        try self.init { () throws(BtsnoopError) in try BtsnoopReader(bytes: bytes, assumedHandles: assumedHandles) }
    }

    private init(open: () throws(BtsnoopError) -> BtsnoopReader) throws(BtsnoopError) {
        let scan = try open()
        var scanner = BtsnoopTraceTranslator(start: nil)
        var cut = false
        while !scanner.finished, let event = try Self.next(scan, cut: &cut) {
            _ = scanner.translate(event, databases: scan.remoteDatabase(of:))
        }
        let start: BtsnoopTime
        if let noteHeader = scanner.noteHeader {
            header = noteHeader
            start = BtsnoopTime(noteHeader.start)
        } else {
            let first = scan.firstRecordTime?.unixMicroseconds ?? 0
            start = BtsnoopTime(unixMicroseconds: first - (first % 1000 + 1000) % 1000)
            var devices: [String: TraceDevice] = [:]
            for (key, connection) in scanner.connections {
                devices[key] = TraceDevice(
                    name: scan.remoteDatabase(of: connection)?.name, address: connection.peer?.description)
            }
            header = TraceHeader(start: start.date, devices: devices)
        }
        reader = try open()
        translator = BtsnoopTraceTranslator(start: start)
    }

    public func next() throws(BtsnoopError) -> TraceRecord? {
        while !translator.finished, let event = try Self.next(reader, cut: &cutShort) {
            guard let record = translator.translate(event, databases: reader.remoteDatabase(of:)) else { continue }
            guard record.time <= .maximumWorkoutSpan else {
                throw BtsnoopError(
                    .implausibleTime, record: event.record, offset: reader.latestRecordOffset,
                    "stamped \(event.time), \(Self.spanText(record.time)) after the trace's start "
                        + "(\(ISO8601.format(header.start.timeIntervalSince1970))); one capture is one workout of at "
                        + "most 7 days, so this is a clock jump, a damaged timestamp or another session")
            }
            return record
        }
        return nil
    }

    /// `9467280000 s (109575.0 days)`.
    static func spanText(_ span: Duration) -> String {
        let seconds = span.components.seconds
        return "\(seconds) s (\(String(format: "%.1f", Double(seconds) / 86_400)) days)"
    }

    /// The next event of `reader`, or nil at the end. A file that ends inside a record (a capture
    /// cut short, as when btmon is killed) ends the trace there and sets `cut`; other errors throw.
    private static func next(_ reader: BtsnoopReader, cut: inout Bool) throws(BtsnoopError) -> CaptureEvent? {
        do throws(BtsnoopError) {
            return try reader.next()
        } catch {
            guard error.kind == .truncatedRecord else { throw error }
            cut = true
            return nil
        }
    }
}

/// Capture events to trace records: device keys, link events, notes (see `BtsnoopTraceReader`).
struct BtsnoopTraceTranslator {
    /// t = 0; nil in the first pass, which only learns keys and the header.
    let start: BtsnoopTime?
    /// The trace header from a `sensorbridge` header note.
    private(set) var noteHeader: TraceHeader?
    /// After an `end` event.
    private(set) var finished = false
    private(set) var malformedNotes = 0
    /// The latest connection of each device key, for the header's names and addresses.
    private(set) var connections: [String: CaptureConnection] = [:]

    /// A device: its address, or its connection when the capture missed the connection's start.
    private enum Device: Hashable {
        case address(BluetoothAddress)
        case connection(Int)
    }

    private var keys: [Device: String] = [:]
    /// Keys that device notes gave addresses.
    private var boundKeys: [BluetoothAddress: String] = [:]
    private var takenKeys: Set<String> = []
    /// The next suffix to try for a key already taken (`hr2`, `hr3`).
    private var nextSuffix: [String: Int] = [:]
    /// Devices whose link went down and has not come back.
    private var lost: Set<Device> = []
    private var previous = Duration.zero

    static let serviceKeys: [(BluetoothUUID, String)] = [
        (.cyclingPowerService, "power"), (.heartRateService, "hr"), (.cyclingSpeedAndCadenceService, "csc"),
    ]

    init(start: BtsnoopTime?) { self.start = start }

    mutating func translate(_ event: CaptureEvent, databases: (CaptureConnection) -> GATTDatabase?) -> TraceRecord? {
        guard !finished else { return nil }
        switch event.kind {
        case .note(let ident, let message):
            guard ident == SensorBridgeNote.ident else { return nil }
            guard let note = SensorBridgeNote(message: message) else {
                malformedNotes += 1
                return nil
            }
            switch note {
            case .header(let header):
                if noteHeader == nil { noteHeader = header }
                return nil
            case .device(let key, let address):
                boundKeys[address] = key
                takenKeys.insert(key)
                return nil
            case .event(let traceEvent):
                if traceEvent == .end { finished = true }
                return .event(time: time(event.time), traceEvent)
            }
        case .connected(let connection):
            guard noteHeader == nil, lost.remove(Self.device(connection)) != nil,
                let key = key(for: connection, uuid: nil, databases)
            else { return nil }
            return .event(time: time(event.time), .connected(device: key))
        case .disconnected(let connection, _):
            guard noteHeader == nil, let key = key(for: connection, uuid: nil, databases) else { return nil }
            lost.insert(Self.device(connection))
            return .event(time: time(event.time), .disconnected(device: key))
        case .notification(let n):
            guard n.direction == .received, let uuid = n.uuid, let key = key(for: n.connection, uuid: uuid, databases)
            else {
                return nil
            }
            return .notification(time: time(event.time), device: key, uuid: uuid, bytes: Array(n.value))
        }
    }

    private static func device(_ connection: CaptureConnection) -> Device {
        connection.peer.map(Device.address) ?? .connection(connection.number)
    }

    /// The device's key, assigning one when the link has shown what it is (a note, a sensor
    /// service, a notification); nil while it has not.
    private mutating func key(
        for connection: CaptureConnection, uuid: BluetoothUUID?, _ databases: (CaptureConnection) -> GATTDatabase?
    ) -> String? {
        let device = Self.device(connection)
        if let key = keys[device] {
            connections[key] = connection
            return key
        }
        let key: String
        if let address = connection.peer, let bound = boundKeys[address] {
            key = bound
        } else {
            let services = databases(connection)?.services ?? []
            var base = Self.serviceKeys.first { entry in services.contains { $0.uuid == entry.0 } }?.1
            if base == nil, let uuid {
                base =
                    Self.key(forCharacteristic: uuid) ?? connection.peer?.description
                    ?? "connection-\(connection.number)"
            }
            guard let base else { return nil }
            key = unique(base)
        }
        keys[device] = key
        connections[key] = connection
        return key
    }

    static func key(forCharacteristic uuid: BluetoothUUID) -> String? {
        switch uuid.shortValue {
        case 0x2A63, 0x2A64, 0x2A65: "power"
        case 0x2A37: "hr"
        case 0x2A5B: "csc"
        default: nil
        }
    }

    private mutating func unique(_ base: String) -> String {
        guard takenKeys.contains(base) else {
            takenKeys.insert(base)
            return base
        }
        var suffix = nextSuffix[base, default: 2]
        while takenKeys.contains("\(base)\(suffix)") { suffix += 1 }
        nextSuffix[base] = suffix + 1
        takenKeys.insert("\(base)\(suffix)")
        return "\(base)\(suffix)"
    }

    /// The record's time from the start; never before the previous record's.
    private mutating func time(_ time: BtsnoopTime) -> Duration {
        guard let start else { return .zero }
        previous = max(previous, time.since(start))
        return previous
    }
}
