import CMicroHTTPD
import Foundation
import Synchronization

/// A request as libmicrohttpd parsed it.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path, percent-decoded, without the query: `/api/workouts/3`.
    public var path: String
    /// The query's arguments, decoded.
    public var query: [String: String]
    /// The headers, by lowercased name.
    public var headers: [String: String]
    /// The body (at most the server's `maximumBodyBytes`).
    public var body: [UInt8]
    /// The cookies the client sent, by name.
    public var cookies: [String: String]
    /// The client's IP address (`192.0.2.7`, `::1`); empty when unknown.
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = [],
        cookies: [String: String] = [:], remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.cookies = cookies
        self.remoteAddress = remoteAddress
    }

    /// Whether the path or a query argument holds a control character (`%00`, `%0A`, ...): the
    /// server percent-decodes them to DEL (0x7F), so none can cut the path short.
    public var hasControlCharacters: Bool {
        func control(_ text: String) -> Bool { text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
        return control(path) || query.contains { control($0.key) || control($0.value) }
    }

    /// The header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What to answer: a status, headers and a body of bytes, or a stream that stays open
/// (Server-Sent Events).
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(HTTPStream)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `status` with a text body.
    public static func text(_ status: Int, _ text: String, type: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: .bytes(Array(text.utf8)))
    }
}

/// A response body written while the connection stays open: the application writes, the
/// connection's thread sends. Bounded: a client that reads too slowly is not waited for; `write`
/// returns false once `capacity` bytes are waiting, and the application decides (drop it, or
/// resynchronise it later).
public final class HTTPStream: Sendable {
    public let capacity: Int
    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    private struct State {
        var pending: [UInt8] = []
        var closed = false
    }

    public init(capacity: Int = 256 * 1024) {
        self.capacity = capacity
    }

