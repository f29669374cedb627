import Export
import Foundation
import HTTP
import Outputs
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Zones
import Workouts

@testable import Web

/// The web app answered without a server or a command line: each route reads or changes the store
/// itself, answers with the shapes `Outputs` and `Export` write for the command line too, and takes
/// its status from the error's type.
struct WebAppTests {
    static let token = "a-token-of-twenty-four-chars"
    static let utc = TimeZone(identifier: "UTC")!

    /// A store in a fresh folder with one synthetic ride, and the app serving it.
    final class Served {
        let folder: URL
        let path: String
        let app: WebApp

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("webapp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            path = folder.appendingPathComponent("workouts.sqlite").path
            let store = try WorkoutStore(path: path)
            _ = try store.save(try SyntheticRide.workout(seconds: 900, seed: 3, startDate: Date(timeIntervalSince1970: 1_795_000_000)))
            let access = WebAccess(
                fullToken: WebAppTests.token, readToken: nil, readOnly: false, loopbackOnly: true, secure: false, log: { _ in })
            access.port.store(8080, ordering: .relaxed)
            app = WebApp(store: StoreOpener(path: path, defaultPath: nil), timeZone: WebAppTests.utc, access: access, live: nil)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func get(_ path: String, query: [String: String] = [:]) -> HTTPResponse {
            app.handle(HTTPRequest(method: "GET", path: path, query: query, headers: headers))
        }

        func post(_ path: String, _ body: String) -> HTTPResponse {
            app.handle(HTTPRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8)))
        }

        var headers: [String: String] { ["host": "127.0.0.1:8080", "authorization": "Bearer \(WebAppTests.token)"] }

