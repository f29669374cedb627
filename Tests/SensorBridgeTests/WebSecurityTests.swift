import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// The web server tried as an attacker on the same network would: off loopback (127.0.0.2 has the
/// rules of a network address) every route without the token, with a wrong one, with a scraped
/// CSRF token, from another site, with the store compared byte for byte after each refusal; the
/// levels; a rebinding Host on loopback; slow clients; TLS; request values that look like options;
/// and hostile sensor names in the terminal, the log and the browser.
extension BridgeOutTests {
    @Suite(.serialized) struct WebSecurityTests {
        static let token = "full-token-0123456789abcdef"
        static let readToken = "read-token-0123456789abcdef"

        /// A folder with a store holding one replayed workout and the two token files (mode 600).
        struct Setup {
            let folder: URL
            let store: String
            let tokenFile: String
            let readTokenFile: String

            init() throws {
                folder = FileManager.default.temporaryDirectory.appendingPathComponent("websec-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                store = folder.appendingPathComponent("workouts.sqlite").path
                let capture = try BlueZCommandTests.trace(lines: 40)
                defer { try? FileManager.default.removeItem(at: capture) }
                #expect(WebTests.cli(["replay", capture.path, "--save", "--store", store]).status == .success)
                #expect(WebTests.cli(["zones", "set", "heart-rate", "120,140,155,170", "--store", store]).status == .success)
                tokenFile = try Self.secret(WebSecurityTests.token, in: folder, named: "token")
                readTokenFile = try Self.secret(WebSecurityTests.readToken, in: folder, named: "read-token")
            }

            static func secret(_ text: String, in folder: URL, named name: String) throws -> String {
                let path = folder.appendingPathComponent(name).path
                #expect(FileManager.default.createFile(atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600]))
                return path
            }

            /// Every file of the folder but the token files, by name.
            func snapshot() throws -> [String: Data] {
                var files: [String: Data] = [:]
                for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.contains("token") {
                    files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
                }
                return files
            }

            func remove() { try? FileManager.default.removeItem(at: folder) }

            /// `web` over the store on `host` and a free port with `options`, once `ready` answers 200
            /// (to curl with `curlOptions`).
            func web(
                on host: String = "127.0.0.1", _ options: [String] = [], scheme: String = "http", ready: String = "/api/workouts",
                _ curlOptions: [String] = []
            ) throws -> (web: WebTests.Running, base: String, port: UInt16) {
                let port = try freeLoopbackPort()
                let web = WebTests.Running(["web", "--http", "\(host):\(port)", "--store", store] + options, environment: ["TZ": "UTC"])
                let base = "\(scheme)://\(host):\(port)"
                do { try WebTests.Running.waitUntilServing(base + ready, curlOptions) } catch {
                    _ = web.stop()
                    throw error
                }
                return (web, base, port)
            }
        }

