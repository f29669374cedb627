import GATT
public import SensorCore

/// Writes plausible HCI traffic of LE GATT sessions into a btsnoop file, as a Linux host acting as
/// the GATT client records it: controller announcement, LE connection, MTU exchange, discovery,
/// CCCD writes, notifications, disconnection. `convert` and the tests build captures with it.
public struct HCITrafficWriter: Sendable {
    /// The file being written; append raw records to it between the writer's own.
    public var writer: BtsnoopWriter
    /// Controller index of every packet (`hci0` is 0).
    public var adapter: UInt16 = 0
    /// The largest ACL data length per fragment, in bytes (251 for LE controllers with data length
    /// extension; 27 without). Longer L2CAP frames go out in start + continuation fragments.
    public var aclFragmentSize = 251
    /// The ATT_MTU `discover` agrees on, in bytes (517 is the largest a Linux client asks for).
    public var mtu: UInt16 = 517

    public init(datalink: BtsnoopDatalink = .linuxMonitor) {
        writer = BtsnoopWriter(datalink: datalink)
    }

    /// The bytes written since the last call.
    public mutating func takeBytes() -> [UInt8] { writer.takeBytes() }

    // MARK: - Controller and links

    /// Monitor New Index and Open Index, as `btmon` records when it starts (datalink 2001 only).
    public mutating func addController(address: BluetoothAddress, name: String = "hci0", at time: BtsnoopTime) {
        var nameBytes = Array(name.utf8.prefix(8))
        nameBytes += [UInt8](repeating: 0, count: 8 - nameBytes.count)
        // Type 0 (primary controller), bus 0 (virtual), address, name.
        writer.appendMonitor(.newIndex, adapter: adapter, [0, 0] + address.littleEndianBytes + nameBytes, at: time)
        writer.appendMonitor(.openIndex, adapter: adapter, [], at: time)
    }

    /// This host connects to `peer` as central: HCI LE Create Connection, its Command Status, and
    /// LE Connection Complete (Core Specification Vol 4 Part E 7.8.12, 7.7.15, 7.7.65.1).
    /// - Parameter addressType: 0 public, 1 random.
    public mutating func connect(handle: UInt16, peer: BluetoothAddress, addressType: UInt8, at time: BtsnoopTime) {
        let address = peer.littleEndianBytes
        // Scan interval and window 60 ms, no filter list, own public address, connection interval
        // 30-50 ms, latency 0, supervision timeout 420 ms, no CE length hints.
        var parameters: [UInt8] = Self.le16(0x0060) + Self.le16(0x0060) + [0, addressType] + address + [0]
        parameters +=
            Self.le16(0x0018) + Self.le16(0x0028) + Self.le16(0) + Self.le16(0x002A) + Self.le16(0) + Self.le16(0)
        command(0x200D, parameters, at: time)
        event(0x0F, [0x00, 0x01] + Self.le16(0x200D), at: time)
        // Subevent 0x01, success, handle, role central, peer address type and address, interval
        // 30 ms, latency 0, supervision timeout 420 ms, central clock accuracy 500 ppm.
        let complete: [UInt8] =
            [0x01, 0x00] + Self.le16(handle) + [0x00, addressType] + address + Self.le16(0x0018) + Self.le16(0)
            + Self.le16(0x002A) + [0x00]
        event(0x3E, complete, at: time)
    }

    /// HCI Disconnection Complete (Vol 4 Part E 7.7.5).
    /// - Parameter reason: 0x08 connection timeout (a sensor out of range), 0x13 remote user
    ///   terminated, 0x16 terminated by this host.
    public mutating func disconnect(handle: UInt16, reason: UInt8 = 0x08, at time: BtsnoopTime) {
        event(0x05, [0x00] + Self.le16(handle) + [reason], at: time)
    }

    // MARK: - ATT

    /// A Handle Value Notification (or Indication) from the peer's server.
    public mutating func notify(
        handle: UInt16, attribute: UInt16, value: [UInt8], indication: Bool = false, at time: BtsnoopTime
    ) {
        att(
            [indication ? ATTOpcode.handleValueIndication : ATTOpcode.handleValueNotification] + Self.le16(attribute)
                + value,
            handle: handle, direction: .received, at: time)
    }