    /// Queues `bytes`; false (nothing queued) when the stream is closed or would hold more than `capacity`.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let queued = state.withLock { s -> Bool in
            guard !s.closed, s.pending.count + bytes.count <= capacity else { return false }
            s.pending += bytes
            return true
        }
        if queued { ready.signal() }
        return queued
    }

    /// Ends the stream: what is queued is still sent, then the response ends.
    public func close() {
        state.withLock { $0.closed = true }
        ready.signal()
    }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Bytes waiting (for tests and statistics).
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Up to `maximum` queued bytes, waiting up to `timeout` for some; empty on timeout, nil once
    /// closed and drained.
    public func read(maximum: Int, timeout: Duration) -> [UInt8]? {
        let deadline = DispatchTime.now() + timeout.seconds
        while true {
            let (bytes, closed) = state.withLock { s -> ([UInt8], Bool) in
                let count = min(maximum, s.pending.count)
                defer { s.pending.removeFirst(count) }
                return (Array(s.pending.prefix(count)), s.closed)
            }
            if !bytes.isEmpty { return bytes }
            if closed { return nil }
            if ready.wait(timeout: deadline) == .timedOut { return [] }
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Why the server did not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The certificate and private key of an HTTPS server, as PEM text.
public struct TLSIdentity: Sendable {
    public var certificatePEM: String
    public var keyPEM: String

    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// Whether this libmicrohttpd can speak TLS (Debian's is built with GnuTLS).
    public static var isSupported: Bool { cmhd_has_tls() != 0 }
}

/// An HTTP/1.1 server on libmicrohttpd (Debian libmicrohttpd-dev): it parses requests, enforces
/// the limits, and calls `handler` on the connection's own thread (one per connection, so a
/// stream may wait without holding up other clients). The only module with libmicrohttpd's
/// pointers.
public final class HTTPServer: Sendable {
    /// Limits on what a client may send and hold.
    public struct Limits: Sendable {
        /// Open connections at once, and from one address: one address holds at most a sixteenth,
        /// so a client that holds all it may still leaves room for the others.
        public var connections: Int = 256
        public var connectionsPerAddress: Int = 16
        /// Memory for one request's line and headers (a larger header is answered 431 or 413).
        public var headerBytes: Int = 16 * 1024
        /// A larger body is answered 413.
        public var maximumBodyBytes: Int = 16 * 1024
        /// A connection that sends nothing this long (or receives nothing, while an answer is
        /// being sent) is closed.
        public var idleTimeout: Duration = .seconds(60)
        /// A request's line, headers and body must all have come this long after the connection
        /// opened or its previous answer was sent; past it the connection is closed. libmicrohttpd's
        /// own timeout restarts with every byte, so a client trickling a header line at a time
        /// would otherwise hold its connection for as long as it likes.
        public var requestDeadline: Duration = .seconds(15)

        public init() {}
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The address and port it listens on (the port the system chose for port 0).
    public let host: String
    public let port: UInt16
    /// Whether it speaks HTTPS.
    public let isTLS: Bool
    private let daemon: Daemon
    private let context: Unmanaged<Context>

    /// The daemon pointer, stopped once.
    private final class Daemon: @unchecked Sendable {
        // Only passed to libmicrohttpd, which is thread-safe for these calls; `stopped` guards the stop.
        let pointer: OpaquePointer
        let stopped = Atomic(false)
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
    }

    /// What the C callbacks reach through their `cls`.
    final class Context: Sendable {
        let handler: Handler
        let limits: Limits
        /// Streams open now: closed when the server stops, so their connections end.
        let streams = Mutex<[ObjectIdentifier: HTTPStream]>([:])
        let deadlines: ConnectionDeadlines

        init(handler: @escaping Handler, limits: Limits) {
            self.handler = handler
            self.limits = limits
            deadlines = ConnectionDeadlines(allowance: limits.requestDeadline)
        }
    }

    /// Listens on `host` (an IPv4 or IPv6 address) and `port` (0: any free port), over HTTPS with `tls`.
    public init(host: String, port: UInt16, limits: Limits = Limits(), tls: TLSIdentity? = nil, handler: @escaping Handler)
        throws(HTTPServerError)
    {
        if tls != nil && !TLSIdentity.isSupported {
            throw HTTPServerError(description: "this libmicrohttpd was built without TLS; install Debian's libmicrohttpd12")
        }
        let context = Unmanaged.passRetained(Context(handler: handler, limits: limits))
        var flags = UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
        flags |= UInt32(MHD_USE_POLL.rawValue)
        let started: OpaquePointer?
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        errno = 0
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            started = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.start(flags, $0, context, limits, tls) }
            }
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            flags |= UInt32(MHD_USE_IPv6.rawValue)
            started = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.start(flags, $0, context, limits, tls) }
            }
        } else {
            context.release()
            throw HTTPServerError(description: "\(host) is not an IP address; give one such as 127.0.0.1, 0.0.0.0 or ::1")
        }
        guard let started else {
            let code = errno
            context.release()
            let reason =
                switch code {
                case EADDRINUSE: "the port is in use"
                case EACCES: "permission denied (ports below 1024 need root)"
                case EADDRNOTAVAIL: "this machine has no such address"
                case _ where tls != nil: "TLS refused the certificate or key (give PEM files of one pair)"
                default: String(cString: strerror(code))
                }
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        self.daemon = Daemon(started)
        self.context = context
        self.host = host
        self.port = cmhd_bound_port(started)
        self.isTLS = tls != nil
        context.takeUnretainedValue().deadlines.startWatching()
    }

    private static func start(
        _ flags: UInt32, _ address: UnsafePointer<sockaddr>, _ context: Unmanaged<Context>, _ limits: Limits, _ tls: TLSIdentity?
    ) -> OpaquePointer? {
        func start(_ key: UnsafePointer<CChar>?, _ certificate: UnsafePointer<CChar>?) -> OpaquePointer? {
            cmhd_start(
                flags, address, accessHandler, context.toOpaque(), requestCompleted, connectionNotified, unescape,
                UInt32(limits.connections), UInt32(limits.connectionsPerAddress), limits.headerBytes,
                UInt32(max(1, limits.idleTimeout.components.seconds)), key, certificate)
        }
        guard let tls else { return start(nil, nil) }
        return tls.keyPEM.withCString { key in tls.certificatePEM.withCString { start(key, $0) } }
    }

    /// Connections closed because their request did not come within `requestDeadline`.
    public var connectionsPastDeadline: Int { context.takeUnretainedValue().deadlines.enforced }

    /// Stops listening, ends every open stream and waits for the connections' threads.
    public func stop() {
        guard !daemon.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Quiescing hands the listening socket back to be closed here (MHD_stop_daemon then leaves
        // it open): without the close the port stayed taken until the process ended.
        let listening = MHD_quiesce_daemon(daemon.pointer)
        let context = context.takeUnretainedValue()
        context.deadlines.stopWatching()
        let streams = context.streams.withLock { $0.values }
        for stream in streams { stream.close() }
        MHD_stop_daemon(daemon.pointer)
        if listening >= 0 { close(listening) }
        self.context.release()
    }

    deinit { stop() }
}

