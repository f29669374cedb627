import CBluetooth
import Glibc

/// The kernel's HCI monitor channel: a copy of every HCI packet of every controller, with
/// controller announcements and log notes, as `btmon` reads it (AF_BLUETOOTH, BTPROTO_HCI,
/// HCI_CHANNEL_MONITOR). Binding it needs CAP_NET_RAW.
///
/// Owns its socket and closes it in `deinit`. Not thread-safe: one thread receives.
public final class HCIMonitorSocket {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 6 + 0xFFFF)

    /// Opens and binds the monitor socket. The corresponding C calls are `socket(2)` and `bind(2)`.
    public init() throws(HCIMonitorError) {
        let descriptor = cbluetooth_hci_socket()
        guard descriptor >= 0 else { throw HCIMonitorError(errno: errno, operation: .open) }
        guard cbluetooth_bind_monitor(descriptor) == 0 else {
            let code = errno
            close(descriptor)
            throw HCIMonitorError(errno: code, operation: .bind)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The next monitor frame as a btsnoop datalink-2001 record (controller index and opcode in the
    /// flags, the kernel's receive time), or nil when none arrived within `timeout` or a signal
    /// interrupted the wait. The corresponding C calls are `poll(2)` and `recvmsg(2)`.
    public func receive(timeout: Duration) throws(HCIMonitorError) -> BtsnoopRecord? {
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        switch cbluetooth_wait_readable(descriptor, milliseconds) {
        case 0: return nil
        case 1: break
        default: throw HCIMonitorError(errno: errno, operation: .receive)
        }
        var seconds: Int64 = 0
        var microseconds: Int64 = 0
        let received = buffer.withUnsafeMutableBytes { raw in
            cbluetooth_receive_monitor(descriptor, raw.baseAddress, raw.count, &seconds, &microseconds)
        }
        guard received >= 0 else {
            if errno == EAGAIN || errno == EINTR { return nil }
            throw HCIMonitorError(errno: errno, operation: .receive)
        }
        // struct mgmt_hdr: opcode, index, length (little-endian), then the packet.
        guard received >= 6 else { return nil }
        let opcode = UInt16(buffer[0]) | UInt16(buffer[1]) << 8
        let index = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
        let length = min(Int(UInt16(buffer[4]) | UInt16(buffer[5]) << 8), received - 6)
        return BtsnoopRecord(
            flags: UInt32(index) << 16 | UInt32(opcode),
            time: BtsnoopTime(unixMicroseconds: seconds * 1_000_000 + microseconds),
            data: Array(buffer[6..<6 + length]))
    }
}

/// Why the HCI monitor channel could not be opened or read, with what to do about it.
public struct HCIMonitorError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Name: Sendable, Equatable {
        /// EPERM or EACCES: the process lacks CAP_NET_RAW.
        case permissionDenied
        /// EAFNOSUPPORT, EPROTONOSUPPORT or ENODEV: the kernel has no Bluetooth (or no HCI sockets).
        case bluetoothUnavailable
        case other
    }

    public enum Operation: String, Sendable {
        case open = "socket"
        case bind
        case receive = "recvmsg"
    }

    public let name: Name
    public let errno: Int32
    public let operation: Operation

    public init(errno: Int32, operation: Operation) {
        self.errno = errno
        self.operation = operation
        switch errno {
        case EPERM, EACCES: name = .permissionDenied
        case EAFNOSUPPORT, EPROTONOSUPPORT, ENODEV: name = .bluetoothUnavailable
        default: name = .other
        }
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch name {
        case .permissionDenied:
            return "reading the HCI monitor needs the CAP_NET_RAW capability (\(operation.rawValue): \(reason)); "
                + "run as root, or grant it once: sudo setcap cap_net_raw+ep \"$(command -v sensorbridge)\""
        case .bluetoothUnavailable:
            return "this kernel has no Bluetooth (\(operation.rawValue): \(reason)); load the modules with "
                + "'sudo modprobe bluetooth' (and the adapter's driver, such as btusb), or run on a machine with "
                + "Bluetooth: containers and many virtual machines have none"
        case .other:
            return "the HCI monitor socket failed (\(operation.rawValue): \(reason))"
        }
    }
}
