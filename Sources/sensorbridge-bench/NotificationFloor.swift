import BlueZ
import CDBus
import Foundation
import SensorCore
import Synchronization

/// The floor under `record`'s CPU per notification from BlueZ, beside it in the `bluez` benchmark:
/// the least a client must do to receive the same notifications from the same mock. Its own
/// private libdbus connection subscribes each measurement characteristic as a client must
/// (`StartNotify`, and the match rule for `PropertiesChanged` from org.bluez; or `AcquireNotify`),
/// then one thread receives and counts, nothing else: no decoding, no hand-off, no workout. Its CPU
/// is that thread's (its CPU-time clock; the thread is named `threadName` for `top -H`).
///
/// Signals: `dbus_connection_read_write_dispatch` (libdbus reads and validates each message and
/// runs the filter) and a filter that counts a `PropertiesChanged` whose first changed property is
/// `Value`. Sockets: `poll` on the characteristics' `AcquireNotify` sockets and one `recv` of a
/// packet per readable socket, as an event loop does (asyncio's `add_reader`, bleak's reader).
///
/// Relaying (AcquireNotify only): each packet is also sent on at once, one `send` on a socket per
/// characteristic whose reader is a process of its own (`PacketCounter`), as bluetoothd reads a
/// relay's sockets: the least a relay can cost, beside what `record --relay` costs.
final class NotificationFloor: @unchecked Sendable {
    enum Subscription {
        case startNotify
        case acquireNotify
    }

    /// The measurement characteristics subscribed: Heart Rate Measurement and Cycling Power Measurement.
    static let uuids = ["2a37", "2a63"].map { "0000\($0)-0000-1000-8000-00805f9b34fb" }

    let threadName: String
    /// Owned; only the receiving thread uses it between `init` and `stop()`.
    private let connection: OpaquePointer
    private let sockets: [Int32]
    /// Where a relaying floor sends each packet (`sockets[i]`'s to `counter.sockets[i]`).
    private let counter: PacketCounter?
    /// Packets the relaying floor's reader got, once stopped.
    private(set) var relayed: Int?
    private let count = Atomic(0)
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    /// The receiving thread's CPU-time clock, once it runs.
    private let cpuClock = Mutex<clockid_t?>(nil)

