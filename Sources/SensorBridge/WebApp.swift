import Export
import Foundation
import HTTP
import SensorCore
import WorkoutStore

/// `--http [ADDR:]PORT` and `--http-token-file FILE` of `record`, `serve` and `web`.
struct WebOptions {
    static let options: Set<String> = ["http", "http-token-file"]
    static let help = """
          --http [ADDR:]PORT         serve the web page and the HTTP API (docs/HTTP.md) on ADDR (default
                                     127.0.0.1, this machine only) and PORT
          --http-token-file FILE     the API token, one line of at least 16 characters: needed to bind an
                                     address other than loopback; requests that change something then
                                     carry it (Authorization: Bearer TOKEN)
        """

    var host: String
    var port: UInt16
    var token: String?

    /// Nil without --http.
    init?(_ arguments: CommandArguments) throws(UsageError) {
        guard let text = arguments["http"] else {
            if arguments["http-token-file"] != nil { throw UsageError("--http-token-file goes with --http [ADDR:]PORT") }
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
        if let path = arguments["http-token-file"] {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("--http-token-file \(path): cannot read it; give a file holding the token on one line")
            }
            let token = contents.trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.count >= 16, !token.contains(where: \.isWhitespace) else {
                throw UsageError(
                    "--http-token-file \(path): the token must be one word of at least 16 characters; make one with "
                        + "'head -c 24 /dev/urandom | base64 > \(path)'")
            }
            self.token = token
        } else if !Self.isLoopback(hostText) {
            throw UsageError(
                "--http \(text) lets other machines in: give --http-token-file FILE with a token they must send, or "
                    + "bind 127.0.0.1")
        }
    }

    /// The host as a URL writes it (`[::1]` for IPv6).
    var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host.hasPrefix("127.")
    }

    /// Starts the server for `app`, with the address and port in the message of a failure.
    func start(_ app: WebApp) throws -> HTTPServer {
        do {
            return try HTTPServer(host: host, port: port, handler: app.handle)
        } catch {
            throw UsageError("--http: \(error)")
        }
    }
}

/// The web page and the HTTP API (docs/HTTP.md): the CLI's own commands answer the API, so the
/// JSON and the files are the ones `workouts list --json`, `workouts show --json`, `workouts
/// zones --json` and `export` give; the live workout comes from a `LiveFeed`.
final class WebApp: Sendable {
    let storePath: String?
    let environment: [String: String]
    let token: String?
    let loopbackOnly: Bool
    let live: LiveFeed?
    /// What same-origin pages send with requests that change something (`X-CSRF-Token`).
    let csrfToken: String

