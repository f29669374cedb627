import Foundation
import HTTP
import Outputs
public import Synchronization

/// Who may use the web server, and how they prove it (docs/HTTP.md, "Who can reach what").
///
/// - With no token file the server listens on loopback only, and every local client may read and
///   change; the Host must name this machine exactly (DNS rebinding) and a change must come with
///   the page's CSRF token from no other site.
/// - With a token file (always off loopback, and on loopback when one is given) every route needs
///   the token: `Authorization: Bearer TOKEN`, or a session cookie set after a person typed it into
///   `/login`. A second token (`--http-read-only-token-file`) and `--http-read-only` give the read
///   level: pages, API and the live stream, but no change.
/// - A session's CSRF token is its own and is given only to it; tokens are compared in constant
///   time; an address that keeps sending wrong tokens waits longer after each (429), and each is
///   logged.
public final class WebAccess: Sendable {
    enum Level: Sendable, Equatable {
        case read, change
    }

    /// An authenticated client.
    struct Client: Sendable {
        var level: Level
        /// What its page sends with a change (`X-CSRF-Token`); nil for a Bearer client, which
        /// needs none (a browser never adds that header by itself).
        var csrfToken: String?
        /// Its session, when it came with the cookie.
        var session: String?
    }

    enum Outcome: Sendable {
        case client(Client)
        /// No credentials, or a session that has expired.
        case unauthenticated
        /// A wrong token (already counted and logged).
        case wrongToken
        /// Too many wrong tokens from this address: try again after that long.
        case throttled(Duration)
    }

    /// The tokens and their levels: the full one, the read-only one.
    private let tokens: [(token: [UInt8], level: Level)]
    let readOnly: Bool
    let loopbackOnly: Bool
    let secure: Bool
    /// The port the server listens on, known once it has started.
    public let port = Atomic<UInt16>(0)
    /// The CSRF token of the pages when no token is needed (loopback without a token file).
    private let localCSRFToken = WebAccess.randomToken(bytes: 18)
    private let sessions = Mutex<[String: Session]>([:])
    private let failures = Mutex<[String: Failures]>([:])
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> ContinuousClock.Instant

    static let sessionLifetime: Duration = .seconds(12 * 3600)
    static let maximumSessions = 256
    /// Wrong tokens an address may send before it waits: 1 s after the next, then twice as long
    /// after each, up to 5 minutes.
    static let freeFailures = 2
    static let longestWait: Duration = .seconds(300)

    private struct Session {
        var level: Level
        var csrfToken: String
        var expires: ContinuousClock.Instant
    }

    private struct Failures {
        var count = 0
        var waitUntil: ContinuousClock.Instant?
        var last: ContinuousClock.Instant
    }

    public init(
        fullToken: String?, readToken: String?, readOnly: Bool, loopbackOnly: Bool, secure: Bool,
        log: @escaping @Sendable (String) -> Void, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        tokens = [(fullToken, Level.change), (readToken, Level.read)].compactMap { token, level in
            token.map { (Array($0.utf8), level) }
        }
        self.readOnly = readOnly
        self.loopbackOnly = loopbackOnly
        self.secure = secure
        self.log = log
        self.now = now
    }

    /// Whether every route needs a token.
    var requiresAuthentication: Bool { !tokens.isEmpty }

    /// The session cookie's name: one per port, as browsers send a host's cookies to all its
    /// ports; `__Host-` under TLS, so no other site or plain-HTTP page can set it.
    var cookieName: String {
        (secure ? "__Host-sensorbridge-" : "sensorbridge-session-") + String(port.load(ordering: .relaxed))
    }

    /// The origin a same-site page sends (`Origin`): this server's scheme and the request's Host.
    func origin(host: String) -> String { (secure ? "https://" : "http://") + host }

    // MARK: Host

    /// Nil when `Host` names this server; otherwise why not. On loopback the name must be exactly
    /// `127.0.0.1`, `localhost` or `[::1]`, with this server's port or none: a page of another site
    /// whose name resolves to this machine (DNS rebinding) names its own host. Off loopback any
    /// well-formed name is taken (the token keeps strangers out; another site's page has neither
    /// it nor this site's cookie).
    func refusedHost(_ header: String?) -> String? {
        guard let header, let (name, port) = Self.parseHost(header) else {
            return "send the Host header as HOST[:PORT]"
        }
        guard loopbackOnly else { return nil }
        let ours = self.port.load(ordering: .relaxed)
        guard ["127.0.0.1", "localhost", "::1"].contains(name.lowercased()), port == nil || port == ours else {
            return "this server answers to 127.0.0.1, localhost and [::1] on port \(ours) only"
        }
        return nil
    }

