public import Foundation
public import GATT
import SensorCore

/// Writes a trace as a btsnoop capture (datalink 2001, as `btmon -w` writes) that Wireshark and
/// btmon read as a real session and `BtsnoopTraceReader` reads back to the same trace.
///
/// At t = 0 a controller appears and connects to every device (the header's address, or a random
/// static one `C0:5B:00:00:00:0N`), exchanges the MTU (517), discovers it (a `GATTServerLayout` of
/// the characteristics it notifies, with the header's name as Device Name; device N's services
/// from handle 0x0N10) and enables notifications. Each notification is a Handle Value Notification
/// on its characteristic's value handle, at its time to the microsecond. A `disconnected` event is
/// an HCI Disconnection Complete (connection timeout); `connected` a new connection and discovery.
/// What HCI cannot carry goes in `sensorbridge` log notes: the header line, each link's device key,
/// and every trace event.
public struct BtsnoopTraceWriter {
    private var traffic = HCITrafficWriter(datalink: .linuxMonitor)
    private let start: BtsnoopTime
    private var devices: [String: Device] = [:]

    private struct Device {
        var address: BluetoothAddress
        var addressType: UInt8
        var layout: GATTServerLayout
        /// The connection handle while the link is up.
        var handle: UInt16?
    }

    /// The controller's own address in the capture.
    static let controllerAddress = BluetoothAddress(0x00_1A_7D_DA_71_13)
    /// Connection handles the writer gives out.
    static let handles: ClosedRange<UInt16> = 0x0040...0x0EFF

    /// Starts the capture: the controller, the header note, and a connection with discovery for
    /// every device.
    /// - Parameter characteristics: what each device notifies (`characteristics(of:)` collects it),
    ///   including devices the header does not list.
    public init(header: TraceHeader, characteristics: [String: [BluetoothUUID]]) throws(CaptureError) {
        start = BtsnoopTime(header.start)
        traffic.addController(address: Self.controllerAddress, at: start)
        traffic.note(SensorBridgeNote.header(header).message, ident: SensorBridgeNote.ident, at: start)
        let keys = Set(header.devices.keys).union(characteristics.keys).sorted()
        guard keys.count <= Self.handles.count else {
            throw .notRepresentable(
                "\(keys.count) devices are more links than a controller has handles for (\(Self.handles.count))")
        }
        var used: Set<BluetoothAddress> = [Self.controllerAddress]
        for (index, key) in keys.enumerated() {
            var address = header.devices[key]?.address.flatMap(BluetoothAddress.init) ?? Self.controllerAddress
            if used.contains(address) { address = BluetoothAddress(0xC0_5B_00_00_00_00 | UInt64(index + 1)) }
            used.insert(address)
            devices[key] = Device(
                // A random static address has its two top bits set (Core Vol 6 Part B 1.3.2.1).
                address: address, addressType: address.value >> 46 == 0b11 ? 1 : 0,
                // Each device's services in their own range of handles: Wireshark keeps one handle map
                // for all links of a controller, and so decodes every device right.
                layout: GATTServerLayout(
                    characteristics: characteristics[key] ?? [], name: header.devices[key]?.name,
                    firstHandle: UInt16(0x0010 + 0x0100 * (index % 0xFF))))
            traffic.note(
                SensorBridgeNote.device(key: key, address: address).message, ident: SensorBridgeNote.ident, at: start)
            connect(key, at: start)
        }
    }

    /// Adds the device keys and notified characteristics of `record` to `characteristics`, in order
    /// of first appearance: a first pass over a trace collects what `init` needs.
    public static func collect(_ record: TraceRecord, into characteristics: inout [String: [BluetoothUUID]]) {
        switch record {
        case .notification(_, let device, let uuid, _):
            if !(characteristics[device]?.contains(uuid) ?? false) { characteristics[device, default: []].append(uuid) }
        case .event(_, .connected(let device)), .event(_, .disconnected(let device)):
            if characteristics[device] == nil { characteristics[device] = [] }
        case .event:
            break
        }
    }

    /// Appends one record at its time.
    public mutating func append(_ record: TraceRecord) throws(CaptureError) {
        let time = start.adding(record.time)
        switch record {
        case .notification(_, let key, let uuid, let bytes):
            guard let device = devices[key], let attribute = device.layout.valueHandle(of: uuid) else {
                throw .notRepresentable("\(key) \(uuid) was not among the characteristics the capture was started with")
            }
            guard bytes.count <= Int(traffic.mtu) - 3 else {
                throw .notRepresentable(
                    "a \(bytes.count)-byte \(uuid) value of \(key) is longer than a notification can carry (\(Int(traffic.mtu) - 3) bytes)"
                )
            }
            // A notification while the trace says the link is down: the link comes back quietly
            // (the notes, not the links, say what the events were).
            let handle = devices[key]?.handle ?? connect(key, at: time)
            traffic.notify(handle: handle, attribute: attribute, value: bytes, at: time)
        case .event(_, let event):
            switch event {
            case .disconnected(let key):
                if let handle = devices[key]?.handle {
                    traffic.disconnect(handle: handle, reason: 0x08, at: time)
                    devices[key]?.handle = nil
                }
            case .connected(let key):
                if devices[key] != nil, devices[key]?.handle == nil { connect(key, at: time) }
            default:
                break
            }
            traffic.note(SensorBridgeNote.event(event).message, ident: SensorBridgeNote.ident, at: time)
        }
    }

