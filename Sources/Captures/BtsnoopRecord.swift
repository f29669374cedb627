/// One record of a btsnoop file (RFC 1761 record layout, all fields big-endian): a 24-byte header,
/// then the packet's included bytes.
public struct BtsnoopRecord: Sendable, Equatable {
    /// The packet's length on the wire, in bytes; more than `data.count` when the capture kept
    /// only its start.
    public var originalLength: UInt32
    /// Direction and packet kind (datalinks 1001, 1002) or controller index and monitor opcode
    /// (2001); see `BtsnoopDatalink`.
    public var flags: UInt32
    /// Packets lost since the capture began, as the writer counted them.
    public var cumulativeDrops: UInt32
    public var time: BtsnoopTime
    /// The included bytes.
    public var data: [UInt8]

    public init(
        flags: UInt32, time: BtsnoopTime, data: [UInt8], originalLength: UInt32? = nil, cumulativeDrops: UInt32 = 0
    ) {
        self.originalLength = originalLength ?? UInt32(data.count)
        self.flags = flags
        self.cumulativeDrops = cumulativeDrops
        self.time = time
        self.data = data
    }

    /// Size of the record header in bytes.
    public static let headerSize = 24
    /// The longest record the reader accepts, in bytes: an HCI ACL packet of 65,535 data bytes,
    /// its 4-byte header and an H4 packet-type byte. Monitor records are shorter (16-bit length).
    public static let maximumLength = 65_540
}

/// Opcodes of the Linux HCI monitor channel (BlueZ `src/shared/btsnoop.h`), the low 16 bits of a
/// datalink-2001 record's flags.
public enum BtsnoopMonitorOpcode: UInt16, Sendable {
    /// A controller appeared: type (1), bus (1), address (6, little-endian), name (8, NUL-padded).
    case newIndex = 0
    case deleteIndex = 1
    case commandPacket = 2
    case eventPacket = 3
    case aclSent = 4
    case aclReceived = 5
    case scoSent = 6
    case scoReceived = 7
    case openIndex = 8
    case closeIndex = 9
    case indexInfo = 10
    case vendorDiagnostic = 11
    /// Text from the monitor itself.
    case systemNote = 12
    /// A log line: priority (1), ident length (1), ident (NUL-terminated), message.
    case userLogging = 13
    case controlOpen = 14
    case controlClose = 15
    case controlCommand = 16
    case controlEvent = 17
    case isoSent = 18
    case isoReceived = 19
}

/// Who sent an HCI packet.
public enum HCIDirection: Sendable, Hashable {
    /// Host to controller: commands and outgoing ACL data.
    case sent
    /// Controller to host: events and incoming ACL data.
    case received

    public var opposite: HCIDirection { self == .sent ? .received : .sent }
}

/// The HCI packet types (Core Specification Vol 4 Part A 2, the H4 packet indicators).
public enum HCIPacketType: UInt8, Sendable {
    case command = 1
    case acl = 2
    case sco = 3
    case event = 4
    case iso = 5
}
