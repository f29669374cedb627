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

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
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

/// An HTTP/1.1 server on libmicrohttpd (Debian libmicrohttpd-dev): it parses requests, enforces
/// the limits, and calls `handler` on the connection's own thread (one per connection, so a
/// stream may wait without holding up other clients). The only module with libmicrohttpd's
/// pointers.
public final class HTTPServer: Sendable {
    /// Limits on what a client may send and hold.
    public struct Limits: Sendable {
        /// Open connections at once, and from one address.
        public var connections: Int = 64
        public var connectionsPerAddress: Int = 32
        /// Memory for one request's line and headers (a larger header is answered 431 or 413).
        public var headerBytes: Int = 16 * 1024
        /// A larger body is answered 413.
        public var maximumBodyBytes: Int = 16 * 1024
        /// A connection idle this long is closed.
        public var idleTimeout: Duration = .seconds(60)

        public init() {}
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The address and port it listens on (the port the system chose for port 0).
    public let host: String
    public let port: UInt16
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

        init(handler: @escaping Handler, limits: Limits) {
            self.handler = handler
            self.limits = limits
        }
    }

    /// Listens on `host` (an IPv4 or IPv6 address) and `port` (0: any free port).
    public init(host: String, port: UInt16, limits: Limits = Limits(), handler: @escaping Handler) throws(HTTPServerError) {
        let context = Unmanaged.passRetained(Context(handler: handler, limits: limits))
        var flags = UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
        flags |= UInt32(MHD_USE_POLL.rawValue)
        let started: OpaquePointer?
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            started = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.start(flags, $0, context, limits) }
            }
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            flags |= UInt32(MHD_USE_IPv6.rawValue)
            started = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.start(flags, $0, context, limits) }
            }
        } else {
            context.release()
            throw HTTPServerError(description: "\(host) is not an IP address; give one such as 127.0.0.1, 0.0.0.0 or ::1")
        }
        guard let started else {
            context.release()
            let reason = errno == EADDRINUSE ? "the port is in use" : String(cString: strerror(errno))
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        self.daemon = Daemon(started)
        self.context = context
        self.host = host
        self.port = cmhd_bound_port(started)
    }

    private static func start(_ flags: UInt32, _ address: UnsafePointer<sockaddr>, _ context: Unmanaged<Context>, _ limits: Limits)
        -> OpaquePointer?
    {
        cmhd_start(
            flags, address, accessHandler, context.toOpaque(), requestCompleted, UInt32(limits.connections),
            UInt32(limits.connectionsPerAddress), limits.headerBytes, UInt32(max(1, limits.idleTimeout.components.seconds)))
    }

    /// Stops listening, ends every open stream and waits for the connections' threads.
    public func stop() {
        guard !daemon.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = MHD_quiesce_daemon(daemon.pointer)
        let streams = context.takeUnretainedValue().streams.withLock { $0.values }
        for stream in streams { stream.close() }
        MHD_stop_daemon(daemon.pointer)
        context.release()
    }

    deinit { stop() }
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
            return queue(tooLarge(context), connection, context)
        }
        return .YES
    }
    if state.tooLarge {
        return queue(tooLarge(context), connection, context)
    }
    var request = HTTPRequest(method: String(cString: method), path: String(cString: url), body: state.body)
    request.headers = values(connection, .HEADER_KIND, lowercased: true)
    request.query = values(connection, .GET_ARGUMENT_KIND, lowercased: false)
    return queue(context.handler(request), connection, context)
}

private func tooLarge(_ context: HTTPServer.Context) -> HTTPResponse {
    HTTPResponse.text(413, "the request body is larger than \(context.limits.maximumBodyBytes) bytes\n")
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let state = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestContext.pointee = nil
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