    /// The bytes written since the last call.
    public mutating func takeBytes() -> [UInt8] { traffic.takeBytes() }

    /// How many bytes `takeBytes()` would return.
    public var pendingByteCount: Int { traffic.writer.bytes.count }

    /// Connects and discovers device `key` on the lowest free handle.
    @discardableResult
    private mutating func connect(_ key: String, at time: BtsnoopTime) -> UInt16 {
        let used = Set(devices.values.compactMap(\.handle))
        let handle = Self.handles.first { !used.contains($0) }!  // init allows no more devices than handles
        let device = devices[key]!
        traffic.connect(handle: handle, peer: device.address, addressType: device.addressType, at: time)
        traffic.discover(device.layout, handle: handle, at: time)
        devices[key]?.handle = handle
        return handle
    }
}

/// `convert` in both directions, streaming files.
public enum CaptureConversion {
    /// What a conversion carried over.
    public struct Summary: Sendable, Equatable {
        public var notifications = 0
        public var events = 0
        /// What reading a btsnoop capture skipped (nothing when writing one).
        public var statistics = CaptureStatistics()
        /// A JSONL trace's last line, cut short and left out (`TraceReader.skippedLastLine`).
        public var skippedLastLine: TraceError?

        mutating func count(_ record: TraceRecord) {
            if case .notification = record { notifications += 1 } else { events += 1 }
        }
    }

    /// Writes the JSONL trace at `input` as a btsnoop capture at `output` (two passes over the
    /// trace: the devices and characteristics first, then the records). `output` is replaced
    /// only once the capture is complete (`OutputFile`, `.replace`); with `replacing` false it is
    /// only created, and a file there is left as it is (`.create`: `CaptureError.unwritable`).
    public static func btsnoop(fromTrace input: URL, to output: URL, replacing: Bool = true) throws(CaptureError)
        -> Summary
    {
        var characteristics: [String: [BluetoothUUID]] = [:]
        let header: TraceHeader
        let reader: TraceReader
        do {
            let inventory = try TraceReader(contentsOf: input)
            header = inventory.header
            while let record = try inventory.next() { BtsnoopTraceWriter.collect(record, into: &characteristics) }
            reader = try TraceReader(contentsOf: input)
        } catch {
            throw .trace(error)
        }
        var writer = try BtsnoopTraceWriter(header: header, characteristics: characteristics)
        let file = try OutputFile.forCapture(output, mode: replacing ? .replace : .create)
        var summary = Summary()
        while true {
            let record: TraceRecord?
            do {
                record = try reader.next()
            } catch {
                throw .trace(error)
            }
            guard let record else { break }
            try writer.append(record)
            summary.count(record)
            if writer.pendingByteCount >= 1 << 20 { try file.writeCapture(writer.takeBytes()) }
        }
        try file.writeCapture(writer.takeBytes())
        try file.commitCapture()
        summary.skippedLastLine = reader.skippedLastLine
        return summary
    }

    /// Writes the btsnoop capture at `input` as a JSONL trace at `output`, replaced only once the
    /// trace is complete; with `replacing` false only created, as `btsnoop(fromTrace:to:replacing:)`.
    public static func trace(
        fromBtsnoop input: URL, to output: URL, assumedHandles: [UInt16: BluetoothUUID] = [:], replacing: Bool = true
    ) throws(CaptureError) -> Summary {
        let reader: BtsnoopTraceReader
        do {
            reader = try BtsnoopTraceReader(contentsOf: input, assumedHandles: assumedHandles)
        } catch {
            throw .btsnoop(error)
        }
        let file = try OutputFile.forCapture(output, mode: replacing ? .replace : .create)
        var text = Array((TraceWriter.headerLine(reader.header) + "\n").utf8)
        var summary = Summary()
        while true {
            let record: TraceRecord?
            do {
                record = try reader.next()
            } catch {
                throw .btsnoop(error)
            }
            guard let record else { break }
            summary.count(record)
            text += TraceWriter.line(record).utf8
            text.append(0x0A)
            if text.count >= 1 << 20 {
                try file.writeCapture(text)
                text.removeAll(keepingCapacity: true)
            }
        }
        try file.writeCapture(text)
        try file.commitCapture()
        summary.statistics = reader.statistics
        return summary
    }
}
