import Foundation
import HTTP
import Synchronization
import Testing

@testable import Web

/// Who may use the web server (`WebAccess`), decided without a server: tokens, sessions, the
/// slowing of wrong tokens on an injected clock, the Host and the checks of a change.
struct WebAccessTests {
    /// A clock the test moves, and the lines the access logged.
    final class Fixture: Sendable {
        let instant = Mutex(ContinuousClock.now)
        let logged = Mutex<[String]>([])

        func access(full: String? = "full-token-0123456789", read: String? = "read-token-0123456789", readOnly: Bool = false,
            loopbackOnly: Bool = false, secure: Bool = false) -> WebAccess
        {
            let access = WebAccess(
                fullToken: full, readToken: read, readOnly: readOnly, loopbackOnly: loopbackOnly, secure: secure,
                log: { line in self.logged.withLock { $0.append(line) } }, now: { self.instant.withLock { $0 } })
            access.port.store(8080, ordering: .relaxed)
            return access
        }

        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    static func request(
        _ method: String = "GET", host: String = "box.local:8080", headers: [String: String] = [:], cookies: [String: String] = [:],
        from address: String = "192.0.2.7"
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, path: "/api/workouts", headers: headers.merging(["host": host]) { a, _ in a }, cookies: cookies,
            remoteAddress: address)
    }

    static func level(_ outcome: WebAccess.Outcome) -> WebAccess.Level? {
        if case .client(let client) = outcome { return client.level }
        return nil
    }

    @Test func bearerTokensGiveTheirLevelAndNothingElseGetsIn() {
        let access = Fixture().access()
        #expect(Self.level(access.authenticate(Self.request(headers: ["authorization": "Bearer full-token-0123456789"]))) == .change)
        #expect(Self.level(access.authenticate(Self.request(headers: ["authorization": "Bearer read-token-0123456789"]))) == .read)
        for refused in ["Bearer full-token-012345678", "Bearer full-token-01234567890", "Bearer ", "Basic Zm9vOmJhcg==", "full-token-0123456789"] {
            #expect(Self.level(access.authenticate(Self.request(headers: ["authorization": refused]))) == nil, "\(refused)")
        }
        #expect(Self.level(access.authenticate(Self.request())) == nil)
        #expect(Self.level(access.authenticate(Self.request(cookies: [access.cookieName: "made-up"]))) == nil)
        // --http-read-only: even the full token only reads.
        let readOnly = Fixture().access(readOnly: true)
        #expect(Self.level(readOnly.authenticate(Self.request(headers: ["authorization": "Bearer full-token-0123456789"]))) == .read)
        // Without a token file (loopback): every local client, with the page's CSRF token.
        guard case .client(let local) = Fixture().access(full: nil, read: nil, loopbackOnly: true).authenticate(Self.request(host: "127.0.0.1:8080"))
        else { Issue.record("a local client was refused"); return }
        #expect(local.level == .change && local.csrfToken != nil)
    }

    @Test func aSessionHasItsOwnCSRFTokenAndEndsWithLogoutOrAfterTwelveHours() throws {
        let fixture = Fixture()
        let access = fixture.access(secure: true)
        let (id, cookie) = try access.login(token: "read-token-0123456789", from: "192.0.2.7").get()
        #expect(cookie.hasPrefix("__Host-sensorbridge-8080=\(id); Path=/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure"))
        guard case .client(let client) = access.authenticate(Self.request(cookies: [access.cookieName: id])) else {
            Issue.record("the session was not taken")
            return
        }
        #expect(client.level == .read && client.session == id)
        let (other, _) = try access.login(token: "full-token-0123456789", from: "192.0.2.7").get()
        guard case .client(let second) = access.authenticate(Self.request(cookies: [access.cookieName: other])) else {
            Issue.record("the second session was not taken")
            return
        }
        #expect(second.csrfToken != client.csrfToken && second.level == .change)
        // A session's cookie under another port's name is not this server's.
        #expect(Self.level(access.authenticate(Self.request(cookies: ["__Host-sensorbridge-9090": id]))) == nil)
        #expect(access.logout(id).contains("Max-Age=0"))
        #expect(Self.level(access.authenticate(Self.request(cookies: [access.cookieName: id]))) == nil)
        fixture.advance(.seconds(12 * 3600 - 1))
        #expect(Self.level(access.authenticate(Self.request(cookies: [access.cookieName: other]))) == .change)
        fixture.advance(.seconds(2))
        #expect(Self.level(access.authenticate(Self.request(cookies: [access.cookieName: other]))) == nil)
    }

