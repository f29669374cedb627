import CDBus
import Foundation
import SensorCore
import Synchronization

/// A signal as delivered to a match handler.
public struct DBusSignal: Sendable {
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}

/// Which signals a handler receives. Only the fields given are compared; `pathPrefix` matches the
/// path itself and everything below it.
public struct DBusMatchRule: Sendable, Hashable {
    public var interface: String?
    public var member: String?
    public var pathPrefix: String?
    /// The first argument, when it is a string (NameOwnerChanged's name).
    public var arg0: String?

    public init(interface: String? = nil, member: String? = nil, pathPrefix: String? = nil, arg0: String? = nil) {
        self.interface = interface
        self.member = member
        self.pathPrefix = pathPrefix
        self.arg0 = arg0
    }

    /// The rule string for the bus daemon's AddMatch.
    var busRule: String {
        var parts = ["type='signal'"]
        if let interface { parts.append("interface='\(interface)'") }
        if let member { parts.append("member='\(member)'") }
        if let pathPrefix { parts.append(pathPrefix == "/" ? "path_namespace='/'" : "path_namespace='\(pathPrefix)'") }
        if let arg0 { parts.append("arg0='\(arg0)'") }
        return parts.joined(separator: ",")
    }

    func matches(interface: String, member: String, path: String, arguments: () -> [DBusValue]) -> Bool {
        if let i = self.interface, i != interface { return false }
        if let m = self.member, m != member { return false }
        if let p = pathPrefix, p != "/", path != p, !path.hasPrefix(p + "/") { return false }
        if let a = arg0, arguments().first?.string != a { return false }
        return true
    }
}

/// A handle to a signal subscription; pass it to `removeMatch`.
public struct DBusMatchToken: Sendable, Hashable {
    let id: Int
}

/// One private connection to a message bus, served by its own dispatch thread.
///
/// Every libdbus call on the connection happens on the dispatch thread: callers enqueue jobs and
/// wake it through an eventfd. Replies are matched to calls by serial in a message filter; signal
/// handlers run on the dispatch thread, so they must be quick (push into a ring, resume a task).
/// The corresponding C functions are `dbus_connection_open_private`, `dbus_bus_register`,
/// `dbus_connection_send` and `dbus_connection_read_write`.
///
/// Call `close()` when done: the dispatch thread keeps the connection alive until then.
///
/// `@unchecked Sendable`: `raw` and `loop` are touched only on the dispatch thread (after `init`
/// hands them over); everything shared between threads is in `shared`, behind a mutex.
public final class DBusConnection: @unchecked Sendable {
    private let raw: OpaquePointer
    private let wakeFD: Int32
    /// The bus-assigned unique name (`:1.42`).
    public let uniqueName: String
    private let shared = Mutex(Shared())
    private var loop = LoopState()
    private let finished = DispatchSemaphore(value: 0)
    /// The dispatch thread's `pthread_self()`, once it runs.
    private let dispatchThread = Atomic<UInt>(0)

    private struct Shared {
        var jobs: [@Sendable (DBusConnection) -> Void] = []
        var closed = false
        /// Subscriptions in the order they were added (ids increase).
        var matches: [(id: Int, rule: DBusMatchRule, handler: @Sendable (DBusSignal) -> Void)] = []
        var nextMatch = 0
        /// Exported object paths and the handlers of their method calls.
        var exports: [String: DBusMethodHandler] = [:]
        /// Whether the bus connection was lost (the bus daemon went away), and who wants to know.
        var lost = false
        var lostHandlers: [@Sendable () -> Void] = []
        /// Packet sockets handed to `readPackets` that the dispatch thread has not taken yet.
        var newReaders: [(fd: Int32, handler: @Sendable (PacketEvent) -> Void, stampedSince: Int64?)] = []
    }

    private struct Pending {
        var deadline: ContinuousClock.Instant
        var completion: @Sendable (Result<[DBusValue], DBusError>) -> Void
    }

