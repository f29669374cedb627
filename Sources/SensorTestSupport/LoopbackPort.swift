import Foundation

/// A loopback TCP port nothing listens on now: the kernel's pick for a socket bound to port 0,
/// closed again. For servers started by tests and benchmarks (a web server, a broker).
public func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
        }
    }
    guard bound else { throw MockBlueZ.Failure(description: "no free port: \(String(cString: strerror(errno)))") }
    return UInt16(bigEndian: address.sin_port)
}