    /// One ATT PDU in an L2CAP basic frame on the attribute channel, in as many ACL fragments as
    /// `aclFragmentSize` needs.
    public mutating func att(_ pdu: [UInt8], handle: UInt16, direction: HCIDirection, at time: BtsnoopTime) {
        for packet in Self.aclPackets(att: pdu, handle: handle, direction: direction, fragmentSize: aclFragmentSize) {
            writer.append(.acl, direction, adapter: adapter, packet, at: time)
        }
    }

    /// Appends an HCI ACL data packet as it is (tests interleave fragments of several links).
    public mutating func acl(_ packet: [UInt8], direction: HCIDirection, at time: BtsnoopTime) {
        writer.append(.acl, direction, adapter: adapter, packet, at: time)
    }

    /// The HCI ACL packets that carry `pdu` on CID 0x0004 (Vol 4 Part E 5.4.2): the first with
    /// packet boundary flag 0b00 going to the controller or 0b10 coming from it, the rest 0b01.
    public static func aclPackets(att pdu: [UInt8], handle: UInt16, direction: HCIDirection, fragmentSize: Int)
        -> [[UInt8]]
    {
        let frame = le16(UInt16(truncatingIfNeeded: pdu.count)) + le16(0x0004) + pdu
        let size = max(1, fragmentSize)
        var packets: [[UInt8]] = []
        var offset = 0
        while offset < frame.count {
            let end = min(frame.count, offset + size)
            let boundary: UInt16 = offset > 0 ? 0b01 : direction == .sent ? 0b00 : 0b10
            packets.append(le16(handle & 0x0FFF | boundary << 12) + le16(UInt16(end - offset)) + frame[offset..<end])
            offset = end
        }
        return packets
    }