    /// Dispatch-thread-only state.
    private struct LoopState {
        var pending: [UInt32: Pending] = [:]
        var busRules: [String: Int] = [:]
        /// Packet sockets read on this thread (`readPackets`), by descriptor.
        var readers: [Int32: @Sendable (PacketEvent) -> Void] = [:]
        /// When each packet socket was asked for receive times (realtime ns), until its first
        /// packet stamped when it came: the packets that waited before that are stamped by the
        /// kernel when they are read, not when they came, and came no later than this.
        var stampedSince: [Int32: Int64] = [:]
        /// `readPackets`'s list of the packets it read, kept for the next read.
        var gathered: [(fd: Int32, index: Int)] = []
        /// The descriptors of `readers`, in increasing order.
        var readerOrder: [(fd: Int32, hungUp: Bool)] = []
        /// The poll set must be made again: a socket came or went, or batching began or ended.
        var readersChanged = false
        /// `watchByteProperty` subscriptions, oldest first.
        var byteWatches: [ByteWatch] = []
        /// Forgets the packet socket `fd` (not closing it); its handler, nil when it was not read.
        mutating func removeReader(_ fd: Int32) -> (@Sendable (PacketEvent) -> Void)? {
            guard let handler = readers.removeValue(forKey: fd) else { return nil }
            stampedSince[fd] = nil
            readerOrder.removeAll { $0.fd == fd }
            readersChanged = true
            return handler
        }
        /// `afterEachTurn` handlers.
        var turnEnds: [@Sendable () -> Void] = []
        /// How many of `turnEnds` are `first` handlers (they lead).
        var firstTurnEnds = 0
        /// The bytes of each value handed to a handler, reused: no allocation per value while
        /// handlers keep no copy.
        var scratch: [UInt8] = []
        /// `batchPackets(within:)`: while packets stream in, the sockets are read this often
        /// instead of as each packet arrives (zero: as they arrive).
        var packetWindow = Duration.zero
        /// Whether the sockets are left out of the poll set and read once per `packetWindow`.
        var packetsBatched = false
        /// When packets were last read.
        var lastPacketRead: ContinuousClock.Instant?
    }

    /// What a packet socket read by `readPackets` brings.
    public enum PacketEvent: Sendable {
        /// A packet's bytes, and when the kernel received it (when the socket could not be asked
        /// for receive times: when it was read).
        case packet([UInt8], receivedAt: ContinuousClock.Instant)
        /// The other end closed, or reading failed; the socket is closed.
        case closed
    }

    /// Room for the packets of one read of the sockets (up to `perCall` from each, `count` in
    /// all): the only unsafe memory of the packet sockets.
    private final class PacketBatch {
        static let count = 256
        /// Packets one `recvmmsg` call takes.
        static let perCall = 64
        /// Packets the first call on a socket takes: most reads find one or two, and each packet
        /// asked for is a message header the call must prepare; a full first call is followed by
        /// calls for `perCall`.
        static let firstCall = 8
        /// ATT values are at most 512 bytes.
        static let size = 1024
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: count * size)
        let lengths = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
        let stamps = UnsafeMutablePointer<Int64>.allocate(capacity: count)

        deinit {
            bytes.deallocate()
            lengths.deallocate()
            stamps.deallocate()
        }

