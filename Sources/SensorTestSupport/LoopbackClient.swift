import Foundation

/// A TCP connection from `source` (any 127.x address, so a test can play several clients) to a
/// port on 127.0.0.1, for tests of a server's limits: it sends what it is told, a byte at a time if
/// need be, and says when the server has closed it.
public final class LoopbackClient: @unchecked Sendable {
    // Used by one thread at a time (the test's, or the one thread that plays this client).
    private let socket: Int32

    /// Nil when the connection could not be made (the server refused it or is gone). Reads wait at
    /// most 10 s.
    public init?(from source: String = "127.0.0.1", to port: UInt16) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, size) } }
        guard bound == 0, connected == 0 else {
            close(socket)
            return nil
        }
    }

    deinit { close(socket) }

    /// Whether all of `text` was sent: false once the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        guard !isClosedByServer(within: .zero) else { return false }
        return Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == text.utf8.count
    }

    /// What came before the server closed the connection or 10 s passed without a byte.
    public func receive() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Whether the server has closed it: a read would see the end (waits up to `timeout` for that).
    public func isClosedByServer(within timeout: Duration) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        guard poll(&descriptor, 1, Int32(milliseconds)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }
}