    /// Discovers `server` over the link `handle` as BlueZ does when it first connects: MTU
    /// exchange, primary services (Read By Group Type), characteristics per service (Read By
    /// Type 0x2803), each CCCD (Find Information), notifications enabled (Write Request 0x0001),
    /// and the Device Name (Read By Type 0x2A00) when the layout has one. Responses pack as many
    /// entries as the MTU allows; each listing ends with Attribute Not Found.
    public mutating func discover(_ server: GATTServerLayout, handle: UInt16, at time: BtsnoopTime) {
        func request(_ pdu: [UInt8]) { att(pdu, handle: handle, direction: .sent, at: time) }
        func respond(_ pdu: [UInt8]) { att(pdu, handle: handle, direction: .received, at: time) }
        func notFound(_ opcode: UInt8, _ start: UInt16) {
            respond([ATTOpcode.errorResponse, opcode] + Self.le16(start) + [0x0A])
        }
        let capacity = max(Int(mtu), 23)  // the LE minimum ATT_MTU (Vol 3 Part F 3.2.8)

        request([ATTOpcode.exchangeMTURequest] + Self.le16(517))
        respond([ATTOpcode.exchangeMTUResponse] + Self.le16(mtu))

        var services = server.services[...]
        var start: UInt16 = 0x0001
        while true {
            request(
                [ATTOpcode.readByGroupTypeRequest] + Self.le16(start) + Self.le16(0xFFFF)
                    + Self.uuidBytes(ATTOpcode.primaryService))
            guard let first = services.first else {
                notFound(ATTOpcode.readByGroupTypeRequest, start)
                break
            }
            let size = 4 + Self.uuidBytes(first.uuid).count
            var pdu: [UInt8] = [ATTOpcode.readByGroupTypeResponse, UInt8(size)]
            while let s = services.first, 4 + Self.uuidBytes(s.uuid).count == size, pdu.count + size <= capacity {
                pdu += Self.le16(s.handles.lowerBound) + Self.le16(s.handles.upperBound) + Self.uuidBytes(s.uuid)
                services.removeFirst()
            }
            respond(pdu)
            let last = server.services[services.startIndex - 1].handles.upperBound
            if last == 0xFFFF { break }
            start = last + 1
        }

        for service in server.services {
            var characteristics = service.characteristics[...]
            var start = service.handles.lowerBound
            while start <= service.handles.upperBound {
                request(
                    [ATTOpcode.readByTypeRequest] + Self.le16(start) + Self.le16(service.handles.upperBound)
                        + Self.uuidBytes(ATTOpcode.characteristic))
                guard let first = characteristics.first else {
                    notFound(ATTOpcode.readByTypeRequest, start)
                    break
                }
                let size = 5 + Self.uuidBytes(first.uuid).count
                var pdu: [UInt8] = [ATTOpcode.readByTypeResponse, UInt8(size)]
                while let c = characteristics.first, 5 + Self.uuidBytes(c.uuid).count == size,
                    pdu.count + size <= capacity
                {
                    pdu +=
                        Self.le16(c.declarationHandle) + [c.properties] + Self.le16(c.valueHandle)
                        + Self.uuidBytes(c.uuid)
                    characteristics.removeFirst()
                }
                respond(pdu)
                let last = service.characteristics[characteristics.startIndex - 1].valueHandle
                if last == 0xFFFF { break }
                start = last + 1
            }
            for c in service.characteristics {
                guard let configuration = c.configurationHandle else { continue }
                request([ATTOpcode.findInformationRequest] + Self.le16(configuration) + Self.le16(configuration))
                respond(
                    [ATTOpcode.findInformationResponse, 0x01] + Self.le16(configuration)
                        + Self.uuidBytes(ATTOpcode.clientCharacteristicConfiguration))
            }
        }

        for service in server.services {
            for c in service.characteristics {
                guard let configuration = c.configurationHandle else { continue }
                request(
                    [ATTOpcode.writeRequest] + Self.le16(configuration) + Self.le16(c.properties & 0x20 != 0 ? 2 : 1))
                respond([ATTOpcode.writeResponse])
            }
        }

        if let name = server.name, let nameHandle = server.valueHandle(of: ATTOpcode.deviceName) {
            // The value must fit the response (MTU - 4) and its one-byte entry length (at most 253 bytes).
            var value: [UInt8] = []
            for character in name {
                let bytes = Array(String(character).utf8)
                guard value.count + bytes.count <= min(capacity - 4, 253) else { break }
                value += bytes
            }
            request(
                [ATTOpcode.readByTypeRequest] + Self.le16(0x0001) + Self.le16(0xFFFF)
                    + Self.uuidBytes(ATTOpcode.deviceName))
            respond([ATTOpcode.readByTypeResponse, UInt8(2 + value.count)] + Self.le16(nameHandle) + value)
        }
    }

    // MARK: - Notes

    /// A monitor user-logging record (`btmon` prints it between packets): priority 6 (info),
    /// `ident`, `message` (datalink 2001 only).
    public mutating func note(_ message: String, ident: String, at time: BtsnoopTime) {
        let identBytes = Array(ident.utf8.prefix(254)) + [0]
        writer.appendMonitor(
            .userLogging, adapter: adapter, [6, UInt8(identBytes.count)] + identBytes + Array(message.utf8) + [0],
            at: time)
    }

    // MARK: - Packets

    private mutating func command(_ opcode: UInt16, _ parameters: [UInt8], at time: BtsnoopTime) {
        writer.append(
            .command, .sent, adapter: adapter, Self.le16(opcode) + [UInt8(parameters.count)] + parameters, at: time)
    }

    private mutating func event(_ code: UInt8, _ parameters: [UInt8], at time: BtsnoopTime) {
        writer.append(.event, .received, adapter: adapter, [code, UInt8(parameters.count)] + parameters, at: time)
    }

    static func le16(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    /// A UUID as ATT carries it: 2 bytes for SIG 16-bit UUIDs, else 16, little-endian.
    static func uuidBytes(_ uuid: BluetoothUUID) -> [UInt8] {
        if let short = uuid.shortValue { return le16(short) }
        return (0..<8).map { UInt8(truncatingIfNeeded: uuid.low >> (8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: uuid.high >> (8 * $0)) }
    }
}
