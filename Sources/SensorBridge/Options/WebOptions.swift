import Foundation
import HTTP
import Outputs
import Web
import WorkoutStore

/// `--http [ADDR:]PORT`, its token files, `--http-read-only` and TLS, of `record`, `serve` and `web`.
struct WebOptions {
    static let options: Set<String> = ["http", "http-token-file", "http-read-only-token-file", "http-tls-cert", "http-tls-key"]
    static let flags: Set<String> = ["http-read-only"]
    static let help = """
          --http [ADDR:]PORT         serve the web page and the HTTP API (docs/HTTP.md) on ADDR (default
                                     127.0.0.1, this machine only) and PORT
          --http-token-file FILE     the token that reads and changes everything, one line of at least 16
                                     characters in a file only you can read: needed to bind an address
                                     other than loopback; every route then needs it (Authorization: Bearer
                                     TOKEN, or typed once into the page's login)
          --http-read-only-token-file FILE
                                     a second token that sees the pages, the API and the live workout but
                                     changes nothing (a class screen, a coach)
          --http-read-only           nobody changes anything through the server
          --http-tls-cert FILE --http-tls-key FILE
                                     serve HTTPS with this certificate and key (PEM; the key only you can read)
        """

    var host: String
    var port: UInt16
    var token: String?
    var readToken: String?
    var readOnly: Bool
    var tls: TLSIdentity?

    /// Nil without --http.
    init?(_ arguments: CommandArguments) throws(UsageError) {
        guard let text = arguments["http"] else {
            if let option = (Self.options.subtracting(["http"]).sorted().first { arguments[$0] != nil })
                ?? (arguments.has("http-read-only") ? "http-read-only" : nil)
            {
                throw UsageError("--\(option) goes with --http [ADDR:]PORT")
            }
            return nil
        }
        let example = "give --http PORT (on 127.0.0.1) or --http ADDRESS:PORT, for example --http 8080 or --http 0.0.0.0:8080"
        var hostText = "127.0.0.1"
        var portText = text
        if let colon = text.lastIndex(of: ":") {
            hostText = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
            if hostText.hasPrefix("[") && hostText.hasSuffix("]") { hostText = String(hostText.dropFirst().dropLast()) }
        }
        guard let port = UInt16(portText) else { throw UsageError("--http \(text): \(portText) is not a port (0 to 65535); \(example)") }
        var v4 = in_addr()
        var v6 = in6_addr()
        guard inet_pton(AF_INET, hostText, &v4) == 1 || inet_pton(AF_INET6, hostText, &v6) == 1 else {
            throw UsageError("--http \(text): \(hostText) is not an IP address; \(example)")
        }
        host = hostText
        self.port = port
        readOnly = arguments.has("http-read-only")
        token = try arguments["http-token-file"].map { path throws(UsageError) in try Self.token("http-token-file", path) }
        readToken = try arguments["http-read-only-token-file"].map { path throws(UsageError) in
            try Self.token("http-read-only-token-file", path)
        }
        if let token, token == readToken {
            throw UsageError("--http-read-only-token-file holds the same token as --http-token-file; make it another one")
        }
        if token == nil && readToken == nil && !Self.isLoopback(hostText) {
            throw UsageError(
                "--http \(text) lets other machines in: give --http-token-file FILE with a token they must send, or "
                    + "bind 127.0.0.1")
        }
        switch (arguments["http-tls-cert"], arguments["http-tls-key"]) {
        case (nil, nil): tls = nil
        case (let certificate?, let key?):
            guard let certificatePEM = FileManager.default.contents(atPath: certificate).map({ String(decoding: $0, as: UTF8.self) }),
                certificatePEM.contains("-----BEGIN CERTIFICATE-----")
            else {
                throw UsageError("--http-tls-cert \(certificate): cannot read a PEM certificate there; \(Self.makeCertificate)")
            }
            let keyPEM = String(decoding: try SecretFile.read(key, option: "--http-tls-key", advice: Self.makeCertificate), as: UTF8.self)
            guard keyPEM.contains("PRIVATE KEY-----") else {
                throw UsageError("--http-tls-key \(key): not a PEM private key; \(Self.makeCertificate)")
            }
            tls = TLSIdentity(certificatePEM: certificatePEM, keyPEM: keyPEM)
        case (nil, _): throw UsageError("--http-tls-key goes with --http-tls-cert FILE; \(Self.makeCertificate)")
        case (_, nil): throw UsageError("--http-tls-cert goes with --http-tls-key FILE; \(Self.makeCertificate)")
        }
    }

    static let makeCertificate =
        "make a pair with 'openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 "
        + "-subj /CN=sensorbridge -addext subjectAltName=DNS:sensorbridge.local,IP:192.168.1.20 -keyout key.pem -out cert.pem' "
        + "(README, 'HTTPS')"

    /// The token in `path`: one word of at least 16 characters, in a file other users cannot read.
    private static func token(_ option: String, _ path: String) throws(UsageError) -> String {
        let make = "make one with '(umask 077; head -c 24 /dev/urandom | base64 > \(path))'"
        let token = String(decoding: try SecretFile.read(path, option: "--" + option, advice: make), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16, !token.contains(where: { $0.isWhitespace || !$0.isASCII || $0.asciiValue! < 0x21 }) else {
            throw UsageError("--\(option) \(path): the token must be one word of at least 16 characters; \(make)")
        }
        return token
    }

    /// The host as a URL writes it (`[::1]` for IPv6).
    var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

    /// The server's address as a person opens it.
    func url(port: UInt16) -> String { "\(tls == nil ? "http" : "https")://\(hostForURL):\(port)/" }

    /// Whether the server listens on this machine only: 127.0.0.1 or ::1. Any other address,
    /// 127.0.0.2 included, has the rules of a network address (a token is needed).
    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host == "127.0.0.1"
    }

    /// Starts the server for the store at `storePath` (and the recording `live` follows), with the
    /// address and port in the message of a failure. `log` says what a person should know (wrong
    /// tokens).
    func start(
        store: StoreOpener?, timeZone: TimeZone, live: LiveFeed?, riders: ClassFeed? = nil, log: @escaping @Sendable (String) -> Void
    ) throws -> HTTPServer {
        let access = WebAccess(
            fullToken: token, readToken: readToken, readOnly: readOnly, loopbackOnly: Self.isLoopback(host), secure: tls != nil,
            log: log)
        let app = WebApp(store: store, timeZone: timeZone, access: access, live: live, riders: riders)
        access.port.store(port, ordering: .relaxed)
        do {
            let server = try HTTPServer(host: host, port: port, tls: tls, handler: app.handle)
            access.port.store(server.port, ordering: .relaxed)
            return server
        } catch {
            throw UsageError("--http: \(error)")
        }
    }
}