    @Test func wrongTokensFromOneAddressWaitLongerEachTimeAndAreLogged() {
        let fixture = Fixture()
        let access = fixture.access()
        func attempt(_ token: String, from address: String = "192.0.2.7") -> WebAccess.Outcome {
            access.authenticate(Self.request(headers: ["authorization": "Bearer " + token], from: address))
        }
        func waits(_ outcome: WebAccess.Outcome) -> Int64? {
            if case .throttled(let wait) = outcome { return wait.components.seconds }
            return nil
        }
        // Two free tries; the third makes the next wait 1 s, then 2, 4, ...
        for _ in 0..<3 {
            guard case .wrongToken = attempt("guess-guess-guess-guess") else { Issue.record("not refused"); return }
        }
        // Waiting: even the right token is refused until then.
        #expect(waits(attempt("full-token-0123456789")) == 1)
        // Another address is not held up.
        #expect(Self.level(attempt("full-token-0123456789", from: "192.0.2.8")) == .change)
        fixture.advance(.seconds(1))
        guard case .wrongToken = attempt("guess-guess-guess-guess") else { Issue.record("not refused"); return }
        #expect(waits(attempt("guess")) == 2)
        fixture.advance(.seconds(2))
        _ = attempt("guess-guess-guess-guess")
        fixture.advance(.milliseconds(500))
        #expect(waits(attempt("guess")) == 3)  // 4 s after the fifth, 0.5 s gone
        // A login is held up the same way, and says how long to wait.
        #expect((try? access.login(token: "full-token-0123456789", from: "192.0.2.7").get()) == nil)
        fixture.advance(.seconds(4))
        // The right token ends the count.
        #expect(Self.level(attempt("full-token-0123456789")) == .change)
        guard case .wrongToken = attempt("guess-guess-guess-guess") else { Issue.record("the count did not restart"); return }
        let lines = fixture.logged.withLock { $0 }
        #expect(lines.count == 6, "\(lines)")
        #expect(lines.first == "a wrong token from 192.0.2.7 (1 in a row)")
        #expect(lines[2] == "a wrong token from 192.0.2.7 (3 in a row; its next try waits 1 s)")
        #expect(lines[4] == "a wrong token from 192.0.2.7 (5 in a row; its next try waits 4 s)")
        #expect(lines[5] == "a wrong token from 192.0.2.7 (1 in a row)")
    }

    @Test func tokensAreComparedWhole() {
        for (a, b, equal) in [("", "", true), ("abc", "abc", true), ("abc", "abd", false), ("abc", "ab", false), ("ab", "abc", false),
            ("", "a", false), ("\u{0}", "", false)]
        {
            #expect(WebAccess.constantTimeEquals(Array(a.utf8), Array(b.utf8)) == equal, "\(a) \(b)")
        }
    }

    @Test func onLoopbackTheHostMustNameThisMachineExactly() {
        let access = Fixture().access(full: nil, read: nil, loopbackOnly: true)
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", "127.0.0.1", "localhost"] {
            #expect(access.refusedHost(host) == nil, "\(host)")
        }
        for host in [
            "127.0.0.1.evil.example:8080", "127.0.0.1.evil.example", "127.0.0.2:8080", "localhost.evil.example:8080", "127.0.0.1:9090",
            "[::1]:9090", "evil.example", "", "127.0.0.1:8080@evil.example", "127.0.0.1:80x", "[::1", "[evil]:8080", "a b:8080",
        ] {
            #expect(access.refusedHost(host) != nil, "\(host)")
        }
        #expect(access.refusedHost(nil) != nil)
        // Off loopback any well-formed name is taken (the token keeps strangers out), a malformed one is not.
        let network = Fixture().access()
        for host in ["box.local:8080", "192.168.1.20:8080", "[fe80::1]:8080", "sensorbridge"] { #expect(network.refusedHost(host) == nil, "\(host)") }
        for host in ["box.local:8080/x", "user@box.local", "box.local:99999", "", "bo x"] { #expect(network.refusedHost(host) != nil, "\(host)") }
    }

    @Test func aChangeNeedsTheLevelThisSitesOriginAndThePagesCSRFToken() {
        let access = Fixture().access()
        let page = WebAccess.Client(level: .change, csrfToken: "csrf-of-the-session", session: "s")
        let bearer = WebAccess.Client(level: .change, csrfToken: nil, session: nil)
        let reader = WebAccess.Client(level: .read, csrfToken: "csrf-of-the-reader", session: "r")
        func refused(_ client: WebAccess.Client, _ headers: [String: String], needsChangeLevel: Bool = true) -> Int? {
            access.refusedChange(Self.request("POST", headers: headers), by: client, needsChangeLevel: needsChangeLevel)?.status
        }
        #expect(refused(page, ["x-csrf-token": "csrf-of-the-session"]) == nil)
        #expect(refused(page, ["x-csrf-token": "csrf-of-the-session", "origin": "http://box.local:8080", "sec-fetch-site": "same-origin"]) == nil)
        #expect(refused(page, [:]) == 401)
        #expect(refused(page, ["x-csrf-token": "csrf-of-the-reader"]) == 401)
        #expect(refused(page, ["x-csrf-token": "csrf-of-the-session", "origin": "http://evil.example"]) == 403)
        #expect(refused(page, ["x-csrf-token": "csrf-of-the-session", "origin": "https://box.local:8080"]) == 403)
        #expect(refused(page, ["x-csrf-token": "csrf-of-the-session", "sec-fetch-site": "cross-site"]) == 403)
        #expect(refused(bearer, [:]) == nil)
        #expect(refused(bearer, ["origin": "http://evil.example"]) == 403)
        #expect(refused(reader, ["x-csrf-token": "csrf-of-the-reader"]) == 403)
        // A reader may still end its session.
        #expect(refused(reader, ["x-csrf-token": "csrf-of-the-reader"], needsChangeLevel: false) == nil)
        #expect(refused(reader, [:], needsChangeLevel: false) == 401)
    }

    @Test func aLoginOnlyEverLeadsToAPathOfThisServer() {
        for (next, expected) in [
            ("/workouts/3", "/workouts/3"), ("/zones?quantity=power&by=week", "/zones?quantity=power&by=week"), ("//evil.example", "/"),
            ("https://evil.example", "/"), ("/\\evil.example", "/"), ("", "/"), ("/a b", "/"), ("/a\nSet-Cookie: x", "/"),
        ] {
            #expect(WebApp.localPath(next) == expected, "\(next)")
        }
        #expect(WebApp.localPath(nil) == "/")
        #expect(WebApp.formFields(Array("token=a%2Bb+c&next=%2Fworkouts%2F1&token=second".utf8)) == ["token": "a+b c", "next": "/workouts/1"])
    }
}
