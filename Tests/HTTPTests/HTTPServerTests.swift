import Foundation
import HTTP
import SensorTestSupport
import Synchronization
import Testing

/// The server on libmicrohttpd against raw sockets and curl on loopback: the request deadline, one
/// address's share of the connections, control characters in paths, what the handler is told, and TLS.
@Suite(.serialized) struct HTTPServerTests {
    /// The requests a server's handler was given.
    final class Seen: Sendable {
        let requests = Mutex<[HTTPRequest]>([])
    }

    static func server(_ limits: HTTPServer.Limits = HTTPServer.Limits(), seen: Seen? = nil) throws -> HTTPServer {
        try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            seen?.requests.withLock { $0.append(request) }
            return HTTPResponse.text(200, "hello\n")
        }
    }

    @Test(.timeLimit(.minutes(10))) func aClientTricklingItsHeadersIsCutOffAtTheRequestsDeadline() throws {
        var limits = HTTPServer.Limits()
        limits.requestDeadline = .seconds(2)
        let server = try Self.server(limits)
        defer { server.stop() }
        // One header line every 200 ms for up to 20 s: each line would restart an idle timeout.
        let trickler = try #require(LoopbackClient(to: server.port))
        #expect(trickler.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
        var lines = 0
        while lines < 100, trickler.send("X-Line-\(lines): a\r\n") {
            Thread.sleep(forTimeInterval: 0.2)
            lines += 1
        }
        #expect(lines < 100, "the trickling client was never cut off")
        #expect(server.connectionsPastDeadline >= 1)
        // One that sends nothing at all is cut off too.
        let silent = try #require(LoopbackClient(to: server.port))
        #expect(silent.isClosedByServer(within: .seconds(10)))
        // A client that sends its request at once is answered, and so is its next request on the same connection.
        let prompt = try #require(LoopbackClient(to: server.port))
        prompt.send("GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(prompt.receive().components(separatedBy: "HTTP/1.1 200").count == 3)
    }

    @Test(.timeLimit(.minutes(10))) func oneAddressHoldsOnlyItsShareOfTheConnections() throws {
        var limits = HTTPServer.Limits()
        limits.connections = 16
        limits.connectionsPerAddress = 4
        let server = try Self.server(limits)
        defer { server.stop() }
        // Two addresses hold all they may, idle.
        var held: [LoopbackClient] = []
        for source in ["127.0.0.2", "127.0.0.3"] {
            for _ in 0..<4 { held.append(try #require(LoopbackClient(from: source, to: server.port))) }
        }
        Thread.sleep(forTimeInterval: 0.3)
        // A fifth from the same address is closed at once, unanswered.
        let fifth = try #require(LoopbackClient(from: "127.0.0.2", to: server.port))
        fifth.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(!fifth.receive().contains("200"))
        // Everyone else is still served.
        let other = try #require(LoopbackClient(from: "127.0.0.4", to: server.port))
        other.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(other.receive().hasPrefix("HTTP/1.1 200"))
        #expect(held.allSatisfy { !$0.isClosedByServer(within: .zero) })
    }

    @Test func aStoppedServersPortIsFreeAtOnce() throws {
        let first = try Self.server()
        let port = first.port
        first.stop()
        let second = try HTTPServer(host: "127.0.0.1", port: port) { _ in HTTPResponse(status: 204) }
        second.stop()
    }

    @Test(.timeLimit(.minutes(10))) func theHandlerIsToldThePathQueryCookiesAndAddressAndControlCharactersCannotHide() throws {
        let seen = Seen()
        let server = try Self.server(seen: seen)
        defer { server.stop() }
        for (target, path, control) in [
            ("/caf%C3%A9/a%2Fb?x=1&y=a%20b", "/café/a/b", false), ("/api/workouts%00.fit", "/api/workouts\u{7F}.fit", true),
            ("/a%0Ab", "/a\u{7F}b", true), ("/a%7fb", "/a\u{7F}b", true), ("/a?q=%1B%5B2J", "/a", true), ("/100%25", "/100%", false),
            ("/bad%zz", "/bad%zz", false), ("/end%", "/end%", false), ("/end%4", "/end%4", false),
        ] {
            let connection = try #require(LoopbackClient(from: "127.0.0.5", to: server.port))
            connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: a=1; session=xyz\r\nConnection: close\r\n\r\n")
            #expect(connection.receive().hasPrefix("HTTP/1.1 200"), "\(target)")
            let request = try #require(seen.requests.withLock { $0.last })
            #expect(request.path == path, "\(target)")
            #expect(request.hasControlCharacters == control, "\(target)")
            #expect(request.remoteAddress == "127.0.0.5")
            #expect(request.cookies == ["a": "1", "session": "xyz"])
        }
        #expect(seen.requests.withLock { $0.first?.query } == ["x": "1", "y": "a b"])
        // HEAD: the headers of GET, no body.
        let head = try #require(LoopbackClient(to: server.port))
        head.send("HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let answer = head.receive()
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("Content-Length: 6") && !answer.contains("hello"), "\(answer)")
    }

    @Test(.timeLimit(.minutes(10)), .enabled(if: FileManager.default.isExecutableFile(atPath: openSSLPath), "needs openssl"))
    func tlsServesWithASelfSignedPairAndRefusesAKeyThatIsNotOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try makeSelfSignedPair(in: folder, names: ["DNS:localhost", "IP:127.0.0.1"])
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0,
            tls: TLSIdentity(certificatePEM: try String(contentsOfFile: certificate, encoding: .utf8), keyPEM: try String(contentsOfFile: key, encoding: .utf8))
        ) { request in HTTPResponse.text(200, "secure \(request.path)\n") }
        defer { server.stop() }
        #expect(server.isTLS)
        #expect(try Self.curl(["--cacert", certificate, "https://localhost:\(server.port)/x"]) == "secure /x\n")
        // Plain HTTP, or a client that does not trust the certificate, gets nothing.
        #expect(try Self.curl(["http://127.0.0.1:\(server.port)/x"]) == "")
        #expect(try Self.curl(["https://localhost:\(server.port)/x"]) == "")
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(host: "127.0.0.1", port: 0, tls: TLSIdentity(certificatePEM: "not a certificate", keyPEM: "not a key")) { _ in
                HTTPResponse(status: 204)
            }
        }
    }

    /// What curl printed (the body; nothing when it failed).
    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "20"] + arguments
        let output = ChildLaunch.pipe()
        process.standardOutput = output
        try ChildLaunch.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