        /// Every route, as (method, path, JSON body).
        static let routes: [(String, String, String?)] = [
            ("GET", "/", nil), ("GET", "/workouts", nil), ("GET", "/workouts/1", nil), ("GET", "/zones", nil),
            ("GET", "/api/workouts", nil), ("GET", "/api/workouts/1", nil), ("GET", "/api/workouts/latest", nil),
            ("GET", "/api/workouts/1.fit", nil), ("GET", "/api/workouts/1.tcx", nil), ("GET", "/api/workouts/1.csv", nil),
            ("GET", "/api/workouts/1.svg", nil), ("GET", "/api/zones/totals?quantity=heart-rate&by=week", nil), ("GET", "/api/live", nil),
            ("POST", "/api/workouts/1/delete", nil), ("POST", "/api/profile", #"{"ftp":"300"}"#),
            ("POST", "/api/zones/heart-rate", #"{"boundaries":"121,141,156,171"}"#), ("POST", "/api/session/lap", nil), ("POST", "/logout", nil),
        ]

        static func request(_ base: String, _ route: (String, String, String?), _ headers: [String], from source: String = "127.0.0.1")
            throws -> WebTests.Reply
        {
            var options = ["-X", route.0, "--interface", source] + headers.flatMap { ["-H", $0] }
            if let body = route.2 { options += ["--data-binary", body] }
            return try WebTests.curl(base + route.1, options)
        }

        /// The headers of the answer to `url` (curl with `options`).
        static func headers(_ url: String, _ options: [String] = []) throws -> String {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("headers-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try WebTests.curl(url, options + ["-D", file.path])
            return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        }

        @Test(.timeLimit(.minutes(10))) func offLoopbackEveryRouteNeedsTheTokenAndNoRefusalChangesTheStore() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let (web, base, port) = try setup.web(
                on: "127.0.0.2", ["--http-token-file", setup.tokenFile, "--http-read-only-token-file", setup.readTokenFile],
                ["-H", "Authorization: Bearer \(Self.token)"])
            defer { _ = web.stop() }
            // A reader's session: its page's CSRF token is what an attacker could scrape at best.
            let jar = setup.folder.appendingPathComponent("reader-cookies").path
            let login = try WebTests.curl(base + "/login", ["-c", jar, "--data-urlencode", "token=\(Self.readToken)", "--data", "next=/workouts"])
            #expect(login.status == 303)
            let readerPage = try WebTests.curl(base + "/workouts", ["-b", jar]).text
            let scraped = try #require(readerPage.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            #expect(!readerPage.contains("Delete"))

            let before = try setup.snapshot()
            let attacks: [(String, [String], String)] = [
                ("nothing", [], "127.0.0.1"),
                ("a wrong token", ["Authorization: Bearer wrong-token-0123456789ab"], "127.0.0.3"),
                ("a token one character short", ["Authorization: Bearer \(Self.token.dropLast())"], "127.0.0.3"),
                ("a made-up session", ["Cookie: sensorbridge-session-\(port)=made-up-session-id"], "127.0.0.1"),
                ("a scraped CSRF token", ["X-CSRF-Token: \(scraped)"], "127.0.0.1"),
                ("another site's page", ["X-CSRF-Token: \(scraped)", "Origin: http://evil.example", "Sec-Fetch-Site: cross-site"], "127.0.0.1"),
                ("a rebinding Host", ["Host: 127.0.0.1.evil.example:\(port)", "X-CSRF-Token: \(scraped)"], "127.0.0.1"),
            ]
            for (what, headers, source) in attacks {
                for route in Self.routes {
                    let reply = try Self.request(base, route, headers, from: source)
                    #expect([401, 403, 429].contains(reply.status), "\(what): \(route.0) \(route.1) answered \(reply.status)")
                    // No data: the login page or an error, never a CSRF token, a workout or a file.
                    #expect(!reply.text.contains("csrf-token") && !reply.text.contains("Workout 1") && !reply.text.contains("\"workouts\""))
                    #expect(reply.body.range(of: Data(".FIT".utf8)) == nil)
                    if route.1 == "/workouts" { #expect(reply.text.contains("<h1>Log in</h1>"), "\(what)") }
                    #expect(try setup.snapshot() == before, "\(what): \(route.0) \(route.1) changed the store")
                }
            }
            // The reader's session and token read everything and change nothing.
            let reader = ["Authorization: Bearer \(Self.readToken)"]
            for route in Self.routes {
                let reply = try Self.request(base, route, route.0 == "GET" ? reader : ["X-CSRF-Token: \(scraped)"] + reader)
                let expected = route.1 == "/logout" ? 409 : route.0 == "POST" ? 403 : route.1 == "/" ? 303 : route.1 == "/api/live" ? 404 : 200
                #expect(reply.status == expected, "read level: \(route.0) \(route.1) answered \(reply.status)")
            }
            let cookieChange = try WebTests.curl(base + "/api/workouts/1/delete", ["-X", "POST", "-b", jar, "-H", "X-CSRF-Token: \(scraped)"])
            #expect(cookieChange.status == 403, "\(cookieChange.text)")
            #expect(try setup.snapshot() == before)
            // The reader logs out: its cookie is gone, and the old one no longer works.
            let sessionCookie = try #require(
                try String(contentsOfFile: jar, encoding: .utf8).split(separator: "\n").last.map { $0.split(separator: "\t") })
            #expect(try WebTests.curl(base + "/logout", ["-X", "POST", "-b", jar, "-H", "X-CSRF-Token: \(scraped)"]).status == 204)
            #expect(try WebTests.curl(base + "/workouts", ["-H", "Cookie: \(sessionCookie[5])=\(sessionCookie[6])"]).status == 401)

            // The full token changes what it asks, through the CLI's checks.
            let full = ["Authorization: Bearer \(Self.token)"]
            #expect(try Self.request(base, ("POST", "/api/profile", #"{"ftp":"300"}"#), full).status == 204)
            #expect(try Self.request(base, ("POST", "/api/workouts/1/delete", nil), full).status == 204)
            #expect(try Self.request(base, ("GET", "/api/workouts/1", nil), full).status == 404)
            // Each wrong token was logged, and the address that kept sending them was slowed.
            let run = web.stop()
            #expect(run.errors.contains("sensorbridge web: a wrong token from 127.0.0.3 (1 in a row)"), "\(run.errors)")
            #expect(run.errors.contains("(3 in a row; its next try waits 1 s)"), "\(run.errors)")
        }

        /// A person logs in through the page in Chromium, works normally (saves an FTP), and logs out.
        @Test(.timeLimit(.minutes(10)), .enabled(if: Browser.unavailableReason == nil, "\(Browser.unavailableReason ?? "")"))
        func aPersonLogsInThroughThePageAndWorks() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let (web, base, _) = try setup.web(on: "127.0.0.2", ["--http-token-file", setup.tokenFile], ready: "/login")
            defer { _ = web.stop() }
            let browser = try Browser()
            try browser.open(base + "/zones")
            #expect(try browser.text("h1") == "Log in")
            try browser.type("input[name=token]", "not-the-token-at-all")
            try browser.click("form button")
            try browser.waitUntil("the refusal") { try browser.text("p.error") == "That is not the token." }
            try browser.type("input[name=token]", Self.token)
            try browser.click("form button")
            try browser.waitUntil("the zones page after logging in") { try browser.text("h1") == "Time in zone" }
            #expect(try browser.script("return location.pathname").stringValue == "/zones")
            // The session cookie is not readable by the page's script.
            #expect(try browser.script("return document.cookie").stringValue == "")
            for (name, value) in [("ftp", "275"), ("age", "40"), ("resting-hr", "50")] {
                _ = try browser.script("document.querySelector('#profile input[name=\(name)]').value = '\(value)'")
            }
            try browser.click("#profile button")
            try browser.waitUntil("saved") { try browser.text("#profile .result") == "saved" }
            #expect(String(decoding: WebTests.cli(["profile", "show", "--json", "--store", setup.store]).output, as: UTF8.self)
                .contains(#""functionalThresholdPower":275"#))
            try browser.click("#logout")
            try browser.waitUntil("the login page again") { try browser.text("h1") == "Log in" }
            try browser.open(base + "/workouts")
            #expect(try browser.text("h1") == "Log in")
        }

        @Test(.timeLimit(.minutes(10))) func onLoopbackTheHostIsExactAndATokenFileTurnsAuthenticationOn() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let (web, base, port) = try setup.web()
            let csrf = try #require(try WebTests.curl(base + "/workouts").text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            let before = try setup.snapshot()
            for host in ["127.0.0.1.evil.example:\(port)", "127.0.0.1.evil.example", "localhost.evil.example:\(port)", "127.0.0.2:\(port)",
                "127.0.0.1:\(port + 1)", "evil.example"]
            {
                #expect(try WebTests.curl(base + "/workouts", ["-H", "Host: \(host)"]).status == 421, "\(host)")
                let change = try WebTests.curl(base + "/api/workouts/1/delete", ["-X", "POST", "-H", "Host: \(host)", "-H", "X-CSRF-Token: \(csrf)"])
                #expect(change.status == 421, "\(host)")
            }
            #expect(try setup.snapshot() == before)
            for host in ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)", "localhost"] {
                #expect(try WebTests.curl(base + "/api/workouts", ["-H", "Host: \(host)"]).status == 200, "\(host)")
            }
            _ = web.stop()
            // A token file on loopback: every route needs it there too.
            let guarded = WebTests.Running(
                ["web", "--http", "\(port)", "--store", setup.store, "--http-token-file", setup.tokenFile], environment: ["TZ": "UTC"])
            defer { _ = guarded.stop() }
            try WebTests.Running.waitUntilServing(base + "/login")
            #expect(try WebTests.curl(base + "/api/workouts").status == 401)
            #expect(try WebTests.curl(base + "/workouts").status == 401)
            #expect(try WebTests.curl(base + "/api/workouts", ["-H", "Authorization: Bearer \(Self.token)"]).status == 200)
            #expect(try WebTests.curl(base + "/api/workouts", ["-H", "Authorization: Bearer \(Self.token)", "-H", "Host: evil.example"]).status == 421)
        }