    /// `name` and `port` of a Host header (`box.local:8080`, `[::1]:8080`, `192.0.2.7`); nil when
    /// it is not one.
    static func parseHost(_ header: String) -> (name: String, port: UInt16?)? {
        var name = Substring(header)
        var port: UInt16?
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return nil }
            let rest = name[name.index(after: close)...]
            name = name[name.index(after: name.startIndex)..<close]
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(name), &address) == 1 else { return nil }
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = UInt16(rest.dropFirst()) else { return nil }
                port = number
            }
        } else {
            if let colon = name.lastIndex(of: ":") {
                guard let number = UInt16(name[name.index(after: colon)...]) else { return nil }
                port = number
                name = name[..<colon]
            }
            // A DNS name or an IPv4 address: letters, digits, '-', '.', '_' (as names on local
            // networks have); nothing that could carry a user, a path or a second host.
            guard !name.isEmpty, name.utf8.count <= 253,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
            else { return nil }
        }
        return (String(name), port)
    }

    // MARK: Authentication

    /// Who sent `request`.
    func authenticate(_ request: HTTPRequest) -> Outcome {
        guard requiresAuthentication else {
            return .client(Client(level: readOnly ? .read : .change, csrfToken: localCSRFToken, session: nil))
        }
        if let authorization = request.header("authorization") {
            guard authorization.hasPrefix("Bearer ") else { return .unauthenticated }
            switch check(token: String(authorization.dropFirst(7)), from: request.remoteAddress) {
            case .accepted(let level): return .client(Client(level: level, csrfToken: nil, session: nil))
            case .refused(let refusal): return refusal
            }
        }
        if let id = request.cookies[cookieName] {
            let instant = now()
            let session = sessions.withLock { sessions -> Session? in
                guard let session = sessions[id] else { return nil }
                guard session.expires > instant else {
                    sessions[id] = nil
                    return nil
                }
                return session
            }
            if let session { return .client(Client(level: session.level, csrfToken: session.csrfToken, session: id)) }
        }
        return .unauthenticated
    }

    /// A token typed into the login page: a new session and its cookie, or why not.
    func login(token: String, from address: String) -> Result<(session: String, cookie: String), Refusal> {
        switch check(token: token, from: address) {
        case .refused(let outcome): return .failure(Refusal(outcome))
        case .accepted(let level):
            let id = Self.randomToken(bytes: 32)
            let instant = now()
            sessions.withLock { sessions in
                sessions = sessions.filter { $0.value.expires > instant }
                if sessions.count >= Self.maximumSessions, let oldest = sessions.min(by: { $0.value.expires < $1.value.expires }) {
                    sessions[oldest.key] = nil
                }
                sessions[id] = Session(
                    level: level, csrfToken: Self.randomToken(bytes: 18), expires: instant + Self.sessionLifetime)
            }
            return .success((id, cookie(id, maxAge: Self.sessionLifetime.components.seconds)))
        }
    }

    /// Why a login failed, as the login page says it.
    struct Refusal: Error, Sendable {
        var wait: Duration?
        init(_ outcome: Outcome) {
            if case .throttled(let wait) = outcome { self.wait = wait }
        }
    }

    /// Ends `session`; the cookie that clears it.
    func logout(_ session: String) -> String {
        _ = sessions.withLock { $0.removeValue(forKey: session) }
        return cookie("", maxAge: 0)
    }

    private func cookie(_ value: String, maxAge: Int64) -> String {
        "\(cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The level of `token`, or why not: a wrong token counts against `address`, whose next tries
    /// wait once it has sent too many.
    private enum TokenCheck {
        case accepted(Level)
        case refused(Outcome)
    }

    private func check(token: String, from address: String) -> TokenCheck {
        let instant = now()
        if let until = failures.withLock({ $0[address]?.waitUntil }), until > instant {
            return .refused(.throttled(until - instant))
        }
        let bytes = Array(token.utf8)
        // Every token is compared, so the time taken does not tell which (if any) was close.
        var found: Level?
        for (candidate, level) in tokens where Self.constantTimeEquals(bytes, candidate) && found == nil {
            found = level
        }
        guard let level = found else {
            let (count, wait) = failures.withLock { failures -> (Int, Duration?) in
                if failures.count >= 4096 {
                    failures = failures.filter { $0.value.waitUntil.map { $0 > instant } ?? false }
                }
                var entry = failures[address] ?? Failures(last: instant)
                entry.count += 1
                entry.last = instant
                var wait: Duration?
                if entry.count > Self.freeFailures {
                    let doublings = min(entry.count - Self.freeFailures - 1, 16)
                    wait = min(.seconds(1 << doublings), Self.longestWait)
                    entry.waitUntil = instant + wait!
                }
                failures[address] = entry
                return (entry.count, wait)
            }
            let next = wait.map { "; its next try waits \($0.components.seconds) s" } ?? ""
            log("a wrong token from \(address.isEmpty ? "an unknown address" : address) (\(count) in a row\(next))")
            return .refused(.wrongToken)
        }
        _ = failures.withLock { $0.removeValue(forKey: address) }
        return .accepted(readOnly ? .read : level)
    }

    /// Whether `a` equals `b`, in a time that depends only on their lengths' maximum.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    // MARK: Changes

    /// Nil when `client` may make the change `request` asks; otherwise the status and why not.
    /// A change needs the change level (unless `needsChangeLevel` is false: a logout), no `Origin`
    /// (or `Sec-Fetch-Site`) of another site, and, from a page (a session, or loopback without a
    /// token), the page's CSRF token.
    func refusedChange(_ request: HTTPRequest, by client: Client, needsChangeLevel: Bool = true) -> (status: Int, message: String)? {
        guard client.level == .change || !needsChangeLevel else {
            return (403, "this server is read-only for you: use the --http-token-file's token to change anything")
        }
        if let origin = request.header("origin"), origin != self.origin(host: request.header("host") ?? "") {
            return (403, "a page of another site may not change anything here")
        }
        if let site = request.header("sec-fetch-site"), !["same-origin", "none"].contains(site) {
            return (403, "a page of another site may not change anything here")
        }
        if let expected = client.csrfToken {
            guard let sent = request.header("x-csrf-token"), Self.constantTimeEquals(Array(sent.utf8), Array(expected.utf8)) else {
                return (401, "send the page's X-CSRF-Token (reload the page)")
            }
        }
        return nil
    }

    /// `bytes` random bytes (the system's generator, getrandom) as URL-safe base64.
    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "=", with: "")
    }
}