    /// Connects the mock's devices, subscribes their measurements and starts receiving.
    init(environment: [String: String], subscription: Subscription, relaying: Bool = false) throws {
        precondition(!relaying || subscription == .acquireNotify, "the floor relays what it reads from sockets")
        // Finding the characteristics and connecting the devices is not what is measured: BlueZClient does it.
        let client = try BlueZClient(environment: environment)
        defer { client.bus.close() }
        let characteristic = "org.bluez.GattCharacteristic1"
        let measurements = client.paths(with: characteristic).filter {
            client.properties($0, characteristic)?["UUID"]?.string.map(Self.uuids.contains) ?? false
        }
        guard measurements.count == Self.uuids.count else {
            throw BlueZBenchmark.Failure(description: "the mock offers \(measurements.count) measurement characteristics, not \(Self.uuids.count)")
        }
        for device in client.paths(with: "org.bluez.Device1") { try client.call(device, "org.bluez.Device1", "Connect") }

        dbus_threads_init_default()
        var error = cdbus_error_make()
        guard let connection = dbus_connection_open_private(environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "", &error) else {
            throw Self.failure(&error)
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        var sockets: [Int32] = []
        do {
            guard dbus_bus_register(connection, &error) != 0 else { throw Self.failure(&error) }
            if subscription == .startNotify {
                dbus_bus_add_match(
                    connection,
                    "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                        + "member='PropertiesChanged',path_namespace='/org/bluez'", &error)
                if dbus_error_is_set(&error) != 0 { throw Self.failure(&error) }
            }
            for path in measurements {
                let reply = try Self.call(connection, path, subscription == .startNotify ? "StartNotify" : "AcquireNotify")
                defer { dbus_message_unref(reply) }
                if subscription == .acquireNotify {
                    // (h fd, q mtu): libdbus hands over a duplicate of the descriptor, ours to close.
                    var arguments = DBusMessageIter()
                    var fd: Int32 = -1
                    guard dbus_message_iter_init(reply, &arguments) != 0,
                        dbus_message_iter_get_arg_type(&arguments) == CDBUS_TYPE_UNIX_FD
                    else { throw BlueZBenchmark.Failure(description: "AcquireNotify on \(path) gave no socket") }
                    dbus_message_iter_get_basic(&arguments, &fd)
                    sockets.append(fd)
                }
            }
        } catch {
            sockets.forEach { close($0) }
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw error
        }
        do {
            counter = relaying ? try PacketCounter(count: sockets.count) : nil
        } catch {
            sockets.forEach { close($0) }
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw error
        }
        self.connection = connection
        self.sockets = sockets
        threadName = subscription == .startNotify ? "floor.dbus" : relaying ? "floor.relay" : "floor.socket"
        if subscription == .startNotify {
            dbus_connection_add_filter(connection, { _, message, context in
                guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                guard NotificationFloor.isValueChange(message) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                Unmanaged<NotificationFloor>.fromOpaque(context).takeUnretainedValue().count.add(1, ordering: .relaxed)
                return DBUS_HANDLER_RESULT_HANDLED
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
        }
        Thread { [self] in
            Thread.nameCurrent(threadName)
            var clock = clockid_t()
            pthread_getcpuclockid(pthread_self(), &clock)
            cpuClock.withLock { $0 = clock }
            if subscription == .startNotify { receiveSignals() } else { receivePackets() }
            finished.signal()
        }.start()
    }

    /// Notifications counted so far.
    var received: Int { count.load(ordering: .relaxed) }

    /// CPU seconds the receiving thread has used so far (0 before it runs). The corresponding C
    /// functions are `pthread_getcpuclockid` and `clock_gettime`.
    var cpuSeconds: Double {
        guard let clock = cpuClock.withLock({ $0 }) else { return 0 }
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Ends the receiving thread, then closes the sockets and the connection (BlueZ ends the
    /// subscriptions of a client that leaves).
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
        relayed = counter?.finish()
        sockets.forEach { close($0) }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    private func receiveSignals() {
        // Wakes at least every 100 ms to see `stopping`.
        while !stopping.load(ordering: .relaxed), dbus_connection_read_write_dispatch(connection, 100) != 0 {}
    }

    private func receivePackets() {
        var entries = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        // The largest ATT value is 512 bytes.
        var packet = [UInt8](repeating: 0, count: 1024)
        let relays = counter?.sockets
        while !stopping.load(ordering: .relaxed) {
            guard poll(&entries, nfds_t(entries.count), 100) > 0 else { continue }
            for index in entries.indices where entries[index].revents != 0 {
                let read = packet.withUnsafeMutableBytes { recv(entries[index].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if read > 0 {
                    count.add(1, ordering: .relaxed)
                    if let relays {
                        _ = packet.withUnsafeBytes { send(relays[index], $0.baseAddress, read, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                    }
                } else if read == 0 || entries[index].revents & Int16(POLLHUP | POLLERR) != 0 {
                    entries[index].fd = -1  // released by the mock: poll skips it
                }
            }
        }
    }

    /// Whether `message` is a `PropertiesChanged` signal whose first changed property is `Value`
    /// (what BlueZ sends for a notification), read in place.
    private static func isValueChange(_ message: OpaquePointer) -> Bool {
        guard dbus_message_is_signal(message, "org.freedesktop.DBus.Properties", "PropertiesChanged") != 0 else { return false }
        var arguments = DBusMessageIter(), changed = DBusMessageIter(), entry = DBusMessageIter()
        guard dbus_message_iter_init(message, &arguments) != 0, dbus_message_iter_next(&arguments) != 0,
            dbus_message_iter_get_arg_type(&arguments) == CDBUS_TYPE_ARRAY
        else { return false }
        dbus_message_iter_recurse(&arguments, &changed)
        guard dbus_message_iter_get_arg_type(&changed) == CDBUS_TYPE_DICT_ENTRY else { return false }
        dbus_message_iter_recurse(&changed, &entry)
        var name: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&entry, &name)
        return name.map { strcmp($0, "Value") == 0 } ?? false
    }

    /// A blocking call of a `GattCharacteristic1` method; `AcquireNotify` gets its empty options.
    private static func call(_ connection: OpaquePointer, _ path: String, _ member: String) throws -> OpaquePointer {
        guard let message = dbus_message_new_method_call("org.bluez", path, "org.bluez.GattCharacteristic1", member) else {
            throw BlueZBenchmark.Failure(description: "out of memory")
        }
        defer { dbus_message_unref(message) }
        if member == "AcquireNotify" {
            var arguments = DBusMessageIter(), options = DBusMessageIter()
            dbus_message_iter_init_append(message, &arguments)
            dbus_message_iter_open_container(&arguments, CDBUS_TYPE_ARRAY, "{sv}", &options)
            dbus_message_iter_close_container(&arguments, &options)
        }
        var error = cdbus_error_make()
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, 10_000, &error) else {
            throw failure(&error)
        }
        return reply
    }

    private static func failure(_ error: inout CDBus.DBusError) -> BlueZBenchmark.Failure {
        defer { dbus_error_free(&error) }
        return BlueZBenchmark.Failure(description: error.message.map { String(cString: $0) } ?? "D-Bus failed")
    }
}
