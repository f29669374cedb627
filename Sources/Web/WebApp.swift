import Export
public import Foundation
public import HTTP
public import Outputs
import SensorCore
import Synchronization
import Workouts
public import WorkoutStore
import Zones

/// The web page and the HTTP API (docs/HTTP.md). It reads and changes the store itself and
/// answers with the shapes `Outputs` writes for the command line too (`WorkoutJSON`,
/// `ZoneTotalsReport`, `ProfileJSON`) and the files `Export` writes, so the JSON and the files
/// are the ones `workouts list --json`, `workouts show --json`, `workouts zones --json` and
/// `export` give; the live workout comes from a `LiveFeed`. Who may use it is `WebAccess`'s to
/// say. A status comes from the error's type, never from its words.
public final class WebApp: Sendable {
    let store: StoreOpener?
    let timeZone: TimeZone
    let access: WebAccess
    let live: LiveFeed?
    /// The riders of a class (`serve --http` with several athletes), each with their own feed.
    let riders: ClassFeed?

    /// Serves `store` (nil when nothing says where it is: every route that needs it says so), with
    /// days and weeks in `timeZone`.
    public init(store: StoreOpener?, timeZone: TimeZone, access: WebAccess, live: LiveFeed?, riders: ClassFeed? = nil) {
        self.store = store
        self.timeZone = timeZone
        self.access = access
        self.live = live
        self.riders = riders
    }