/// When each open connection's request must have come, and a thread (`sb.http.deadlines`) that
/// shuts the socket of one that is late. libmicrohttpd's connection thread then sees the end of
/// its input and closes the connection; the socket is shut under the same lock that forgets it
/// when libmicrohttpd reports it closed (before it closes the descriptor), so a descriptor number
/// reused by another connection is never touched.
final class ConnectionDeadlines: Sendable {
    private struct Entry {
        var socket: Int32
        /// Nil while an answer is being sent (a stream may last hours).
        var deadline: ContinuousClock.Instant?
    }

    let allowance: Duration
    private let entries = Mutex<[Int: Entry]>([:])
    private let enforcedCount = Atomic(0)
    private let stopped = Atomic(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(allowance: Duration) { self.allowance = allowance }

    var enforced: Int { enforcedCount.load(ordering: .relaxed) }

    func opened(_ connection: Int, socket: Int32) {
        entries.withLock { $0[connection] = Entry(socket: socket, deadline: .now + allowance) }
    }

    /// The request has come whole: no deadline while it is answered.
    func answering(_ connection: Int) {
        entries.withLock { $0[connection]?.deadline = nil }
    }

    /// The answer has been sent: the next request on the connection has its own deadline.
    func answered(_ connection: Int) {
        entries.withLock { $0[connection]?.deadline = .now + allowance }
    }

    func closed(_ connection: Int) {
        _ = entries.withLock { $0.removeValue(forKey: connection) }
    }

    /// Shuts the sockets of connections past their deadline.
    func enforce(at now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            for (connection, entry) in entries {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[connection]?.deadline = nil
                enforcedCount.add(1, ordering: .relaxed)
            }
        }
    }

    func startWatching() {
        let step = min(allowance / 4, .milliseconds(500))
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                _ = wake.wait(timeout: .now() + step.seconds)
                enforce()
            }
            finished.signal()
        }
        thread.name = "sb.http.deadlines"
        thread.start()
    }

    func stopWatching() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
    }
}

// MARK: The C callbacks

/// One request's state between the access handler's calls.
private final class RequestState {
    var body: [UInt8] = []
    var tooLarge = false
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let cls, let connection, let url, let method, let uploadSize, let requestContext else { return .NO }
    let context = Unmanaged<HTTPServer.Context>.fromOpaque(cls).takeUnretainedValue()
    // The first call of a request: make its state.
    guard let statePointer = requestContext.pointee else {
        requestContext.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
        // A body announced too large is refused before it is read (and before "100 Continue").
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap({ Int(String(cString: $0)) }),
            length > context.limits.maximumBodyBytes
        {
            context.deadlines.answering(key(connection))
            return queue(tooLarge(context), connection, context)
        }
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if state.body.count + uploadSize.pointee > context.limits.maximumBodyBytes {
            state.tooLarge = true
        } else if let uploadData {
            state.body += UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
        }
        uploadSize.pointee = 0
        // An oversized body is answered at once; libmicrohttpd then closes the connection.
        if state.tooLarge {
            context.deadlines.answering(key(connection))
            return queue(tooLarge(context), connection, context)
        }
        return .YES
    }
    if state.tooLarge {
        context.deadlines.answering(key(connection))
        return queue(tooLarge(context), connection, context)
    }
    var request = HTTPRequest(method: String(cString: method), path: String(cString: url), body: state.body)
    request.headers = values(connection, .HEADER_KIND, lowercased: true)
    request.query = values(connection, .GET_ARGUMENT_KIND, lowercased: false)
    request.cookies = values(connection, .COOKIE_KIND, lowercased: false)
    request.remoteAddress = clientAddress(connection)
    context.deadlines.answering(key(connection))
    return queue(context.handler(request), connection, context)
}

private func tooLarge(_ context: HTTPServer.Context) -> HTTPResponse {
    HTTPResponse.text(413, "the request body is larger than \(context.limits.maximumBodyBytes) bytes\n")
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    if let cls, let connection {
        Unmanaged<HTTPServer.Context>.fromOpaque(cls).takeUnretainedValue().deadlines.answered(key(connection))
    }
    guard let requestContext, let state = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestContext.pointee = nil
}