    init(storePath: String?, environment: [String: String], options: WebOptions, live: LiveFeed?) {
        self.storePath = storePath
        self.environment = environment
        self.token = options.token
        self.loopbackOnly = WebOptions.isLoopback(options.host)
        self.live = live
        var bytes = [UInt8](repeating: 0, count: 18)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        csrfToken = Data(bytes).base64EncodedString().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        // On loopback without a token, a page of another site whose name resolves to this machine
        // (DNS rebinding) is kept out by its Host.
        if loopbackOnly && token == nil {
            let host = request.header("host") ?? ""
            let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }.dropFirst()) : String(host.prefix { $0 != ":" })
            guard ["127.0.0.1", "localhost", "::1"].contains(name) || name.hasPrefix("127.") else {
                return error(421, "this server answers to 127.0.0.1 and localhost only")
            }
        }
        let path = request.path
        guard !path.contains(".."), !path.contains("//"), path.hasPrefix("/") else { return error(400, "not a path this server has") }
        guard let route = Route(path.split(separator: "/").map(String.init)) else {
            return error(404, "no such page; the API is described in docs/HTTP.md")
        }
        let method = route.isChange ? "POST" : "GET"
        guard request.method == method else {
            return HTTPResponse(
                status: 405, headers: [("Allow", method), ("Content-Type", "text/plain; charset=utf-8")],
                body: .bytes(Array("use \(method)\n".utf8)))
        }
        switch route {
        case .home:
            guard live != nil else { return HTTPResponse(status: 303, headers: [("Location", "/workouts")]) }
            return html(WebPages.live(csrfToken: csrfToken))
        case .workoutsPage:
            let list = command(["workouts", "list", "--json"], type: "application/json")
            guard list.status == 200, let json = list.json else { return errorPage(list) }
            return html(WebPages.workouts(json, csrfToken: csrfToken, live: live != nil))
        case .workoutPage(let id):
            guard Int64(id).map({ $0 > 0 }) ?? false else { return error(404, "no such workout: give an id from /workouts") }
            let shown = command(["workouts", "show", id, "--json"], type: "application/json")
            guard shown.status == 200, let json = shown.json else { return errorPage(shown) }
            var chart = ""
            if case .bytes(let svg) = command(["export", id, "--format", "svg", "-o", "-"], type: "image/svg+xml").body {
                chart = String(decoding: svg, as: UTF8.self)
                // Inline: the XML declaration belongs to a file, not to a page.
                if chart.hasPrefix("<?xml"), let end = chart.range(of: "?>") { chart = String(chart[end.upperBound...]) }
            }
            return html(WebPages.workout(json, chart: chart, csrfToken: csrfToken, live: live != nil))
        case .zonesPage:
            var query = request.query
            query["quantity"] = query["quantity"] ?? "heart-rate"
            query["by"] = query["by"] ?? "week"
            if query["normalize"] == "" { query["normalize"] = nil }
            let totals = zoneTotals(query)
            let found = totals.status == 200
            func json(_ words: [String]) -> JSONValue { command(words, type: "application/json").json ?? .null }
            return html(
                WebPages.zones(
                    totals: found ? totals.json : nil, error: found ? nil : totals.json?["error"]?.stringValue, query: query,
                    profile: json(["profile", "show", "--json"]), preferred: json(["zones", "show", "--json"]),
                    csrfToken: csrfToken, live: live != nil))
        case .workouts:
            return command(["workouts", "list", "--json"], type: "application/json")
        case .workout(let name):
            return workout(name)
        case .zoneTotals:
            return zoneTotals(request.query)
        case .delete(let id):
            if let refused = refuseChange(request) { return refused }
            guard Int64(id).map({ $0 > 0 }) ?? false else { return error(404, "no such workout: give an id from /api/workouts") }
            let deleted = command(["workouts", "delete", id], type: "text/plain")
            return deleted.status == 200 ? HTTPResponse(status: 204) : deleted
        case .profile:
            if let refused = refuseChange(request) { return refused }
            guard let fields = Self.json(request.body)?.objectValue else {
                return error(400, "send a JSON object of the profile's options, for example {\"ftp\": 250}")
            }
            var words = ["profile", "set"]
            for (key, value) in fields.pairs {
                guard ProfileArguments.options.contains(key), let text = value.stringValue ?? value.doubleValue.map({ WebPages.number($0, digits: 0) })
                else { return error(400, "\(key) is not a profile option; give \(ProfileArguments.options.sorted().joined(separator: ", "))") }
                words += ["--" + key, text]
            }
            let set = command(words, type: "text/plain")
            return set.status == 200 ? HTTPResponse(status: 204) : set
        case .setZones(let quantity):
            if let refused = refuseChange(request) { return refused }
            guard let boundaries = Self.json(request.body)?["boundaries"]?.stringValue
            else { return error(400, "send {\"boundaries\": \"120,140,155,170\"}") }
            let set = command(["zones", "set", quantity, boundaries], type: "text/plain")
            return set.status == 200 ? HTTPResponse(status: 204) : set
        case .live:
            guard let live else { return error(404, "nothing is recording here: the live feed is on record --http and serve --http") }
            return HTTPResponse(
                status: 200,
                headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
                body: .stream(live.connect()))
        case .session(let action):
            if let refused = refuseChange(request) { return refused }
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
        case home, workoutsPage, workoutPage(String), zonesPage
        case workouts, workout(String), zoneTotals, live
        case session(String), delete(String), profile, setZones(String)

        init?(_ parts: [String]) {
            switch (parts.count, parts.first, parts.dropFirst().first) {
            case (0, _, _): self = .home
            case (1, "workouts", _): self = .workoutsPage
            case (2, "workouts", _): self = .workoutPage(parts[1])
            case (1, "zones", _): self = .zonesPage
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

        /// Whether it changes something (POST, with the token).
        var isChange: Bool {
            switch self {
            case .session, .delete, .profile, .setZones: true
            default: false
            }
        }
    }

    /// `GET /api/zones/totals`: `workouts zones --json` with the query's options.
    private func zoneTotals(_ query: [String: String]) -> HTTPResponse {
        var words = ["workouts", "zones", "--json"]
        for key in ["quantity", "by", "zones", "normalize", "from", "to", "activity"] {
            if let value = query[key] { words += ["--" + key, value] }
        }
        return command(words, type: "application/json")
    }

    private func html(_ page: String) -> HTTPResponse {
        HTTPResponse.text(200, page, type: "text/html; charset=utf-8")
    }

    /// An API error as a page.
    private func errorPage(_ response: HTTPResponse) -> HTTPResponse {
        let message = response.json?["error"]?.stringValue ?? "error \(response.status)"
        var page = html(
            WebPages.page(
                title: "Error", here: "", csrfToken: csrfToken, live: live != nil,
                body: "<h1>Error</h1><p class=\"error\">\(XMLText.escaped(message))</p>"))
        page.status = response.status
        return page
    }

    /// A request that changes something carries the token (`Authorization: Bearer`), or comes from
    /// this server's own page (its CSRF token, and no other Origin).
    private func refuseChange(_ request: HTTPRequest) -> HTTPResponse? {
        if let token, request.header("authorization") == "Bearer " + token { return nil }
        if request.header("x-csrf-token") == csrfToken {
            if let origin = request.header("origin"), let host = request.header("host"), origin != "http://" + host {
                return error(403, "a page of another site may not change anything here")
            }
            return nil
        }
        return error(
            401, token == nil ? "send the page's X-CSRF-Token" : "send Authorization: Bearer TOKEN (the --http-token-file's token)")
    }

    /// `/api/workouts/ID` (the JSON of `workouts show`) or `/api/workouts/ID.fit` (an export).
    private func workout(_ name: String) -> HTTPResponse {
        let pieces = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard let id = pieces.first, id == "latest" || (Int64(id).map { $0 > 0 } ?? false) else {
            return error(404, "no such workout: give an id from /api/workouts")
        }
        guard pieces.count == 2 else { return command(["workouts", "show", id, "--json"], type: "application/json") }
        let types = ["fit": "application/vnd.ant.fit", "tcx": "application/vnd.garmin.tcx+xml", "csv": "text/csv; charset=utf-8",
            "svg": "image/svg+xml"]
        guard let type = types[pieces[1]] else { return error(404, "no such format: give .fit, .tcx, .csv or .svg") }
        var response = command(["export", id, "--format", pieces[1], "-o", "-"], type: type)
        if response.status == 200 {
            response.headers.append(("Content-Disposition", "attachment; filename=\"workout-\(id).\(pieces[1])\""))
        }
        return response
    }

    /// Runs a CLI command against the store and answers with what it printed: 200 with its output,
    /// 404 for an unknown workout, 400 for a usage error, 500 otherwise (with its message).
    private func command(_ words: [String], type: String) -> HTTPResponse {
        var context = CommandContext(input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
        context.environment["TZ"] = context.environment["TZ"] ?? "UTC"
        let status = SensorBridgeCLI.run(words + (storePath.map { ["--store", $0] } ?? []), context: context)
        switch status {
        case .success:
            return HTTPResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-store")], body: .bytes(context.output.bytes))
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