        func packet(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: bytes + index * Self.size, count: Int(lengths[index]))
        }
    }
    private let packetBatch = PacketBatch()

    /// A byte-array property watched on one object: the strings as NUL-terminated C strings, so a
    /// message is compared with them without making Swift strings.
    private struct ByteWatch {
        var id: Int
        var path: [CChar]
        var interface: [CChar]
        var property: [CChar]
        var handler: @Sendable ([UInt8]) -> Void
    }

    /// Whether the caller runs on the dispatch thread (in a handler of this connection).
    public var onDispatchThread: Bool { dispatchThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs `handler` on the dispatch thread after each turn: once the messages and packets that
    /// were waiting have been handled, before the thread waits for more. A handler that stages
    /// what the messages brought (a ring's `stage`) publishes the batch here, once per turn.
    /// `first` handlers run before the others: one that wakes another process goes before one
    /// that wakes a thread of this one onto this CPU, which the second wake-up would let take the
    /// CPU before the turn has ended.
    public func afterEachTurn(first: Bool = false, _ handler: @escaping @Sendable () -> Void) {
        _ = enqueue { connection in
            if first {
                connection.loop.turnEnds.insert(handler, at: connection.loop.firstTurnEnds)
                connection.loop.firstTurnEnds += 1
            } else {
                connection.loop.turnEnds.append(handler)
            }
        }
    }

    /// Connects to the system bus: `DBUS_SYSTEM_BUS_ADDRESS` from `environment` when set, else
    /// the standard socket.
    public static func system(environment: [String: String]? = nil) throws(DBusError) -> DBusConnection {
        let environment = environment ?? ProcessInfo.processInfo.environment
        return try DBusConnection(address: environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket")
    }

    /// Connects to the bus at `address` and registers with it.
    public init(address: String) throws(DBusError) {
        dbus_threads_init_default()
        var error = cdbus_error_make()
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw Self.take(&error)
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0 else {
            let failure = Self.take(&error)
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw failure
        }
        raw = connection
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        wakeFD = cdbus_wake_fd_make()
        let unmanaged = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_add_filter(connection, { _, message, context in
            guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return Unmanaged<DBusConnection>.fromOpaque(context).takeUnretainedValue().filter(message)
        }, unmanaged, nil)
        let thread = Thread { [self] in
            // Named on the thread itself, for the kernel too (`Thread.nameCurrent`).
            Thread.nameCurrent("sb.dbus")
            dispatchThread.store(UInt(pthread_self()), ordering: .releasing)
            run()
            finished.signal()
        }
        thread.start()
    }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        Glibc.close(wakeFD)
    }

    private static func take(_ error: inout CDBus.DBusError) -> DBusError {
        defer { dbus_error_free(&error) }
        let name = error.name.map { String(cString: $0) } ?? DBusError.Name.failed.rawValue
        let message = error.message.map { String(cString: $0) } ?? ""
        return DBusError(DBusError.Name(name), message)
    }

    /// Calls `handler` once, on the dispatch thread, when the connection to the bus is lost (the
    /// bus daemon stopped); at once when it is lost already. Not called after `close()`.
    public func whenLost(_ handler: @escaping @Sendable () -> Void) {
        let lost = shared.withLock { s in
            if !s.lost { s.lostHandlers.append(handler) }
            return s.lost
        }
        if lost { handler() }
    }

    /// Closes the connection: pending calls fail with `disconnected`, the dispatch thread ends.
    /// The object itself is freed when the last reference goes.
    public func close() {
        let already = shared.withLock { s in
            defer { s.closed = true }
            return s.closed
        }
        guard !already else { return }
        wake()
        finished.wait()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs `job` on the dispatch thread between two messages, as if it were a signal handler: it
    /// sees what the handlers before it did and runs before the handlers after it. Not run once the
    /// connection is closed.
    public func perform(_ job: @escaping @Sendable () -> Void) {
        _ = enqueue { _ in job() }
    }

    private func enqueue(_ job: @escaping @Sendable (DBusConnection) -> Void) -> Bool {
        let accepted = shared.withLock { s in
            if s.closed { return false }
            s.jobs.append(job)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    // MARK: Calls

    /// Calls a method; `completion` runs on the dispatch thread with the reply's arguments or
    /// the error (a D-Bus error reply, `noReply` after `timeout`, `disconnected`).
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25), completion: @escaping @Sendable (Result<[DBusValue], DBusError>) -> Void
    ) {
        let accepted = enqueue { connection in
            connection.send(destination, path, interface, member, arguments, timeout, completion)
        }
        if !accepted { completion(.failure(DBusError(.disconnected, "the connection is closed"))) }
    }

    /// Calls a method and waits for its reply.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        let result = await withCheckedContinuation { continuation in
            call(destination: destination, path: path, interface: interface, member: member, arguments: arguments,
                timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Calls a method and blocks the calling thread (never the dispatch thread) for its reply.
    public func callBlocking(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) throws(DBusError) -> [DBusValue] {
        let box = Mutex<Result<[DBusValue], DBusError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        call(destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeout: timeout) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    private func send(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue],
        _ timeout: Duration, _ completion: @escaping @Sendable (Result<[DBusValue], DBusError>) -> Void
    ) {
        guard dbus_validate_path(path, nil) != 0, dbus_validate_interface(interface, nil) != 0,
            dbus_validate_member(member, nil) != 0, dbus_validate_bus_name(destination, nil) != 0,
            let message = dbus_message_new_method_call(destination, path, interface, member)
        else {
            completion(.failure(DBusError(.invalidArgs, "invalid call \(destination) \(path) \(interface).\(member)")))
            return
        }
        defer { dbus_message_unref(message) }
        guard DBusMessageCoding.append(arguments, to: message) else {
            completion(.failure(DBusError(.invalidArgs, "arguments of \(interface).\(member) cannot be sent")))
            return
        }
        var serial: UInt32 = 0
        guard dbus_connection_get_is_connected(raw) != 0, dbus_connection_send(raw, message, &serial) != 0 else {
            completion(.failure(DBusError(.disconnected, "the bus connection is gone")))
            return
        }
        loop.pending[serial] = Pending(deadline: .now + timeout, completion: completion)
    }

    // MARK: Signals

    /// Subscribes `handler` to the signals `rule` selects; it runs on the dispatch thread.
    @discardableResult
    public func addMatch(_ rule: DBusMatchRule, handler: @escaping @Sendable (DBusSignal) -> Void) -> DBusMatchToken {
        let id = shared.withLock { s in
            s.nextMatch += 1
            s.matches.append((s.nextMatch, rule, handler))
            return s.nextMatch
        }
        _ = enqueue { connection in
            let text = rule.busRule
            connection.loop.busRules[text, default: 0] += 1
            if connection.loop.busRules[text] == 1 { dbus_bus_add_match(connection.raw, text, nil) }
        }
        return DBusMatchToken(id: id)
    }

    public func removeMatch(_ token: DBusMatchToken) {
        let removed = shared.withLock { s in
            s.matches.firstIndex { $0.id == token.id }.map { s.matches.remove(at: $0).rule }
        }
        guard let rule = removed else { return }
        _ = enqueue { connection in
            let text = rule.busRule
            connection.loop.busRules[text, default: 1] -= 1
            if connection.loop.busRules[text] == 0 {
                connection.loop.busRules[text] = nil
                dbus_bus_remove_match(connection.raw, text, nil)
            }
        }
    }

    // MARK: Byte-array properties

    /// Watches one byte-array property (`ay`) of one object, the way a GATT characteristic's
    /// `Value` is notified: a `PropertiesChanged` signal from `path` whose changed properties of
    /// `interface` are `property` alone, and that invalidates nothing, goes to `handler` with the
    /// bytes, on the dispatch thread, and to no signal handler. Any other `PropertiesChanged`
    /// (more properties, invalidated ones, another type) goes to the signal handlers as before.
    ///
    /// Why: such a signal arrives for every notification of a sensor, and reading it this way
    /// compares C strings and copies the bytes once, where the signal handlers get every argument
    /// decoded into `DBusValue`s (strings, dictionaries, arrays). The signal still has to reach
    /// this connection: some `addMatch` must select it on the bus. The corresponding C functions
    /// are `dbus_message_is_signal` and `dbus_message_iter_get_fixed_array`.
    @discardableResult
    public func watchByteProperty(
        path: String, interface: String, property: String, handler: @escaping @Sendable ([UInt8]) -> Void
    ) -> DBusMatchToken {
        let id = shared.withLock { s in
            s.nextMatch += 1
            return s.nextMatch
        }
        let watch = ByteWatch(
            id: id, path: Array(path.utf8CString), interface: Array(interface.utf8CString),
            property: Array(property.utf8CString), handler: handler)
        _ = enqueue { connection in connection.loop.byteWatches.append(watch) }
        return DBusMatchToken(id: id)
    }

    /// Ends a `watchByteProperty`; its handler is not called after the dispatch thread's next turn.
    public func unwatch(_ token: DBusMatchToken) {
        _ = enqueue { connection in connection.loop.byteWatches.removeAll { $0.id == token.id } }
    }

    /// The handler of the watch that takes `message`, with the bytes for it in `loop.scratch`;
    /// nil when no watch does.
    private func byteWatch(for message: OpaquePointer) -> (@Sendable ([UInt8]) -> Void)? {
        guard dbus_message_is_signal(message, "org.freedesktop.DBus.Properties", "PropertiesChanged") != 0,
            let path = dbus_message_get_path(message)
        else { return nil }
        for watch in loop.byteWatches where strcmp(watch.path, path) == 0 {
            if DBusMessageCoding.onlyChangedBytes(
                message, interface: watch.interface, property: watch.property, into: &loop.scratch)
            {
                return watch.handler
            }
        }
        return nil
    }

    // MARK: Exported objects

    /// Sends a signal from `path`, as an object this connection exports does (a characteristic's
    /// `PropertiesChanged`): at once when called on the dispatch thread (a handler passing on what
    /// it just received), else queued to it. A signal that cannot be built or sent is dropped, as
    /// one sent to nobody would be. The corresponding C functions are `dbus_message_new_signal`
    /// and `dbus_connection_send`.
    public func emit(path: String, interface: String, member: String, arguments: [DBusValue]) {
        if onDispatchThread {
            sendSignal(path, interface, member, arguments)
        } else {
            _ = enqueue { $0.sendSignal(path, interface, member, arguments) }
        }
    }

    private func sendSignal(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) {
        guard dbus_validate_path(path, nil) != 0, dbus_validate_interface(interface, nil) != 0,
            dbus_validate_member(member, nil) != 0, let message = dbus_message_new_signal(path, interface, member)
        else { return }
        defer { dbus_message_unref(message) }
        guard DBusMessageCoding.append(arguments, to: message) else { return }
        dbus_connection_send(raw, message, nil)
    }

    /// Serves the method calls to `path` on this connection with `handler`, on the dispatch thread
    /// (so it must answer quickly, without calling back over this connection and waiting). Its
    /// result becomes the method return or the error reply; a file descriptor in it (`.unixFD`,
    /// at the top level) is handed over: sent, then closed here. Calls to paths not exported get
    /// `org.freedesktop.DBus.Error.UnknownMethod` from libdbus.
    public func export(_ path: String, handler: @escaping DBusMethodHandler) throws(DBusError) {
        guard dbus_validate_path(path, nil) != 0 else { throw DBusError(.invalidArgs, "'\(path)' is not an object path") }
        let added = shared.withLock { s in
            guard s.exports[path] == nil else { return false }
            s.exports[path] = handler
            return true
        }
        guard added else { throw DBusError(.objectPathInUse, "\(path) is already exported") }
    }

    /// Stops serving `path`; later calls to it get `UnknownMethod`.
    public func unexport(_ path: String) {
        _ = shared.withLock { $0.exports.removeValue(forKey: path) }
    }

    /// Answers a method call to an exported path; NOT_YET_HANDLED for other paths (libdbus then
    /// replies UnknownMethod). The corresponding C functions are `dbus_message_new_method_return`,
    /// `dbus_message_new_error` and `dbus_connection_send`.
    private func serve(_ message: OpaquePointer) -> DBusHandlerResult {
        let path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        guard let handler = shared.withLock({ $0.exports[path] }) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let call = DBusMethodCall(
            sender: dbus_message_get_sender(message).map { String(cString: $0) } ?? "", path: path,
            interface: dbus_message_get_interface(message).map { String(cString: $0) } ?? "",
            member: dbus_message_get_member(message).map { String(cString: $0) } ?? "",
            arguments: DBusMessageCoding.read(message))
        let result = handler(call)
        // libdbus sends a duplicate of each descriptor: the handler's own is closed once the reply is built.
        defer { if case .success(let values) = result { for case .unixFD(let fd) in values { Glibc.close(fd) } } }
        guard dbus_message_get_no_reply(message) == 0 else { return DBUS_HANDLER_RESULT_HANDLED }
        var reply: OpaquePointer?
        switch result {
        case .success(let values):
            reply = dbus_message_new_method_return(message)
            if let built = reply, !DBusMessageCoding.append(values, to: built) {
                dbus_message_unref(built)
                reply = dbus_message_new_error(message, DBusError.Name.failed.rawValue, "the reply could not be encoded")
            }
        case .failure(let error):
            let name = dbus_validate_error_name(error.name.rawValue, nil) != 0 ? error.name : .failed
            reply = dbus_message_new_error(message, name.rawValue, error.message)
        }
        if let reply {
            dbus_connection_send(raw, reply, nil)
            dbus_message_unref(reply)
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    // MARK: Packet sockets

    /// Reads `fd`, a packet socket (`SOCK_SEQPACKET`: one read, one value, as from BlueZ's
    /// `AcquireNotify`), on the dispatch thread, the thread of the signal handlers: `handler` gets
    /// each packet with the time the kernel received it (`SO_TIMESTAMPNS`), so a packet read late
    /// (in a batch) keeps its time; then `.closed` once the other end has closed (or reading
    /// fails), after which `fd` is closed. The waiting packets are read in one call, up to 64 at a
    /// time. Takes ownership of `fd`. The corresponding C functions are `poll` and `recvmmsg`.
    public func readPackets(from fd: Int32, handler: @escaping @Sendable (PacketEvent) -> Void) {
        // Without receive times (not a socket that has them) a packet is stamped when it is read.
        let stampedSince = cdbus_enable_receive_timestamps(fd) == 0 ? cdbus_realtime_nanoseconds() : nil
        // Not a job: a handler that runs before the next jobs (a signal dispatched with the reply
        // that gave `fd`) can already read it (`readWaitingPackets`).
        let accepted = shared.withLock { s in
            if s.closed { return false }
            s.newReaders.append((fd, handler, stampedSince))
            return true
        }
        if accepted { wake() } else { Glibc.close(fd) }
    }

    /// Takes the sockets `readPackets` was handed since the last time; on the dispatch thread.
    private func takeNewReaders() {
        let new = shared.withLock { s in
            defer { s.newReaders.removeAll() }
            return s.newReaders
        }
        guard !new.isEmpty else { return }
        for (fd, handler, stampedSince) in new {
            loop.readers[fd] = handler
            loop.stampedSince[fd] = stampedSince
        }
        loop.readersChanged = true
        loop.readerOrder = loop.readers.keys.sorted().map { ($0, false) }
    }

    /// A packet socket pair for handing values to another process, as a GATT server answers
    /// `AcquireNotify`: `ours` to send on (`sendPacket`; `readPackets` tells when the other side
    /// has closed), `theirs` to hand over in a method reply. Nil when the system refuses (out of
    /// descriptors). The corresponding C function is `socketpair`.
    public static func packetSocketPair() -> (ours: Int32, theirs: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard cdbus_packet_pair(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }

    /// Sends each of `packets` as one packet on `fd`, a `packetSocketPair` socket, in order and
    /// without waiting; returns how many were sent (fewer when the other side is not reading, or
    /// has closed). The corresponding C functions are `send` (one packet) and `sendmmsg`.
    @discardableResult
    public static func sendPackets(_ packets: [[UInt8]], on fd: Int32) -> Int {
        // One packet (the usual turn): sent from its own bytes, nothing gathered.
        if packets.count == 1 {
            return packets[0].withUnsafeBufferPointer { cdbus_send_packet(fd, $0.baseAddress, UInt($0.count)) } ? 1 : 0
        }
        var bytes: [UInt8] = []
        var offsets: [UInt] = []
        var lengths: [UInt] = []
        for packet in packets {
            offsets.append(UInt(bytes.count))
            lengths.append(UInt(packet.count))
            bytes += packet
        }
        return Int(cdbus_send_packets(fd, bytes, offsets, lengths, UInt32(packets.count)))
    }

    /// Stops reading `fd` and closes it; its handler is not called again.
    public func stopReading(_ fd: Int32) {
        _ = enqueue { connection in
            guard connection.loop.removeReader(fd) != nil else { return }
            Glibc.close(fd)
        }
    }

    /// While packets stream in faster than one per `window`, read the packet sockets once per
    /// `window` instead of as each packet arrives: one wake-up of the dispatch thread serves many
    /// packets, and each keeps the kernel's receive time. A window without packets returns to
    /// reading them as they arrive. Zero (the default): always as they arrive.
    public func batchPackets(within window: Duration) {
        _ = enqueue { connection in
            connection.loop.packetWindow = window
            if window == .zero, connection.loop.packetsBatched {
                connection.loop.packetsBatched = false
                connection.loop.readersChanged = true
            }
        }
    }

    /// Hands the packets already waiting on `fd` (a `readPackets` socket) to its handler now, and
    /// the end if the other side has closed. Only on the dispatch thread: in a signal handler or a
    /// `perform` job, which then sees every value sent before the signal it handles.
    public func readWaitingPackets(_ fd: Int32) {
        takeNewReaders()
        readPackets(of: [(fd, false)])
    }

    /// Whether the other end of `fd` has closed. The corresponding C function is `poll`.
    private static func isHungUp(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLHUP | POLLERR) != 0
    }

    /// Reads every packet waiting on `sockets` (each with whether poll saw it hung up) and hands
    /// them to their handlers merged in the order the kernel received them, so that values of
    /// several sensors read together keep their order in time; closes a socket once the other end
    /// has. Returns how many packets were delivered.
    @discardableResult
    private func readPackets(of sockets: [(fd: Int32, hungUp: Bool)]) -> Int {
        let batch = packetBatch
        var delivered = 0
        var pending = sockets
        var firstRound = true
        // The list of this read's packets, reused from read to read (a nested read makes its own).
        var gathered = loop.gathered
        loop.gathered = []
        defer {
            gathered.removeAll(keepingCapacity: true)
            loop.gathered = gathered
        }
        while !pending.isEmpty {
            defer { firstRound = false }
            // A stamp from this instant on was made by the read, not by the packet's arrival.
            let readStart = cdbus_realtime_nanoseconds()
            // Gather: up to `perCall` packets of each socket, as long as there is room.
            gathered.removeAll(keepingCapacity: true)
            var ended: [Int32] = []
            var again: [(fd: Int32, hungUp: Bool)] = []
            var used = 0
            for (fd, hungUp) in pending where loop.readers[fd] != nil {
                guard used + PacketBatch.perCall <= PacketBatch.count else {
                    again.append((fd, hungUp))
                    continue
                }
                // A socket read again (its first call was full) or to its end takes the most.
                let asked = hungUp || !firstRound ? PacketBatch.perCall : PacketBatch.firstCall
                let count = Int(
                    cdbus_receive_packets(
                        fd, batch.bytes + used * PacketBatch.size, UInt32(PacketBatch.size), UInt32(asked),
                        batch.lengths + used, batch.stamps + used))
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { continue }
                // Nothing at all (0) or an error (-1) ends the socket; so does an empty packet with
                // the other end closed (an empty packet is otherwise an empty value; the end also sets
                // POLLHUP, which may have come after the poll that woke this read).
                var end = count <= 0
                for index in used ..< used + max(count, 0) {
                    if batch.lengths[index] == 0, hungUp || Self.isHungUp(fd) {
                        end = true
                        break
                    }
                    gathered.append((fd, index))
                }
                if end {
                    ended.append(fd)
                } else if count == asked || hungUp {
                    // A full call may have more behind it; a hung-up socket is read to its end.
                    again.append((fd, hungUp))
                }
                used += max(count, 0)
            }
            // A packet that waited before its socket was asked for receive times is stamped by this
            // read: it came no later than the asking, which it takes. They are the first of their
            // socket, up to the first packet stamped before this read.
            for (fd, index) in gathered {
                guard let since = loop.stampedSince[fd] else { continue }
                if batch.stamps[index] == 0 || batch.stamps[index] >= readStart {
                    batch.stamps[index] = since
                } else {
                    loop.stampedSince[fd] = nil
                }
            }
            // Deliver, oldest first; ties keep the order read (slots are taken in that order, so one
            // socket's packets keep theirs).
            let before = { (a: (fd: Int32, index: Int), b: (fd: Int32, index: Int)) in
                (batch.stamps[a.index], a.index) < (batch.stamps[b.index], b.index)
            }
            if zip(gathered, gathered.dropFirst()).contains(where: { before($1, $0) }) { gathered.sort(by: before) }
            let (now, realNow) = (ContinuousClock.now, cdbus_realtime_nanoseconds())
            for (fd, index) in gathered {
                // A handler may have stopped reading a socket (a nested read reached its end).
                guard let handler = loop.readers[fd] else { continue }
                // Without a receive time (a socket that has none), the read's.
                let stamp = batch.stamps[index]
                let age = stamp > 0 ? Duration.nanoseconds(max(realNow - stamp, 0)) : .zero
                loop.scratch.removeAll(keepingCapacity: true)
                loop.scratch.append(contentsOf: batch.packet(index))
                handler(.packet(loop.scratch, receivedAt: now - age))
                delivered += 1
            }
            for fd in ended {
                guard let handler = loop.removeReader(fd) else { continue }
                Glibc.close(fd)
                handler(.closed)
            }
            pending = again
        }
        return delivered
    }

    // MARK: Dispatch thread

    private func filter(_ message: OpaquePointer) -> DBusHandlerResult {
        let type = dbus_message_get_type(message)
        if type == CDBUS_MESSAGE_TYPE_METHOD_CALL { return serve(message) }
        if type == CDBUS_MESSAGE_TYPE_METHOD_RETURN || type == CDBUS_MESSAGE_TYPE_ERROR {
            guard let pending = loop.pending.removeValue(forKey: dbus_message_get_reply_serial(message)) else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            let arguments = DBusMessageCoding.read(message)
            if type == CDBUS_MESSAGE_TYPE_ERROR {
                let name = dbus_message_get_error_name(message).map { String(cString: $0) } ?? DBusError.Name.failed.rawValue
                pending.completion(.failure(DBusError(DBusError.Name(name), arguments.first?.string ?? "")))
            } else {
                pending.completion(.success(arguments))
            }
            return DBUS_HANDLER_RESULT_HANDLED
        }
        if type == CDBUS_MESSAGE_TYPE_SIGNAL {
            if !loop.byteWatches.isEmpty, let handler = byteWatch(for: message) {
                handler(loop.scratch)
                return DBUS_HANDLER_RESULT_HANDLED
            }
            let interface = dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
            let member = dbus_message_get_member(message).map { String(cString: $0) } ?? ""
            let path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
            var arguments: [DBusValue]?
            let read = {
                if arguments == nil { arguments = DBusMessageCoding.read(message) }
                return arguments!
            }
            // One pass, no sorting: `matches` is kept in the order of subscription.
            let matches = shared.withLock { $0.matches }
            var handlers: [@Sendable (DBusSignal) -> Void] = []
            for match in matches
            where match.rule.matches(interface: interface, member: member, path: path, arguments: read) {
                handlers.append(match.handler)
            }
            guard !handlers.isEmpty else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let sender = dbus_message_get_sender(message).map { String(cString: $0) } ?? ""
            let signal = DBusSignal(sender: sender, path: path, interface: interface, member: member, arguments: read())
            for handler in handlers { handler(signal) }
        }
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    private func failPending(_ error: DBusError, where condition: (Pending) -> Bool) {
        guard !loop.pending.isEmpty else { return }
        for (serial, pending) in loop.pending where condition(pending) {
            loop.pending[serial] = nil
            pending.completion(.failure(error))
        }
    }

    private func run() {
        var fd: Int32 = -1
        dbus_connection_get_unix_fd(raw, &fd)
        // Allocated once (again when packet sockets come or go): the loop runs once per message received.
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0), pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        // Whether libdbus has work: the bus socket was readable or a job ran (jobs send). A turn
        // that only read packet sockets leaves libdbus alone (its flush and dispatch take its
        // locks each time). At first, what registering left queued.
        var busWork = true
        var connected = true
        while true {
            // Before the jobs: a job may stop reading a socket handed over before it.
            takeNewReaders()
            let (jobs, closed) = shared.withLock { s in
                defer { s.jobs.removeAll() }
                return (s.jobs, s.closed)
            }
            for job in jobs { job(self) }
            if closed { break }
            if busWork || !jobs.isEmpty {
                busWork = false
                dbus_connection_flush(raw)
                while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
                connected = dbus_connection_get_is_connected(raw) != 0
            }
            if !connected {
                failPending(DBusError(.disconnected, "the bus connection was lost")) { _ in true }
                let handlers = shared.withLock { s in
                    defer { s.lostHandlers.removeAll() }
                    s.lost = true
                    return s.lostHandlers
                }
                for handler in handlers { handler() }
            }
            var now = ContinuousClock.now
            failPending(DBusError(.noReply, "no reply in time")) { $0.deadline <= now }
            // A batch window that has ended: read what came meanwhile; a window without packets
            // returns to reading them as they arrive.
            if loop.packetsBatched, let last = loop.lastPacketRead, now - last >= loop.packetWindow {
                if readPackets(of: loop.readerOrder) == 0 {
                    loop.packetsBatched = false
                    loop.readersChanged = true
                }
                loop.lastPacketRead = now
            }
            // What this turn's handlers staged is published before the thread waits.
            for handler in loop.turnEnds { handler() }
            now = ContinuousClock.now
            var deadline = loop.pending.values.lazy.map { $0.deadline }.min()
            if loop.packetsBatched, let last = loop.lastPacketRead {
                deadline = min(deadline ?? last + loop.packetWindow, last + loop.packetWindow)
            }
            var timeout: Int32 = -1
            if let deadline {
                let wait = max(deadline - now, .zero)
                // Rounded up to whole milliseconds: poll's unit.
                timeout = Int32(clamping: wait.components.seconds * 1000 + (wait.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            if loop.readersChanged {
                fds.removeSubrange(2...)
                // Batched sockets are not watched: they are read when the window ends.
                if !loop.packetsBatched {
                    fds += loop.readerOrder.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                }
                loop.readersChanged = false
            }
            // A negative descriptor is skipped by poll: the bus socket once the connection is gone.
            fds[1].fd = connected ? fd : -1
            for index in fds.indices { fds[index].revents = 0 }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready > 0 {
                if fds[0].revents != 0 {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                }
                if fds[1].revents != 0 {
                    dbus_connection_read_write(raw, 0)
                    busWork = true
                }
                let readable = fds[2...].filter { $0.revents != 0 }
                let delivered = readable.isEmpty
                    ? 0 : readPackets(of: readable.map { ($0.fd, $0.revents & Int16(POLLHUP | POLLERR) != 0) })
                if delivered > 0 {
                    // Packets arriving closer together than the window: read them once per window from now on.
                    let arrived = ContinuousClock.now
                    if loop.packetWindow > .zero, let last = loop.lastPacketRead, arrived - last < loop.packetWindow {
                        loop.packetsBatched = true
                        loop.readersChanged = true
                    }
                    loop.lastPacketRead = arrived
                }
            }
        }
        failPending(DBusError(.disconnected, "the connection was closed")) { _ in true }
        for fd in loop.readers.keys { Glibc.close(fd) }
        loop.readers.removeAll()
        loop.readerOrder.removeAll()
    }
}