/// A connection opens (its request's deadline starts) or closes.
private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let deadlines = Unmanaged<HTTPServer.Context>.fromOpaque(cls).takeUnretainedValue().deadlines
    if code == .CONNECTION_NOTIFY_STARTED {
        deadlines.opened(key(connection), socket: cmhd_connection_socket(connection))
    } else {
        deadlines.closed(key(connection))
    }
}

/// A connection's key in `ConnectionDeadlines`: its address, unique while it is open.
private func key(_ connection: OpaquePointer) -> Int { Int(bitPattern: connection) }

/// Percent-decodes the path or a query argument in place, as libmicrohttpd's own decoder does,
/// except that a decoded byte below 0x20 (`%00`, `%0A`) becomes DEL (0x7F): a NUL would cut the C
/// string the handler reads short (`/api/workouts%00.fit` read as `/api/workouts`), and the
/// handler refuses DEL (`HTTPRequest.hasControlCharacters`).
private let unescape: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = {
    _, _, text in
    guard let text else { return 0 }
    func hex(_ character: CChar) -> UInt8? {
        switch UInt8(bitPattern: character) {
        case let c where c >= 0x30 && c <= 0x39: c - 0x30
        case let c where c >= 0x41 && c <= 0x46: c - 0x41 + 10
        case let c where c >= 0x61 && c <= 0x66: c - 0x61 + 10
        default: nil
        }
    }
    var read = 0
    var write = 0
    while text[read] != 0 {
        var byte = UInt8(bitPattern: text[read])
        // `hex` of the terminating NUL is nil, so nothing past it is read.
        if byte == UInt8(ascii: "%"), let high = hex(text[read + 1]), let low = hex(text[read + 2]) {
            byte = high << 4 | low
            read += 3
        } else {
            read += 1
        }
        text[write] = CChar(bitPattern: byte < 0x20 ? 0x7F : byte)
        write += 1
    }
    text[write] = 0
    return write
}

/// The client's IP address as text.
private func clientAddress(_ connection: OpaquePointer) -> String {
    guard let address = cmhd_client_address(connection) else { return "" }
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        inet_ntop(AF_INET, &v4, &text, socklen_t(text.count))
    case AF_INET6:
        var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count))
    default:
        return ""
    }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A connection's values of one kind (headers, query arguments).
private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    final class Box { var values: [String: String] = [:]; var lowercased = false }
    let box = Box()
    box.lowercased = lowercased
    withExtendedLifetime(box) {
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key)
            box.values[box.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, Unmanaged.passUnretained(box).toOpaque())
    }
    return box.values
}

/// What a stream's content reader reaches: the stream, and the server's list to leave when done.
private final class StreamReader {
    let stream: HTTPStream
    let context: HTTPServer.Context
    init(_ stream: HTTPStream, _ context: HTTPServer.Context) {
        self.stream = stream
        self.context = context
    }
}

private func queue(_ response: HTTPResponse, _ connection: OpaquePointer, _ context: HTTPServer.Context) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes {
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream(let stream):
        context.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
        let reader = Unmanaged.passRetained(StreamReader(stream, context)).toOpaque()
        made = MHD_create_response_from_callback(UInt64.max, 4096, { cls, _, buffer, maximum in
            guard let cls, let buffer else { return MHD_CONTENT_READER_END_WITH_ERROR }
            let reader = Unmanaged<StreamReader>.fromOpaque(cls).takeUnretainedValue()
            // On the connection's own thread: waiting here holds up no other client.
            guard let bytes = reader.stream.read(maximum: maximum, timeout: .seconds(15)) else {
                return MHD_CONTENT_READER_END_OF_STREAM
            }
            // Nothing for 15 s: a comment line keeps proxies and the idle timeout from closing it.
            let chunk = bytes.isEmpty ? Array(": keep-alive\n\n".utf8) : bytes
            chunk.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: chunk.count) }
            return chunk.count
        }, reader, { cls in
            guard let cls else { return }
            let reader = Unmanaged<StreamReader>.fromOpaque(cls).takeRetainedValue()
            reader.stream.close()
            _ = reader.context.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(reader.stream)) }
        })
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
    return MHD_queue_response(connection, UInt32(response.status), made)
}
