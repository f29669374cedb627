/// Writes a btsnoop file: the 16-byte header, then records, into `bytes`, which the caller drains
/// with `takeBytes()` (to a file as it goes, or kept in memory).
public struct BtsnoopWriter: Sendable {
    public let datalink: BtsnoopDatalink
    /// Bytes written and not yet taken.
    public private(set) var bytes: [UInt8] = []

    /// Starts a file: magic, version 1, `datalink`.
    public init(datalink: BtsnoopDatalink = .linuxMonitor) {
        self.datalink = datalink
        bytes = BtsnoopRecordReader.magic
        Self.append(UInt32(1), to: &bytes)
        Self.append(datalink.rawValue, to: &bytes)
    }

    /// Appends a record as it is.
    public mutating func append(_ record: BtsnoopRecord) {
        Self.append(record.originalLength, to: &bytes)
        Self.append(UInt32(record.data.count), to: &bytes)
        Self.append(record.flags, to: &bytes)
        Self.append(record.cumulativeDrops, to: &bytes)
        let time = UInt64(bitPattern: record.time.microseconds)
        Self.append(UInt32(truncatingIfNeeded: time >> 32), to: &bytes)
        Self.append(UInt32(truncatingIfNeeded: time), to: &bytes)
        bytes.append(contentsOf: record.data)
    }

    /// Appends an HCI packet (without an H4 type byte) as this datalink records it: the monitor
    /// opcode and controller index in the flags (2001), a type byte and direction flag (1002), or
    /// the direction and command/event flags (1001, which cannot tell SCO and ISO from ACL).
    public mutating func append(
        _ type: HCIPacketType, _ direction: HCIDirection, adapter: UInt16 = 0, _ packet: [UInt8], at time: BtsnoopTime
    ) {
        let received: UInt32 = direction == .received ? 1 : 0
        let commandOrEvent: UInt32 = type == .command || type == .event ? 2 : 0
        switch datalink {
        case .linuxMonitor:
            let opcode: BtsnoopMonitorOpcode =
                switch (type, direction) {
                case (.command, _): .commandPacket
                case (.event, _): .eventPacket
                case (.acl, .sent): .aclSent
                case (.acl, .received): .aclReceived
                case (.sco, .sent): .scoSent
                case (.sco, .received): .scoReceived
                case (.iso, .sent): .isoSent
                case (.iso, .received): .isoReceived
                }
            append(BtsnoopRecord(flags: UInt32(adapter) << 16 | UInt32(opcode.rawValue), time: time, data: packet))
        case .hciUART:
            append(BtsnoopRecord(flags: commandOrEvent | received, time: time, data: [type.rawValue] + packet))
        case .hciUnencapsulated:
            append(BtsnoopRecord(flags: commandOrEvent | received, time: time, data: packet))
        }
    }

    /// Appends a monitor record that is not an HCI packet (new index, user logging, ...). Only
    /// datalink 2001 has them; for the others nothing is written.
    public mutating func appendMonitor(
        _ opcode: BtsnoopMonitorOpcode, adapter: UInt16 = 0, _ data: [UInt8], at time: BtsnoopTime
    ) {
        guard datalink == .linuxMonitor else { return }
        append(BtsnoopRecord(flags: UInt32(adapter) << 16 | UInt32(opcode.rawValue), time: time, data: data))
    }

    /// The bytes written since the last call.
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }
}
