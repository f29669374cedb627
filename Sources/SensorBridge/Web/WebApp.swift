import Export
import Foundation
import HTTP
import SensorCore
import Synchronization
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
    func start(storePath: String?, environment: [String: String], live: LiveFeed?, log: @escaping @Sendable (String) -> Void)
        throws -> HTTPServer
    {
        let access = WebAccess(
            fullToken: token, readToken: readToken, readOnly: readOnly, loopbackOnly: Self.isLoopback(host), secure: tls != nil,
            log: log)
        let app = WebApp(storePath: storePath, environment: environment, access: access, live: live)
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

/// The web page and the HTTP API (docs/HTTP.md): the CLI's own commands answer the API, so the
/// JSON and the files are the ones `workouts list --json`, `workouts show --json`, `workouts
/// zones --json` and `export` give; the live workout comes from a `LiveFeed`. Who may use it is
/// `WebAccess`'s to say.
final class WebApp: Sendable {
    let storePath: String?
    let environment: [String: String]
    let access: WebAccess
    let live: LiveFeed?
    /// The zone the pages show times in (`TZ` when it names one, else the system's), as the
    /// command line does, whatever offset the JSON they are built from carries.
    var timeZone: TimeZone { environment["TZ"].flatMap { TimeZone(identifier: $0) } ?? .current }

    init(storePath: String?, environment: [String: String], access: WebAccess, live: LiveFeed?) {
        self.storePath = storePath
        self.environment = environment
        self.access = access
        self.live = live
    }

    /// The answer to `request`, with the headers every answer carries: no framing, no sniffing,
    /// no referrer to other sites (`same-origin`: with `no-referrer` a browser sends `Origin: null`
    /// on the page's own POSTs), nothing kept in a cache, and a Content-Security-Policy that lets a page run
    /// only its own script (by a nonce new for each page) and reach only this server.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let nonce = WebAccess.randomToken(bytes: 12)
        var response = answer(request, nonce: nonce)
        let isPage = response.headers.contains { $0.0 == "Content-Type" && $0.1.hasPrefix("text/html") }
        let policy =
            isPage
            ? "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'unsafe-inline'; img-src 'self' data:; "
                + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
            : "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"
        response.headers.removeAll { $0.0 == "Cache-Control" }
        response.headers += [
            ("Content-Security-Policy", policy), ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "same-origin"), ("Cache-Control", "no-store"),
        ]
        return response
    }

    private func answer(_ request: HTTPRequest, nonce: String) -> HTTPResponse {
        let path = request.path
        guard !request.hasControlCharacters, !path.contains(".."), !path.contains("//"), path.hasPrefix("/") else {
            return error(400, "not a path this server has")
        }
        if let refused = access.refusedHost(request.header("host")) {
            return error(access.loopbackOnly ? 421 : 400, refused)
        }
        guard let route = Route(path.split(separator: "/").map(String.init)) else {
            return error(404, "no such page; the API is described in docs/HTTP.md")
        }
        // HEAD is GET without the body (libmicrohttpd leaves the body out).
        let method = request.method == "HEAD" ? "GET" : request.method
        let allowed = route.methods
        guard allowed.contains(method) else {
            return HTTPResponse(
                status: 405, headers: [("Allow", allowed.joined(separator: ", ")), ("Content-Type", "text/plain; charset=utf-8")],
                body: .bytes(Array("use \(allowed.joined(separator: " or "))\n".utf8)))
        }
        // The login page is for those not yet authenticated.
        if case .login = route { return login(request, nonce: nonce) }
        let client: WebAccess.Client
        switch access.authenticate(request) {
        case .client(let authenticated): client = authenticated
        case .throttled(let wait) where !route.isPage: return tooManyTries(wait)
        case .throttled(let wait):
            return waitingLoginPage(next: Self.localPath(path), wait: wait, nonce: nonce)
        case .unauthenticated, .wrongToken:
            guard route.isPage else {
                var refused = error(401, "send Authorization: Bearer TOKEN (the --http-token-file's token), or log in at /login")
                refused.headers.append(("WWW-Authenticate", "Bearer realm=\"sensorbridge\""))
                return refused
            }
            let query = request.query.isEmpty ? "" : "?" + Self.formEncoded(request.query)
            return loginPage(next: path + query, message: nil, status: 401, nonce: nonce)
        }
        if route.isChange, let (status, message) = access.refusedChange(request, by: client, needsChangeLevel: route.needsChangeLevel) {
            return error(status, message)
        }
        let viewer = WebPages.Viewer(
            csrfToken: client.csrfToken, canChange: client.level == .change, nonce: nonce, canLogOut: client.session != nil)
        switch route {
        case .login:
            return login(request, nonce: nonce)  // answered above, before authentication
        case .logout:
            guard let session = client.session else { return error(409, "you are not logged in with a session") }
            return HTTPResponse(status: 204, headers: [("Set-Cookie", access.logout(session))])
        case .home:
            guard live != nil else { return HTTPResponse(status: 303, headers: [("Location", "/workouts")]) }
            return html(WebPages.live(viewer: viewer))
        case .workoutsPage:
            let list = command(["workouts", "list"], ["json"], type: "application/json")
            guard list.status == 200, let json = list.json else { return errorPage(list, viewer) }
            return html(WebPages.workouts(json, viewer: viewer, live: live != nil, timeZone: timeZone))
        case .workoutPage(let id):
            guard Int64(id).map({ $0 > 0 }) ?? false else { return error(404, "no such workout: give an id from /workouts") }
            let shown = command(["workouts", "show"], ["json"], positionals: [id], type: "application/json")
            guard shown.status == 200, let json = shown.json else { return errorPage(shown, viewer) }
            var chart = ""
            if case .bytes(let svg) = command(["export"], [], ["format": "svg", "output": "-"], positionals: [id], type: "image/svg+xml").body {
                chart = String(decoding: svg, as: UTF8.self)
                // Inline: the XML declaration belongs to a file, not to a page.
                if chart.hasPrefix("<?xml"), let end = chart.range(of: "?>") { chart = String(chart[end.upperBound...]) }
            }
            return html(WebPages.workout(json, chart: chart, viewer: viewer, live: live != nil, timeZone: timeZone))
        case .zonesPage:
            var query = request.query
            query["quantity"] = query["quantity"] ?? "heart-rate"
            query["by"] = query["by"] ?? "week"
            if query["normalize"] == "" { query["normalize"] = nil }
            let totals = zoneTotals(query)
            let found = totals.status == 200
            func json(_ words: [String]) -> JSONValue { command(words, ["json"], type: "application/json").json ?? .null }
            return html(
                WebPages.zones(
                    totals: found ? totals.json : nil, error: found ? nil : totals.json?["error"]?.stringValue, query: query,
                    profile: json(["profile", "show"]), preferred: json(["zones", "show"]), viewer: viewer, live: live != nil))
        case .workouts:
            return command(["workouts", "list"], ["json"], type: "application/json")
        case .workout(let name):
            return workout(name)
        case .zoneTotals:
            return zoneTotals(request.query)
        case .delete(let id):
            guard Int64(id).map({ $0 > 0 }) ?? false else { return error(404, "no such workout: give an id from /api/workouts") }
            let deleted = command(["workouts", "delete"], positionals: [id], type: "text/plain")
            return deleted.status == 200 ? HTTPResponse(status: 204) : deleted
        case .profile:
            guard let fields = Self.json(request.body)?.objectValue else {
                return error(400, "send a JSON object of the profile's options, for example {\"ftp\": 250}")
            }
            var options: [String: String] = [:]
            for (key, value) in fields.pairs {
                guard ProfileArguments.options.contains(key), let text = value.stringValue ?? value.doubleValue.map({ WebPages.number($0, digits: 0) })
                else { return error(400, "\(key) is not a profile option; give \(ProfileArguments.options.sorted().joined(separator: ", "))") }
                options[key] = text
            }
            let set = command(["profile", "set"], [], options, type: "text/plain")
            return set.status == 200 ? HTTPResponse(status: 204) : set
        case .setZones(let quantity):
            guard let boundaries = Self.json(request.body)?["boundaries"]?.stringValue
            else { return error(400, "send {\"boundaries\": \"120,140,155,170\"}") }
            let set = command(["zones", "set"], positionals: [quantity, boundaries], type: "text/plain")
            return set.status == 200 ? HTTPResponse(status: 204) : set
        case .live:
            guard let live else { return error(404, "nothing is recording here: the live feed is on record --http and serve --http") }
            let headers = [("Content-Type", "text/event-stream"), ("X-Accel-Buffering", "no")]
            guard request.method != "HEAD" else { return HTTPResponse(status: 200, headers: headers) }
            return HTTPResponse(status: 200, headers: headers, body: .stream(live.connect()))
        case .session(let action):
            guard let controls = live?.controls else { return error(409, "no workout is being recorded") }
            switch action {
            case "pause": controls.pause()
            case "resume": controls.resume()
            case "lap": controls.lap()
            case "end": controls.end()
            default: return error(404, "no such action: give pause, resume, lap or end")
            }
            return HTTPResponse(status: 204)
        }
    }

    /// The routes, by the path's segments.
    enum Route {
        case home, workoutsPage, workoutPage(String), zonesPage, login, logout
        case workouts, workout(String), zoneTotals, live
        case session(String), delete(String), profile, setZones(String)

        init?(_ parts: [String]) {
            switch (parts.count, parts.first, parts.dropFirst().first) {
            case (0, _, _): self = .home
            case (1, "workouts", _): self = .workoutsPage
            case (2, "workouts", _): self = .workoutPage(parts[1])
            case (1, "zones", _): self = .zonesPage
            case (1, "login", _): self = .login
            case (1, "logout", _): self = .logout
            case (2, "api", "workouts"): self = .workouts
            case (3, "api", "workouts"): self = .workout(parts[2])
            case (4, "api", "workouts") where parts[3] == "delete": self = .delete(parts[2])
            case (3, "api", "zones") where parts[2] == "totals": self = .zoneTotals
            case (3, "api", "zones") where ["heart-rate", "power"].contains(parts[2]): self = .setZones(parts[2])
            case (2, "api", "profile"): self = .profile
            case (2, "api", "live"): self = .live
            case (3, "api", "session"): self = .session(parts[2])
            default: return nil
            }
        }

        /// Whether it changes something (POST, with the change level).
        var isChange: Bool {
            switch self {
            case .session, .delete, .profile, .setZones, .logout: true
            default: false
            }
        }

        /// Whether it needs the change level (a read-only session may still log out).
        var needsChangeLevel: Bool {
            if case .logout = self { return false }
            return isChange
        }

        /// Whether a person opens it in a browser (the login page answers in its place), rather
        /// than a program (401).
        var isPage: Bool {
            switch self {
            case .home, .workoutsPage, .workoutPage, .zonesPage, .login: true
            default: false
            }
        }

        var methods: [String] {
            switch self {
            case .login: ["GET", "POST"]
            default: isChange ? ["POST"] : ["GET"]
            }
        }
    }

    /// `GET /login` shows the form; `POST /login` with the token sets the session cookie and goes
    /// back to `next`. Without a token file there is nothing to log in to.
    private func login(_ request: HTTPRequest, nonce: String) -> HTTPResponse {
        guard access.requiresAuthentication else { return HTTPResponse(status: 303, headers: [("Location", "/")]) }
        guard request.method == "POST" else {
            return loginPage(next: Self.localPath(request.query["next"]), message: nil, status: 200, nonce: nonce)
        }
        if let origin = request.header("origin"), origin != access.origin(host: request.header("host") ?? "") {
            return error(403, "a page of another site may not log in here")
        }
        let form = Self.formFields(request.body)
        let next = Self.localPath(form["next"])
        switch access.login(token: form["token"] ?? "", from: request.remoteAddress) {
        case .success(let (_, cookie)):
            return HTTPResponse(status: 303, headers: [("Location", next), ("Set-Cookie", cookie)])
        case .failure(let refusal):
            if let wait = refusal.wait { return waitingLoginPage(next: next, wait: wait, nonce: nonce) }
            return loginPage(next: next, message: "That is not the token.", status: 401, nonce: nonce)
        }
    }

    private func loginPage(next: String, message: String?, status: Int, nonce: String) -> HTTPResponse {
        var page = html(WebPages.login(next: next, message: message, nonce: nonce))
        page.status = status
        return page
    }

    /// The login page while the client's address waits after wrong tokens (429).
    private func waitingLoginPage(next: String, wait: Duration, nonce: String) -> HTTPResponse {
        var page = loginPage(next: next, message: Self.waitMessage(wait), status: 429, nonce: nonce)
        page.headers.append(("Retry-After", String(wait.components.seconds + 1)))
        return page
    }

    private func tooManyTries(_ wait: Duration) -> HTTPResponse {
        var refused = error(429, Self.waitMessage(wait))
        refused.headers.append(("Retry-After", String(wait.components.seconds + 1)))
        return refused
    }

    private static func waitMessage(_ wait: Duration) -> String {
        "too many wrong tokens from your address: try again in \(wait.components.seconds + 1) s"
    }

    /// `next` when it is a path of this server (`/workouts/3`), `/` otherwise: a login never sends
    /// a person to another site.
    static func localPath(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
            !next.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return "/" }
        return next
    }

    /// The fields of an `application/x-www-form-urlencoded` body (Foundation decodes them; `+` is a space).
    static func formFields(_ body: [UInt8]) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] where fields[item.name] == nil { fields[item.name] = item.value ?? "" }
        return fields
    }

    /// Query arguments written back into a URL's query.
    static func formEncoded(_ query: [String: String]) -> String {
        var components = URLComponents()
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.percentEncodedQuery ?? ""
    }

    /// `GET /api/zones/totals`: `workouts zones --json` with the query's options.
    private func zoneTotals(_ query: [String: String]) -> HTTPResponse {
        let keys: Set = ["quantity", "by", "zones", "normalize", "from", "to", "activity"]
        return command(["workouts", "zones"], ["json"], query.filter { keys.contains($0.key) }, type: "application/json")
    }

    private func html(_ page: String) -> HTTPResponse {
        HTTPResponse.text(200, page, type: "text/html; charset=utf-8")
    }

    /// An API error as a page.
    private func errorPage(_ response: HTTPResponse, _ viewer: WebPages.Viewer) -> HTTPResponse {
        let message = response.json?["error"]?.stringValue ?? "error \(response.status)"
        var page = html(
            WebPages.page(
                title: "Error", here: "", viewer: viewer, live: live != nil,
                body: "<h1>Error</h1><p class=\"error\">\(XMLText.escaped(message))</p>"))
        page.status = response.status
        return page
    }

    /// `/api/workouts/ID` (the JSON of `workouts show`) or `/api/workouts/ID.fit` (an export).
    private func workout(_ name: String) -> HTTPResponse {
        let pieces = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard let id = pieces.first, id == "latest" || (Int64(id).map { $0 > 0 } ?? false) else {
            return error(404, "no such workout: give an id from /api/workouts")
        }
        guard pieces.count == 2 else { return command(["workouts", "show"], ["json"], positionals: [id], type: "application/json") }
        let types = ["fit": "application/vnd.ant.fit", "tcx": "application/vnd.garmin.tcx+xml", "csv": "text/csv; charset=utf-8",
            "svg": "image/svg+xml"]
        guard let type = types[pieces[1]] else { return error(404, "no such format: give .fit, .tcx, .csv or .svg") }
        var response = command(["export"], [], ["format": pieces[1], "output": "-"], positionals: [id], type: type)
        if response.status == 200 {
            response.headers.append(("Content-Disposition", "attachment; filename=\"workout-\(id).\(pieces[1])\""))
        }
        return response
    }

    /// Runs a CLI command (`command`: its name words, `flags`, `options` and `positionals`) against
    /// the store and answers with what it printed: 200 with its output, 404 for an unknown workout,
    /// 400 for a usage error, 500 otherwise (with its message). Values from a request are only ever
    /// an option's `--name=value` or a positional after `--`: never read as an option of their own
    /// (`{"boundaries": "--help"}` is a boundary list, and a wrong one).
    private func command(
        _ command: [String], _ flags: [String] = [], _ options: [String: String] = [:], positionals: [String] = [], type: String
    ) -> HTTPResponse {
        var context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
        context.environment["TZ"] = context.environment["TZ"] ?? "UTC"
        var words = command + flags.map { "--" + $0 }
        words += options.sorted { $0.key < $1.key }.map { "--\($0.key)=\($0.value)" }
        words += storePath.map { ["--store=" + $0] } ?? []
        let status = SensorBridgeCLI.run(words + ["--"] + positionals, context: context)
        switch status {
        case .success:
            return HTTPResponse(status: 200, headers: [("Content-Type", type)], body: .bytes(context.output.bytes))
        default:
            // The command's message without its "sensorbridge workouts: " prefix.
            var message = context.errors.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if let prefix = message.firstMatch(of: #/^sensorbridge [a-z ]+: /#) { message = String(message[prefix.range.upperBound...]) }
            if status == .usage { return error(400, message) }
            return error(message.contains("there is no workout") ? 404 : 500, message)
        }
    }

    /// A body as JSON, nil when it is not.
    static func json(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
    }

    private func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse.text(status, JSONValue.object(["error": .string(message)]).serialized + "\n", type: "application/json")
    }
}

extension HTTPResponse {
    /// The body as JSON: what an API route answered, for the pages built from it.
    fileprivate var json: JSONValue? {
        guard case .bytes(let bytes) = body else { return nil }
        return WebApp.json(bytes)
    }
}