    /// The answer to `request`, with the headers every answer carries: no framing, no sniffing,
    /// no referrer to other sites (`same-origin`: with `no-referrer` a browser sends `Origin: null`
    /// on the page's own POSTs), nothing kept in a cache, and a Content-Security-Policy that lets a page run
    /// only its own script (by a nonce new for each page) and reach only this server.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
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
            if riders != nil { return html(WebPages.classPage(viewer: viewer)) }
            guard live != nil else { return HTTPResponse(status: 303, headers: [("Location", "/workouts")]) }
            return html(WebPages.live(viewer: viewer))
        case .classPage:
            guard riders != nil else { return error(404, "no class here: serve --http with several athletes shows one") }
            return html(WebPages.classPage(viewer: viewer))
        case .riderPage(let name):
            guard let rider = riders?.rider(named: name) else {
                return error(404, "no rider \(name) here: the class's riders are its athletes with sensors assigned")
            }
            let segment = rider.name.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? ""
            return html(WebPages.live(viewer: viewer, api: "/api/athletes/" + segment, rider: rider.name.rawValue))
        case .workoutsPage:
            do {
                return html(WebPages.workouts(try workoutList(), viewer: viewer, live: live != nil || riders != nil, timeZone: timeZone))
            } catch {
                return errorPage(error, viewer)
            }
        case .workoutPage(let text):
            guard let id = WorkoutID(text) else { return error(404, "no such workout: give an id from /workouts") }
            do {
                let (json, workout) = try shown(id)
                var chart = String(decoding: ExportFormat.svg.encode(workout, timeZone: timeZone), as: UTF8.self)
                // Inline: the XML declaration belongs to a file, not to a page.
                if chart.hasPrefix("<?xml"), let end = chart.range(of: "?>") { chart = String(chart[end.upperBound...]) }
                return html(WebPages.workout(json, chart: chart, viewer: viewer, live: live != nil || riders != nil, timeZone: timeZone))
            } catch {
                return errorPage(error, viewer)
            }
        case .zonesPage:
            var query = request.query
            query["quantity"] = query["quantity"] ?? "heart-rate"
            query["by"] = query["by"] ?? "week"
            if query["normalize"] == "" { query["normalize"] = nil }
            let totals: JSONValue?
            let totalsError: String?
            do {
                (totals, totalsError) = (try zoneTotals(query), nil)
            } catch {
                (totals, totalsError) = (nil, Self.status(of: error).1)
            }
            do {
                let preferences = try openForReading().preferences(of: nil)
                return html(
                    WebPages.zones(
                        totals: totals, error: totalsError, query: query,
                        profile: ProfileJSON.profile(preferences), preferred: ProfileJSON.zones(preferences, on: today),
                        viewer: viewer, live: live != nil || riders != nil))
            } catch {
                return errorPage(error, viewer)
            }
        case .bestPage:
            let report: BestEffortsReport?
            let reportError: String?
            do {
                (report, reportError) = (try best(request.query), nil)
            } catch {
                (report, reportError) = (nil, Self.status(of: error).1)
            }
            return html(WebPages.best(report, error: reportError, query: request.query, viewer: viewer, live: live != nil || riders != nil))
        case .best:
            return answer { try best(request.query).json }
        case .workouts:
            return answer { try workoutList() }
        case .workout(let name):
            return workout(name)
        case .zoneTotals:
            return answer { try zoneTotals(request.query) }
        case .delete(let text):
            guard let id = WorkoutID(text) else { return error(404, "no such workout: give an id from /api/workouts") }
            return change { try $0.deleteWorkout(id) }
        case .profile:
            guard let fields = Self.json(request.body)?.objectValue else {
                return error(400, "send a JSON object of the profile's options, for example {\"ftp\": 250}")
            }
            var values: [String: String] = [:]
            for (key, value) in fields.pairs {
                guard ProfileValues.options.contains(key), let text = value.stringValue ?? value.doubleValue.map({ WebPages.number($0, digits: 0) })
                else { return error(400, "\(key) is not a profile option; give \(ProfileValues.options.sorted().joined(separator: ", "))") }
                values[key] = text
            }
            guard !values.isEmpty else { return error(400, "give what to set, for example {\"ftp\": 250}") }
            return change { store in
                var preferences = try store.preferences(of: nil)
                try ProfileValues.apply(RequestValues(values), to: &preferences)
                try ProfileValues.checkModels(preferences, RequestValues(values), on: today)
                try store.savePreferences(preferences, for: nil)
            }
        case .setZones(let quantity):
            guard let boundaries = Self.json(request.body)?["boundaries"]?.stringValue
            else { return error(400, "send {\"boundaries\": \"120,140,155,170\"}") }
            return change { store in
                guard let type = try RequestValues(["quantity": quantity]).zonedQuantity("quantity") else { return }
                let configuration = try WorkoutZoneConfiguration(boundaries: boundaries, type, label: "boundaries")
                var preferences = try store.preferences(of: nil)
                do {
                    try preferences.setUserConfiguration(configuration)
                } catch {
                    throw RequestError("boundaries \(boundaries): \(error)")
                }
                try store.savePreferences(preferences, for: nil)
            }
        case .live:
            guard let live else { return error(404, "nothing is recording here: the live feed is on record --http and serve --http") }
            return stream(request) { live.connect() }
        case .classFeed:
            guard let riders else { return error(404, "no class here: serve --http with several athletes has one") }
            return stream(request) { riders.connect() }
        case .riderLive(let name):
            guard let feed = riders?.rider(named: name)?.feed else { return error(404, "no rider \(name) here") }
            return stream(request) { feed.connect() }
        case .session(let action), .riderSession(_, let action):
            var feed = live
            if case .riderSession(let name, _) = route {
                guard let rider = riders?.rider(named: name) else { return error(404, "no rider \(name) here") }
                feed = rider.feed
            }
            guard let controls = feed?.controls else { return error(409, "no workout is being recorded") }
            switch action {
            case "pause": controls.pause()
            case "resume": controls.resume()
            case "lap": controls.lap()
            case "end": controls.end()
            case "activity":
                // The next planned activity (no body, `{}`), or `{"type": "running"}`.
                var type: WorkoutActivityType?
                if !request.body.isEmpty {
                    let body = Self.json(request.body)
                    let name = body?["type"]
                    guard body?.objectValue != nil, name == nil || name == .null || name?.stringValue != nil else {
                        return error(400, "send nothing (or {}) for the next activity, or {\"type\": \"running\"}")
                    }
                    if let name = name?.stringValue {
                        guard let named = WorkoutActivityType(name: name) else {
                            let names = WorkoutActivityType.selectable.map(\.rawValue).joined(separator: ", ")
                            return error(400, "\(name) is not an activity type; give one of \(names)")
                        }
                        type = named
                    }
                }
                guard let begun = controls.nextActivity(type) else {
                    return error(409, "no activity comes next: record --activities A,B,... plans them, or send {\"type\": \"running\"}")
                }
                return json(.object(["type": .string(begun.rawValue), "next": controls.upcomingActivity.map { .string($0.rawValue) } ?? .null]))
            default: return error(404, "no such action: give pause, resume, lap, activity or end")
            }
            return HTTPResponse(status: 204)
        }
    }

    /// A Server-Sent Events answer with the stream `connect` makes (none for HEAD).
    private func stream(_ request: HTTPRequest, _ connect: () -> HTTPStream) -> HTTPResponse {
        let headers = [("Content-Type", "text/event-stream"), ("X-Accel-Buffering", "no")]
        guard request.method != "HEAD" else { return HTTPResponse(status: 200, headers: headers) }
        return HTTPResponse(status: 200, headers: headers, body: .stream(connect()))
    }

    /// The routes, by the path's segments.
    enum Route {
        case home, workoutsPage, workoutPage(String), zonesPage, bestPage, login, logout
        case workouts, workout(String), zoneTotals, best, live
        case session(String), delete(String), profile, setZones(String)
        /// A class (`serve --http` with several athletes): its screen and feed, each rider's live
        /// page, feed and session controls.
        case classPage, classFeed, riderPage(String), riderLive(String), riderSession(String, String)

        init?(_ parts: [String]) {
            switch (parts.count, parts.first, parts.dropFirst().first) {
            case (0, _, _): self = .home
            case (1, "workouts", _): self = .workoutsPage
            case (2, "workouts", _): self = .workoutPage(parts[1])
            case (1, "zones", _): self = .zonesPage
            case (1, "best", _): self = .bestPage
            case (1, "login", _): self = .login
            case (1, "class", _): self = .classPage
            case (3, "athletes", _) where parts[2] == "live": self = .riderPage(parts[1])
            case (2, "api", "class"): self = .classFeed
            case (4, "api", "athletes") where parts[3] == "live": self = .riderLive(parts[2])
            case (5, "api", "athletes") where parts[3] == "session": self = .riderSession(parts[2], parts[4])
            case (1, "logout", _): self = .logout
            case (2, "api", "workouts"): self = .workouts
            case (3, "api", "workouts"): self = .workout(parts[2])
            case (4, "api", "workouts") where parts[3] == "delete": self = .delete(parts[2])
            case (3, "api", "zones") where parts[2] == "totals": self = .zoneTotals
            case (3, "api", "zones") where ["heart-rate", "power"].contains(parts[2]): self = .setZones(parts[2])
            case (2, "api", "profile"): self = .profile
            case (2, "api", "best"): self = .best
            case (2, "api", "live"): self = .live
            case (3, "api", "session"): self = .session(parts[2])
            default: return nil
            }
        }

        /// Whether it changes something (POST, with the change level).
        var isChange: Bool {
            switch self {
            case .session, .riderSession, .delete, .profile, .setZones, .logout: true
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
            case .home, .workoutsPage, .workoutPage, .zonesPage, .bestPage, .login, .classPage, .riderPage: true
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
    private func zoneTotals(_ query: [String: String]) throws -> JSONValue {
        let keys: Set = ["quantity", "by", "zones", "normalize", "from", "to", "activity"]
        let request = try ZoneTotalsReport.Request(RequestValues(query.filter { keys.contains($0.key) }), calendar: calendar)
        return ZoneTotalsReport.json(try ZoneTotalsReport.run(request, store: try openForReading(), timeZone: timeZone, today: today))
    }

    /// `GET /api/best`: `workouts best --json` over every rider's workouts, with the query's `by`,
    /// `from`, `to` and `activity`.
    private func best(_ query: [String: String]) throws -> BestEffortsReport {
        let keys: Set = ["by", "from", "to", "activity"]
        let request = try BestEffortsReport.Request(RequestValues(query.filter { keys.contains($0.key) }), calendar: calendar)
        return try BestEffortsReport(request, store: try openForReading(), calendar: calendar)
    }

    /// `workouts list --json`: every rider's workouts.
    private func workoutList() throws -> JSONValue {
        .object(["workouts": .array(try openForReading().workouts(matching: WorkoutFilter()).map { WorkoutJSON.listing($0, timeZone: timeZone) })])
    }

    /// `workouts show ID --json`, and the workout.
    private func shown(_ id: WorkoutID) throws -> (JSONValue, Workout) {
        let store = try openForReading()
        let workout = try store.workout(id)
        let identity = try store.identity(of: id)
        let json = WorkoutJSON.object(
            workout, id: id, identity: identity, zoneUpdates: false, profileNow: try store.profileNow(of: identity.athlete), timeZone: timeZone)
        return (json, workout)
    }

    private func html(_ page: String) -> HTTPResponse {
        HTTPResponse.text(200, page, type: "text/html; charset=utf-8")
    }

    /// An error as a page, with the status the API gives it.
    private func errorPage(_ failure: any Error, _ viewer: WebPages.Viewer) -> HTTPResponse {
        let (status, message) = Self.status(of: failure)
        var page = html(
            WebPages.page(
                title: "Error", here: "", viewer: viewer, live: live != nil || riders != nil,
                body: "<h1>Error</h1><p class=\"error\">\(XMLText.escaped(message))</p>"))
        page.status = status
        return page
    }

    /// `/api/workouts/ID` (the JSON of `workouts show`), `latest`, or `/api/workouts/ID.fit` (an export).
    private func workout(_ name: String) -> HTTPResponse {
        let pieces = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard let text = pieces.first, text == "latest" || WorkoutID(text) != nil else {
            return error(404, "no such workout: give an id from /api/workouts")
        }
        let types = [
            "fit": "application/vnd.ant.fit", "tcx": "application/vnd.garmin.tcx+xml", "csv": "text/csv; charset=utf-8",
            "svg": "image/svg+xml",
        ]
        var format: ExportFormat?
        if pieces.count == 2 {
            guard let named = ExportFormat(rawValue: pieces[1]), types[pieces[1]] != nil else {
                return error(404, "no such format: give .fit, .tcx, .csv or .svg")
            }
            format = named
        }
        do {
            let store = try openForReading()
            guard let id = try WorkoutID(text) ?? store.latestWorkoutID() else {
                return error(404, "there are no finished workouts in \(store.path) yet")
            }
            guard let format else { return json(try shown(id).0) }
            let bytes = format.encode(try store.workout(id), timeZone: timeZone)
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", types[format.rawValue]!),
                    ("Content-Disposition", "attachment; filename=\"workout-\(id).\(format.rawValue)\""),
                ], body: .bytes(bytes))
        } catch {
            return failure(error)
        }
    }

    /// The store, opened to read it.
    private func openForReading() throws -> WorkoutStore {
        guard let store else { throw Unconfigured() }
        return try store.openForReading()
    }

    /// Nothing says where the store is (no `--store`, no `SENSORBRIDGE_STORE`, no home folder).
    private struct Unconfigured: Error, CustomStringConvertible {
        var description: String { "this server has no workout store: start it with --store PATH" }
    }

    /// The Gregorian calendar in the server's time zone, and the day it is there.
    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    private var today: CalendarDate? { CalendarDate(Date(), in: calendar) }

    /// 200 with the JSON `body` gives, or the error's status.
    private func answer(_ body: () throws -> JSONValue) -> HTTPResponse {
        do {
            return json(try body())
        } catch {
            return failure(error)
        }
    }

    /// 204 once `body` has changed the store, or the error's status.
    private func change(_ body: (WorkoutStore) throws -> Void) -> HTTPResponse {
        do {
            guard let store else { throw Unconfigured() }
            try body(try store.open())
            return HTTPResponse(status: 204)
        } catch {
            return failure(error)
        }
    }

    private func json(_ value: JSONValue) -> HTTPResponse {
        HTTPResponse.text(200, value.serialized + "\n", type: "application/json")
    }

    private func failure(_ failure: any Error) -> HTTPResponse {
        let (status, message) = Self.status(of: failure)
        return error(status, message)
    }

    /// The status of an error, by its type: 400 for a request's value, 404 for a workout or
    /// athlete that is not there, 409 for one still being recorded or interrupted, 503 for a busy
    /// store, 500 for the rest.
    static func status(of failure: any Error) -> (Int, String) {
        switch failure {
        case let error as RequestError: return (400, error.description)
        case let error as WorkoutStoreError:
            switch error {
            case .notFound, .uuidNotFound, .noAthlete: return (404, error.description)
            case .unfinished, .recording, .recordingInProgress: return (409, error.description)
            case .busy: return (503, error.description)
            default: return (500, error.description)
            }
        default: return (500, "\(failure)")
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
