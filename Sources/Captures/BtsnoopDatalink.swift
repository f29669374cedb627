/// The `datalink` field of a btsnoop file header: how each record's bytes and flags are laid out.
///
/// btsnoop is RFC 1761 snoop with Bluetooth datalink types (Frontline's "BT Snoop File Format";
/// BlueZ `src/shared/btsnoop.h`).
public enum BtsnoopDatalink: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// HCI packets without a packet-type byte. Flags bit 0: 0 sent (host to controller),
    /// 1 received; bit 1: 1 command or event, 0 ACL data.
    case hciUnencapsulated = 1001
    /// HCI UART (H4): a packet-type byte (1 command, 2 ACL, 3 SCO, 4 event, 5 ISO) before each
    /// packet; flags bit 0 is the direction as for 1001. Android's `btsnoop_hci.log`.
    case hciUART = 1002
    /// The Linux HCI monitor channel, what `btmon -w` writes: the flags hold the controller index
    /// (high 16 bits) and the monitor opcode (low 16 bits: 2 command, 3 event, 4 ACL sent, 5 ACL
    /// received, 0 new index, 13 user logging, ...); the record is the bare HCI packet.
    case linuxMonitor = 2001

    public var description: String {
        switch self {
        case .hciUnencapsulated: "1001 (HCI un-encapsulated)"
        case .hciUART: "1002 (HCI UART, H4)"
        case .linuxMonitor: "2001 (Linux monitor, btmon)"
        }
    }
}