        /// 64 connections trickling header lines, 32 from each of two addresses: the page and the API
        /// still answer everyone else at once, and the trickling connections are cut off.
        @Test(.timeLimit(.minutes(10))) func slowClientsDoNotKeepOthersOut() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let (web, base, port) = try setup.web()
            defer { _ = web.stop() }
            final class Attack: Sendable {
                let stop = Atomic(false)
                let cutOff = Atomic(0)
            }
            let attack = Attack()
            var attackers: [Thread] = []
            for index in 0..<64 {
                let source = index < 32 ? "127.0.0.2" : "127.0.0.3"
                let thread = Thread {
                    guard let connection = LoopbackClient(from: source, to: port) else { return }
                    connection.send("GET /workouts HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
                    var line = 0
                    while !attack.stop.load(ordering: .relaxed), line < 600 {
                        guard connection.send("X-Slow-\(line): a\r\n") else { break }
                        Thread.sleep(forTimeInterval: 0.25)
                        line += 1
                    }
                    if line < 600 && !attack.stop.load(ordering: .relaxed) { attack.cutOff.add(1, ordering: .relaxed) }
                }
                thread.start()
                attackers.append(thread)
            }
            defer { attack.stop.store(true, ordering: .relaxed) }
            Thread.sleep(forTimeInterval: 1)
            // Under attack, others are served: pages and API, each well within curl's limit.
            for _ in 0..<5 {
                #expect(try WebTests.curl(base + "/workouts", ["--max-time", "5"]).status == 200)
                #expect(try WebTests.curl(base + "/api/workouts", ["--max-time", "5", "--interface", "127.0.0.4"]).status == 200)
                Thread.sleep(forTimeInterval: 0.5)
            }
            // The request deadline (15 s) cuts every trickling connection off; none lasts 150 s.
            let deadline = ContinuousClock.now + .seconds(60)
            while attack.cutOff.load(ordering: .relaxed) < 64, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.25) }
            #expect(attack.cutOff.load(ordering: .relaxed) == 64)
        }

        @Test(.timeLimit(.minutes(10)), .enabled(if: FileManager.default.isExecutableFile(atPath: openSSLPath), "needs openssl"))
        func httpsWithASelfSignedPair() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let (certificate, key) = try makeSelfSignedPair(in: setup.folder, names: ["DNS:localhost", "IP:127.0.0.2"])
            // A key that every user may read is refused.
            chmod(key, 0o644)
            let refused = WebTests.cli(
                ["web", "--http", "127.0.0.2:1", "--http-token-file", setup.tokenFile, "--http-tls-cert", certificate, "--http-tls-key", key,
                    "--store", setup.store])
            #expect(refused.status == .usage && refused.errors.contains("is readable by every user of this machine; make it yours alone: chmod 600"))
            chmod(key, 0o600)
            let trusted = ["--cacert", certificate]
            let (web, base, port) = try setup.web(
                on: "127.0.0.2", ["--http-token-file", setup.tokenFile, "--http-tls-cert", certificate, "--http-tls-key", key], scheme: "https",
                ready: "/login", trusted)
            defer { _ = web.stop() }
            #expect(try WebTests.curl(base + "/api/workouts", trusted).status == 401)
            #expect(try WebTests.curl(base + "/api/workouts", trusted + ["-H", "Authorization: Bearer \(Self.token)"]).status == 200)
            // The session cookie is Secure and __Host- under TLS.
            let login = try Self.headers(base + "/login", trusted + ["--data-urlencode", "token=\(Self.token)"])
            #expect(login.contains("Set-Cookie: __Host-sensorbridge-\(port)="), "\(login)")
            #expect(login.contains("; HttpOnly; SameSite=Strict; Secure"), "\(login)")
            // Without trusting the certificate, or in plain HTTP, nothing is answered.
            #expect(try WebTests.curl(base + "/login").status == 0)
            #expect(try WebTests.curl("http://127.0.0.2:\(port)/login").status == 0)
            let started = web.stop()
            #expect(started.errors.contains("serving https://127.0.0.2:\(port)/"), "\(started.errors)")
        }

        @Test(.timeLimit(.minutes(10))) func requestValuesAreNeverReadAsOptionsAndAnswersCarryTheSafetyHeaders() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let (web, base, _) = try setup.web()
            defer { _ = web.stop() }
            let csrf = try #require(try WebTests.curl(base + "/workouts").text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            let post = ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)"]
            let help = try WebTests.curl(base + "/api/zones/heart-rate", post + ["--data", #"{"boundaries":"--help"}"#])
            #expect(help.status == 400 && help.text.contains("'--help' is not a number"), "\(help.text)")
            let store = try WebTests.curl(base + "/api/profile", post + ["--data", #"{"ftp":"--store=/tmp/elsewhere.sqlite"}"#])
            #expect(store.status == 400, "\(store.text)")
            let totals = try WebTests.curl(base + "/api/zones/totals?quantity=--help&by=week")
            #expect(totals.status == 400 && totals.text.contains("--help"), "\(totals.text)")
            #expect(!FileManager.default.fileExists(atPath: "/tmp/elsewhere.sqlite"))
            // Control characters in the path, encoded or not.
            for path in ["/api/workouts%00.fit", "/api/workouts/1%0A", "/workouts%1B"] {
                #expect(try WebTests.curl(base + path).status == 400, "\(path)")
            }
            // HEAD is GET without the body.
            let head = try WebTests.curl(base + "/api/workouts", ["-I"])
            #expect(head.status == 200 && head.text.contains("Content-Type: application/json"), "\(head.text)")
            // Every answer: no framing, no sniffing, no referrer, no caching; a page runs only its own script.
            for path in ["/workouts", "/api/workouts", "/api/workouts/1.svg", "/nothing"] {
                let headers = try Self.headers(base + path)
                for expected in ["X-Frame-Options: DENY", "X-Content-Type-Options: nosniff", "Referrer-Policy: same-origin", "Cache-Control: no-store",
                    "Content-Security-Policy: default-src 'none';", "frame-ancestors 'none'"]
                {
                    #expect(headers.contains(expected), "\(path): \(headers)")
                }
            }
            let pageFile = setup.folder.appendingPathComponent("page-headers").path
            let page = try WebTests.curl(base + "/workouts", ["-D", pageFile]).text
            let policy = try String(contentsOfFile: pageFile, encoding: .utf8)
            let nonce = try #require(policy.firstMatch(of: /script-src 'nonce-([A-Za-z0-9_-]+)'/)?.1)
            #expect(page.contains("<script nonce=\"\(nonce)\">") && page.components(separatedBy: "<script").count == 2)
            #expect(!policy.contains("unsafe-eval") && !policy.contains("script-src 'unsafe-inline'"))
        }

        @Test func theHTTPOptionsSayWhatIsWrong() throws {
            let setup = try Setup()
            defer { setup.remove() }
            let open = setup.folder.appendingPathComponent("open-token").path
            _ = FileManager.default.createFile(atPath: open, contents: Data("0123456789abcdef0123\n".utf8), attributes: [.posixPermissions: 0o644])
            let short = try Setup.secret("short", in: setup.folder, named: "short-token")
            for (arguments, message) in [
                (["--http", "0.0.0.0:8080"], "give --http-token-file FILE"),
                (["--http", "127.0.0.2:8080"], "give --http-token-file FILE"),
                (["--http", "80800"], "is not a port"),
                (["--http", "box:8080"], "box is not an IP address"),
                (["--http", "8080", "--http-token-file", "/nonexistent/token"], "No such file or directory; make one with '(umask 077;"),
                (["--http", "8080", "--http-token-file", open], "is readable by every user of this machine; make it yours alone: chmod 600"),
                (["--http", "8080", "--http-token-file", short], "the token must be one word of at least 16 characters"),
                (["--http", "8080", "--http-token-file", setup.tokenFile, "--http-read-only-token-file", setup.tokenFile], "make it another one"),
                (["--http-token-file", "/etc/hostname"], "--http-token-file goes with --http"),
                (["--http-read-only"], "--http-read-only goes with --http"),
                (["--http", "8080", "--http-tls-cert", "/etc/hostname"], "--http-tls-cert goes with --http-tls-key FILE; make a pair with 'openssl req"),
                (["--http", "8080", "--http-tls-key", setup.tokenFile], "--http-tls-key goes with --http-tls-cert FILE"),
                (["--http", "8080", "--http-tls-cert", "/etc/hostname", "--http-tls-key", setup.tokenFile], "cannot read a PEM certificate there"),
            ] {
                let run = WebTests.cli(["web"] + arguments + ["--store", setup.store])
                #expect(run.status == .usage, "\(arguments)")
                #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
            }
        }
    }
}