        func store() throws -> WorkoutStore { try WorkoutStore(readingAt: path) }
    }

    static func bytes(_ response: HTTPResponse) -> [UInt8] {
        guard case .bytes(let bytes) = response.body else { return [] }
        return bytes
    }

    static func json(_ response: HTTPResponse) throws -> JSONValue {
        try JSONValue(parsing: String(decoding: bytes(response), as: UTF8.self))
    }

    @Test func theAPIAnswersWithTheShapesTheCommandLinePrints() throws {
        let served = try Served()
        let store = try served.store()
        let id = try #require(WorkoutID("1"))

        let list = served.get("/api/workouts")
        #expect(list.status == 200)
        let listed = try Self.json(list)
        #expect(listed == .object(["workouts": .array(try store.workouts().map { WorkoutJSON.listing($0, timeZone: Self.utc) })]))
        #expect(listed["workouts"]?.arrayValue?.first?["state"]?.stringValue == "finished")

        let shown = served.get("/api/workouts/1")
        #expect(shown.status == 200)
        let expected = WorkoutJSON.object(
            try store.workout(id), id: id, identity: try store.identity(of: id), zoneUpdates: false,
            profileNow: try store.profileNow(of: nil), timeZone: Self.utc)
        #expect(try Self.json(shown) == expected)
        #expect(try Self.json(served.get("/api/workouts/latest")) == expected)

        for format in ExportFormat.allCases {
            let file = served.get("/api/workouts/1.\(format.rawValue)")
            #expect(file.status == 200, "\(format)")
            #expect(Self.bytes(file) == format.encode(try store.workout(id), timeZone: Self.utc), "\(format)")
        }

        let query = ["quantity": "heart-rate", "by": "week", "zones": "120,140,155,170"]
        let totals = served.get("/api/zones/totals", query: query)
        #expect(totals.status == 200)
        let request = try ZoneTotalsReport.Request(RequestValues(query), calendar: Calendar(identifier: .gregorian))
        let report = try ZoneTotalsReport.run(request, store: store, timeZone: Self.utc, today: nil)
        #expect(try Self.json(totals) == ZoneTotalsReport.json(report))
    }

    /// `/api/best` is `workouts best --json`; `/best` draws the curve and links each best to its workout.
    @Test func bestEffortsAnswerAsTheCommandLineAndDrawTheCurve() throws {
        let served = try Served()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.utc
        let request = try BestEffortsReport.Request(RequestValues(["by": "month"]), calendar: calendar)
        let expected = try BestEffortsReport(request, store: try served.store(), calendar: calendar)
        #expect(expected.periods.first?.power.isEmpty == false)
        let best = served.get("/api/best", query: ["by": "month"])
        #expect(best.status == 200)
        #expect(try Self.json(best) == expected.json)
        #expect(served.get("/api/best", query: ["by": "day"]).status == 400)

        let page = served.get("/best")
        #expect(page.status == 200)
        let html = String(decoding: Self.bytes(page), as: UTF8.self)
        #expect(html.contains("<polyline id=\"curve-0\"") && html.contains("<table id=\"bests\">"))
        #expect(html.contains("<a href=\"/workouts/1\">"))
        let refused = String(decoding: Self.bytes(served.get("/best", query: ["by": "fortnight"])), as: UTF8.self)
        #expect(refused.contains("by takes week or month, not ") && refused.contains("fortnight"))
    }

    @Test func statusesComeFromTheErrorsTypes() throws {
        let served = try Served()
        for path in ["/api/workouts/7", "/api/workouts/7.fit", "/workouts/7"] {
            let missing = served.get(path)
            #expect(missing.status == 404, "\(path)")
            #expect(String(decoding: Self.bytes(missing), as: UTF8.self).contains(WorkoutStoreError.notFound(WorkoutID("7")!).description.prefix(20)), "\(path)")
        }
        #expect(served.get("/api/zones/totals", query: ["quantity": "weight", "by": "week"]).status == 400)
        // No zones given and none in effect (no profile): what to give, as 400.
        #expect(served.get("/api/zones/totals", query: ["quantity": "heart-rate", "by": "week"]).status == 400)
        #expect(served.get("/api/zones/totals", query: ["quantity": "power", "by": "fortnight"]).status == 400)
        #expect(served.get("/api/zones/totals", query: ["quantity": "power", "by": "week", "normalize": "12"]).status == 400)
        // A value is only ever a value: "--help" is a wrong boundary list, not a request for help.
        #expect(served.post("/api/zones/heart-rate", #"{"boundaries":"--help"}"#).status == 400)
        #expect(served.post("/api/profile", #"{"ftp": 9999}"#).status == 400)
        #expect(served.post("/api/profile", #"{"height": 180}"#).status == 400)

        #expect(WebApp.status(of: WorkoutStoreError.unfinished(WorkoutID("2")!)).0 == 409)
        #expect(WebApp.status(of: WorkoutStoreError.recording(WorkoutID("2")!, bridge: "garage", processID: 7)).0 == 409)
        #expect(WebApp.status(of: WorkoutStoreError.busy(path: "x")).0 == 503)
        #expect(WebApp.status(of: WorkoutStoreError.uuidNotFound(UUID())).0 == 404)
        #expect(WebApp.status(of: RequestError("quantity weight has no zones")).0 == 400)
        // The words of a message never decide: a message that says "there is no workout" is still a 500.
        struct Odd: Error, CustomStringConvertible { var description: String { "there is no workout 3" } }
        #expect(WebApp.status(of: Odd()).0 == 500)
    }

    @Test func changesReachTheStore() throws {
        let served = try Served()
        #expect(served.post("/api/profile", #"{"ftp": 265, "age": 41, "resting-hr": "52"}"#).status == 204)
        let profile = try served.store().preferences(of: nil).profile
        #expect(profile.functionalThresholdPower == 265)
        #expect(profile.age == 41)
        #expect(profile.restingHeartRate == 52)

        #expect(served.post("/api/zones/power", #"{"boundaries":"150,200,250,300"}"#).status == 204)
        let zones = try served.store().preferences(of: nil).preferredConfigurations[.cyclingPower]
        #expect(zones?.boundaryValues == [150, 200, 250, 300])

        #expect(served.post("/api/workouts/1/delete", "").status == 204)
        #expect(try served.store().workouts().isEmpty)
        #expect(served.post("/api/workouts/1/delete", "").status == 404)
    }

    /// The workout page's DFA α1 chart: a point per window of `statistics.dfaAlpha1`, the
    /// thresholds' lines, and HRVT1 and HRVT2 in words; nothing without windows.
    @Test func theWorkoutPageDrawsDFAAlpha1WithItsThresholds() throws {
        let dfa = try JSONValue(
            parsing: """
                {"mean": 0.81, "windows": 3, "refusedWindows": 0,
                 "thresholds": {"hrvt1": {"alpha1": 0.75, "heartRate": 151.4, "power": 212}, "hrvt2": {"alpha1": 0.5, "heartRate": null, "power": null}},
                 "series": [{"offset": 120, "alpha1": 1.1, "heartRate": 130, "power": 150}, {"offset": 600, "alpha1": 0.8, "heartRate": 150, "power": 210},
                            {"offset": 1200, "alpha1": 0.55, "heartRate": 165, "power": 260}]}
                """)
        let html = WebPages.dfaChart(dfa, duration: 1200)
        let points = try #require(html.firstMatch(of: /id="dfa-line"[^>]*points="([^"]*)"/)?.1)
        #expect(points.split(separator: " ").count == 3)
        // The last window at the right edge; α1 0.55 of the 0-1.5 axis, 160 high from 10.
        #expect(points.hasSuffix("936.0,111.3"), "\(points)")
        #expect(html.contains("Mean 0.81 over 3 windows; HRVT1 151 bpm, 212 W; HRVT2: not crossed."), "\(html)")
        #expect(html.contains("0.75 HRVT1") && html.contains("0.5 HRVT2"))
        #expect(WebPages.dfaChart(.null, duration: 1200).isEmpty)
    }

    /// A workout ridden to a plan: its page has the steps table, a row per step with its lap,
    /// planned and ridden time, time and share in target and the target in words.
    @Test func theWorkoutPageShowsAPlansSteps() throws {
        let served = try Served()
        let plan = WorkoutPlan(name: "Two steps", entries: [
            .step(PlanStep(length: .time(.seconds(60)), target: .powerOfFTP(0.8...0.8))),
            .step(PlanStep(name: "Easy", length: .open)),
        ])
        var machine = WorkoutStateMachine(
            activityType: .cycling, preferences: ZonePreferences(profile: AthleteProfile(functionalThresholdPower: 250)))
        machine.sensors = SyntheticRide.sensors
        machine.plan = plan
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_795_100_000))
        for second in 0..<90 {
            // 200 W (80 % of 250) for 45 s, then 150 W.
            machine.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: second < 45 ? 200 : 150, time: .seconds(second)))
        }
        try machine.endCollection(at: .seconds(90))
        let id = try WorkoutStore(path: served.path).save(try machine.finishWorkout())
        let html = String(decoding: Self.bytes(served.get("/workouts/\(id.rawValue)")), as: UTF8.self)
        #expect(html.contains("<h2>Steps of Two steps</h2>"), "\(html)")
        #expect(html.contains("<tr><td>1</td><td>1</td><td>1:00</td><td>1:00</td><td>0:45 (75 %)</td><td>80% of FTP (200 W)</td></tr>"), "\(html)")
        #expect(html.contains("<tr><td>2</td><td>2</td><td>open</td><td>0:30</td><td>-</td><td>free</td></tr>"), "\(html)")
    }
}
