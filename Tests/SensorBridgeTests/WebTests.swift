import Foundation
import SensorBridge
import Session
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// The web page and the HTTP API (docs/HTTP.md) on libmicrohttpd, asked by a real client (curl)
/// over loopback: `web` over a store, and `record --http` following a ride from the mock BlueZ.
extension BridgeOutTests {
    @Suite(.serialized) struct WebTests {
    
        struct Reply {
            var status: Int
            var body: Data
            var text: String { String(decoding: body, as: UTF8.self) }
        }

        /// One request through curl (at most 20 s).
        static func curl(_ url: String, _ options: [String] = []) throws -> Reply {
            let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: bodyFile) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "--max-time", "20", "-o", bodyFile.path, "-w", "%{http_code}"] + options + [url]
            let output = ChildLaunch.pipe()
            process.standardOutput = output
            try ChildLaunch.run(process)
            let status = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Reply(status: Int(String(decoding: status, as: UTF8.self)) ?? -1, body: (try? Data(contentsOf: bodyFile)) ?? Data())
        }

        /// Bytes sent as they are on a new connection, and the status line's code of the answer.
        static func raw(_ port: UInt16, _ request: String) -> Int {
            guard let connection = LoopbackClient(to: port), connection.send(request) else { return -1 }
            let line = connection.receive().split(separator: "\r\n").first?.split(separator: " ") ?? []
            return line.count > 1 ? Int(line[1]) ?? -1 : -1
        }

        /// A command running on a thread of its own until `stop`.
        final class Running: Sendable {
            let control = RecordingControl()
            private let finished = DispatchSemaphore(value: 0)
            private let outcome = Mutex<(SensorBridge.ExitStatus, String, String)?>(nil)

            init(_ arguments: [String], environment: [String: String] = [:]) {
                Thread.detachNewThread { [self] in
                    var context = CommandContext(
                        input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
                    context.recordingControl = control
                    let status = SensorBridgeCLI.run(arguments, context: context)
                    outcome.withLock { $0 = (status, context.output.text, context.errors.text) }
                    finished.signal()
                }
            }

            /// Stops it and returns how it ended (again, at once, when asked again).
            func stop() -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
                control.stop()
                finished.wait()
                finished.signal()
                return outcome.withLock { $0! }
            }

        }

        /// `sensorbridge ARGUMENTS` in UTC, as the web's own commands run when TZ is not set (the
        /// chart's title is local time).
        static func cli(_ arguments: [String]) -> (status: SensorBridge.ExitStatus, output: [UInt8], errors: String) {
            let context = CommandContext(
                input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["TZ": "UTC"])
            let status = SensorBridgeCLI.run(arguments, context: context)
            return (status, context.output.bytes, context.errors.text)
        }

        @Test(.timeLimit(.minutes(10))) func webServesTheStoredWorkoutsAsTheCommandLinePrintsThem() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = folder.appendingPathComponent("workouts.sqlite").path
            let capture = try BlueZCommandTests.trace(lines: 40)
            defer { try? FileManager.default.removeItem(at: capture) }
            #expect(Self.cli(["replay", capture.path, "--save", "--store", store]).status == .success)
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let web = Running(["web", "--http", "\(port)", "--store", store], environment: ["TZ": "UTC"])
            try Running.waitUntilServing(base + "/api/workouts")
            defer { _ = web.stop() }

            // The CLI's own JSON and files.
            for (path, command) in [
                ("/api/workouts", ["workouts", "list", "--json"]), ("/api/workouts/1", ["workouts", "show", "1", "--json"]),
                ("/api/workouts/latest", ["workouts", "show", "latest", "--json"]),
                ("/api/workouts/1.fit", ["export", "1", "--format", "fit", "-o", "-"]),
                ("/api/workouts/latest.fit", ["export", "latest", "--format", "fit", "-o", "-"]),
                ("/api/workouts/1.csv", ["export", "1", "--format", "csv", "-o", "-"]),
                ("/api/workouts/1.svg", ["export", "1", "--format", "svg", "-o", "-"]),
                ("/api/workouts/1.tcx", ["export", "1", "--format", "tcx", "-o", "-"]),
                ("/api/zones/totals?quantity=heart-rate&by=week&zones=120,140,155,170",
                    ["workouts", "zones", "--json", "--quantity", "heart-rate", "--by", "week", "--zones", "120,140,155,170"]),
            ] {
                let reply = try Self.curl(base + path)
                let expected = Self.cli(command + ["--store", store])
                #expect(reply.status == 200, "\(path): \(reply.text)")
                #expect(Array(reply.body) == expected.output, "\(path)")
            }
            // Without a recording, / leads to the workouts.
            #expect(try Self.curl(base + "/").status == 303)
            for path in ["/workouts", "/workouts/1", "/zones?quantity=heart-rate&by=month&normalize=3"] {
                let page = try Self.curl(base + path)
                #expect(page.status == 200 && page.text.contains("<meta name=\"csrf-token\""), "\(path): \(page.text.prefix(300))")
            }
            #expect(try Self.curl(base + "/workouts/9").status == 404)

            // What is refused, and that nothing changed.
            #expect(try Self.curl(base + "/api/workouts/9").status == 404)
            #expect(try Self.curl(base + "/api/workouts/1.exe").status == 404)
            #expect(try Self.curl(base + "/api/nothing").status == 404)
            #expect(try Self.curl(base + "/api/zones/totals?quantity=weight&by=week").status == 400)
            #expect(try Self.curl(base + "/api/workouts", ["-X", "DELETE"]).status == 405)
            #expect(try Self.curl(base + "/api/session/lap").status == 405)
            #expect(try Self.curl(base + "/api/session/lap", ["-X", "POST"]).status == 401)
            #expect(try Self.curl(base + "/api/session/lap", ["-X", "POST", "-H", "X-CSRF-Token: guessed"]).status == 401)
            #expect(try Self.curl(base + "/api/live").status == 404)
            #expect(try Self.curl(base + "/api/workouts", ["-H", "Host: rebinding.example:\(port)"]).status == 421)
            #expect(try Self.curl(base + "/../etc/passwd", ["--path-as-is"]).status == 400)
            #expect(try Self.curl(base + "/api/session/lap", ["-X", "POST", "--data-binary", String(repeating: "x", count: 100_000)]).status == 413)
            #expect(try Self.curl(base + "/api/workouts", ["-H", "X-Big: " + String(repeating: "a", count: 40_000)]).status == 431)
            #expect(Self.raw(port, "NOT HTTP AT ALL\r\n\r\n") == 400)
            #expect(Self.raw(port, "GET /api/workouts HTTP/1.1\r\n\r\n") == 421)  // no Host: not this server
            #expect(try Self.curl(base + "/api/workouts/1/delete", ["-X", "POST"]).status == 401)
            #expect(try Self.curl(base + "/api/profile", ["-X", "POST", "--data", #"{"ftp":"250"}"#]).status == 401)
            #expect(try Self.curl(base + "/api/workouts").text == String(decoding: Self.cli(["workouts", "list", "--json", "--store", store]).output, as: UTF8.self))

            // The page's changes, with its CSRF token: the CLI's checks and messages.
            let csrf = try #require(try Self.curl(base + "/workouts").text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            let withToken = ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)"]
            #expect(try Self.curl(base + "/api/workouts/1/delete", withToken + ["-H", "Origin: http://elsewhere.example"]).status == 403)
            let badFTP = try Self.curl(base + "/api/profile", withToken + ["--data", #"{"ftp":"-5"}"#])
            #expect(badFTP.status == 400 && badFTP.text.contains("ftp -5 is out of range; give a value from 20 to 2500"), "\(badFTP.text)")
            #expect(try Self.curl(base + "/api/profile", withToken + ["--data", #"{"ftp":"250","age":"40","resting-hr":"50"}"#]).status == 204)
            #expect(String(decoding: Self.cli(["profile", "show", "--json", "--store", store]).output, as: UTF8.self).contains(#""functionalThresholdPower":250"#))
            // The threshold heart rate and the heart-rate model, through the CLI's checks; the page shows them.
            let noThreshold = try Self.curl(base + "/api/profile", withToken + ["--data", #"{"hr-model":"lthr"}"#])
            #expect(noThreshold.status == 400 && noThreshold.text.contains("sensorbridge profile set --lthr 165"), "\(noThreshold.text)")
            #expect(try Self.curl(base + "/api/profile", withToken + ["--data", #"{"lthr":165,"hr-model":"lthr"}"#]).status == 204)
            #expect(String(decoding: Self.cli(["profile", "show", "--json", "--store", store]).output, as: UTF8.self)
                .contains(#""lactateThresholdHeartRate":165,"sex":null,"weight":null,"heartRateZoneModel":"lthr""#))
            let zonesPage = try Self.curl(base + "/zones").text
            #expect(zonesPage.contains(#"<input name="lthr" value="165""#) && zonesPage.contains(#"<input name="hr-model" value="lthr""#))
            // Friel's zones of 165 are in effect but not preferred: the fields are empty, the zones only their hint.
            #expect(zonesPage.contains(#"<input name="boundaries" value="" placeholder="134,149,155,165,170,175 (from your profile)""#))
            #expect(!zonesPage.contains(#"value="134,149,155,165,170,175""#))
            #expect(zonesPage.components(separatedBy: #"<input name="boundaries" value="" placeholder="#).count == 3)
            let implausible = try Self.curl(base + "/api/zones/heart-rate", withToken + ["--data", #"{"boundaries":"1,2"}"#])
            #expect(implausible.status == 400 && implausible.text.contains("give heart-rate boundaries from 30 to 250 bpm"), "\(implausible.text)")
            #expect(try Self.curl(base + "/api/zones/heart-rate", withToken + ["--data", #"{"boundaries":"120,140,155,170"}"#]).status == 204)
            // Preferred zones (`zones show --json`: source user) fill their field; power has none.
            let preferredPage = try Self.curl(base + "/zones").text
            #expect(preferredPage.contains(#"<input name="boundaries" value="120,140,155,170" size="#))
            #expect(preferredPage.components(separatedBy: #"<input name="boundaries" value="" placeholder="#).count == 2)
            #expect(try Self.curl(base + "/api/workouts/1/delete", withToken).status == 204)
            #expect(try Self.curl(base + "/api/workouts/1").status == 404)
        }

        /// The cells of each row of the page's table `id`, tags stripped (the header row first).
        static func tableRows(_ page: String, id: String) -> [[String]] {
            guard let start = page.range(of: "<table id=\"\(id)\">"),
                let end = page.range(of: "</table>", range: start.upperBound..<page.endIndex)
            else { return [] }
            return page[start.upperBound..<end.lowerBound].components(separatedBy: "</tr>").compactMap { row in
                let cells = row.matches(of: /<t[dh][^>]*>(.*?)<\/t[dh]>/).map { String($0.1) }
                return cells.isEmpty ? nil : cells
            }
        }

        /// The lap table of the workout page and of `workouts show` label their times alike,
        /// `Active` (pauses left out) and `Elapsed`, and give the same figures: the bundled ride's
        /// second lap holds a 2-minute pause, 10:00 active and 12:00 elapsed in both.
        @Test(.timeLimit(.minutes(10))) func theLapTablesLabelActiveAndElapsedTimeAndAgree() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = folder.appendingPathComponent("workouts.sqlite").path
            let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path
            #expect(Self.cli(["replay", ride, "--save", "--store", store] + ReplayCommandTests.profile).status == .success)
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let web = Running(["web", "--http", "\(port)", "--store", store], environment: ["TZ": "UTC"])
            try Running.waitUntilServing(base + "/api/workouts")
            defer { _ = web.stop() }

            let page = try Self.tableRows(Self.curl(base + "/workouts/1").text, id: "laps")
            let shown = String(decoding: Self.cli(["workouts", "show", "1", "--store", store]).output, as: UTF8.self)
                .split(separator: "\n").map(String.init)
            let header = try #require(shown.firstIndex { $0.hasPrefix("  Lap    Start") }, "\(shown)")
            let text = shown[(header + 1)...].prefix { $0.first == " " && $0.split(separator: " ").count == 8 }
                .map { $0.split(separator: " ").map { $0 == "-" ? "--" : String($0) } }
            #expect(shown[header] == "  Lap    Start    Active   Elapsed  Avg HR  Max HR  Avg W   NP W")
            #expect(page.first == ["Lap", "Start", "Active", "Elapsed", "Avg HR", "Max HR", "Avg W", "NP W"])
            #expect(text.count == 7 && Array(page.dropFirst()) == text, "page \(page), text \(text)")
            #expect(text.count > 1 && text[1].prefix(4) == ["2", "10:00", "10:00", "12:00"], "\(text)")
        }

        /// One time convention: under TZ=America/New_York the JSON gives the bundled ride's start
        /// (17:30 UTC) with its offset, `2026-11-02T12:30:00-05:00`, and the summary, `workouts
        /// show`, `workouts list`, the web workouts list and the workout page all show that local
        /// time with it, `2026-11-02 12:30 -05:00`; in UTC, `2026-11-02 17:30 UTC`.
        @Test(.timeLimit(.minutes(10))) func timesAreLocalWithTheirOffsetInEveryOutput() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = folder.appendingPathComponent("workouts.sqlite").path
            let newYork = ["TZ": "America/New_York"]
            func run(_ arguments: [String], _ environment: [String: String] = newYork) -> String {
                let context = CommandContext(
                    input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: environment)
                let status = SensorBridgeCLI.run(arguments + ["--store", store], context: context)
                #expect(status == .success, "\(arguments): \(context.errors.text)")
                return context.output.text
            }
            let ride = ReplayCommandTests.captures.appendingPathComponent("ride-60min-hr-power.jsonl").path
            let local = "2026-11-02 12:30 -05:00"
            #expect(run(["replay", ride, "--save"]).hasPrefix("Cycling workout, \(local), 1:03:00 (active 1:00:00)\n"))
            #expect(run(["workouts", "show", "1"]).contains("\nCycling workout, \(local), 1:03:00"))
            #expect(run(["workouts", "list"]).contains("\n   1  \(local)  cycling      1:03:00"))
            let shown = try JSONValue(parsing: run(["workouts", "show", "1", "--json"]))["workout"]
            #expect(shown?["start"] == "2026-11-02T12:30:00-05:00" && shown?["end"] == "2026-11-02T13:33:00-05:00")
            #expect(shown?["activities"]?.arrayValue?.first?["start"] == "2026-11-02T12:30:00-05:00")
            let listed = try JSONValue(parsing: run(["workouts", "list", "--json"]))["workouts"]?.arrayValue?.first
            #expect(listed?["start"] == "2026-11-02T12:30:00.000-05:00")
            #expect(ISO8601.parse(listed?["start"]?.stringValue ?? "") == ISO8601.parse("2026-11-02T17:30:00Z"))
            // UTC: the same instants, offset Z, shown as UTC.
            #expect(try JSONValue(parsing: run(["workouts", "show", "1", "--json"], ["TZ": "UTC"]))["workout"]?["start"] == "2026-11-02T17:30:00Z")
            #expect(run(["workouts", "list"], ["TZ": "UTC"]).contains("\n   1  2026-11-02 17:30 UTC  cycling"))

            // The pages show the server's local time, from the JSON's instants.
            for (environment, shownTime) in [(newYork, local), (["TZ": "UTC"], "2026-11-02 17:30 UTC")] {
                let port = try freeLoopbackPort()
                let base = "http://127.0.0.1:\(port)"
                let web = Running(["web", "--http", "\(port)", "--store", store], environment: environment)
                try Running.waitUntilServing(base + "/api/workouts")
                defer { _ = web.stop() }
                let list = try Self.curl(base + "/workouts").text
                #expect(list.contains("<th>Start</th>") && list.contains("<td>\(shownTime)</td>"), "\(list)")
                let page = try Self.curl(base + "/workouts/1").text
                #expect(page.contains("<tr><th>Start</th><td>\(shownTime)</td></tr>"), "\(page)")
            }
        }

        /// `web` over a PostgreSQL store shared by bridges: its answers are the commands' over it.
        @Test(
            .timeLimit(.minutes(10)),
            .enabled(if: PostgreSQLServer.unavailableReason == nil, "\(PostgreSQLServer.unavailableReason ?? "")"))
        func webServesASharedStore() throws {
            let url = try PostgreSQLServer.shared().makeDatabase()
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let capture = try BlueZCommandTests.trace(lines: 40)
            defer { try? FileManager.default.removeItem(at: capture) }
            let context = CommandContext(
                input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["HOME": home.path])
            #expect(SensorBridgeCLI.run(["replay", capture.path, "--save", "--store", url], context: context) == .success)
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let web = Running(["web", "--http", "\(port)", "--store", url], environment: ["TZ": "UTC"])
            try Running.waitUntilServing(base + "/api/workouts")
            defer { _ = web.stop() }
            for (path, command) in [
                ("/api/workouts", ["workouts", "list", "--json"]), ("/api/workouts/1", ["workouts", "show", "1", "--json"]),
                ("/api/workouts/1.csv", ["export", "1", "--format", "csv", "-o", "-"]),
            ] {
                let reply = try Self.curl(base + path)
                let expected = Self.cli(command + ["--store", url])
                #expect(reply.status == 200, "\(path): \(reply.text)")
                #expect(Array(reply.body) == expected.output && !expected.output.isEmpty, "\(path)")
            }
        }

        /// `record --http`: a client of `/api/live` sees the snapshot, the values, the zone changes and
        /// the statistics while the mock plays at pace; the page's buttons' requests (with its CSRF
        /// token) lap and pause the workout, which the saved workout shows.
        @Test(.timeLimit(.minutes(10)), .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
        func recordServesTheRideLiveAndTakesLapsAndPauses() throws {
            try Self.recordingLive(["--events", "--hr-zones", "100,130,150,170"]) { mock, recording, base in
                // A live client for 4 s, while the buttons are pressed.
                let events = Mutex(Data())
                let listener = Thread {
                    let reply = try? Self.curl(base + "/api/live", ["--max-time", "4", "-N"])
                    events.withLock { $0 = reply?.body ?? Data() }
                }
                listener.start()
                let page = try Self.curl(base + "/").text
                let csrf = try #require(page.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
                Thread.sleep(forTimeInterval: 1)
                for action in ["lap", "pause", "resume"] {
                    let reply = try Self.curl(base + "/api/session/" + action, ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)"])
                    #expect(reply.status == 204, "\(action): \(reply.text)")
                    Thread.sleep(forTimeInterval: 0.3)
                }
                Thread.sleep(forTimeInterval: 3)
                let stream = events.withLock { String(decoding: $0, as: UTF8.self) }
                for name in ["snapshot", "values", "zone", "statistics", "event"] {
                    #expect(stream.contains("event: \(name)\n"), "no \(name) event in \(stream.prefix(2000))")
                }
                #expect(stream.contains("\"heartRate\":"))

                _ = mock.waitUntilPlayed(timeout: .seconds(30))
                recording.control.stop()
                let (status, output, errors) = recording.waitForExit()
                #expect(status == .success, "\(errors)")
                #expect(errors.contains("serving \(base)/"), "\(errors)")
                let kinds = try LiveControlTests.events(output)
                #expect(kinds.contains("lap manual") && kinds.contains("pause manual") && kinds.contains("resume manual"), "\(kinds)")
                // The server went with the recording.
                #expect(try Self.curl(base + "/").status != 200)
            }
        }

        /// `record --activities cycling,running --http`: the page's next-activity POST begins the
        /// transition, then (named) the run; the live page says which activity is under way, its
        /// own time in zone and what comes next; past the plan it is refused with what to do, an
        /// unknown type with the types. The saved workout is multisport, each activity with its
        /// own zone groups.
        @Test(.timeLimit(.minutes(10)), .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
        func recordBeginsTheNextActivityThroughTheAPI() throws {
            try Self.recordingLive(["--hr-zones", "100,130,150,170", "--activities", "cycling,running"]) { _, recording, base in
                let csrf = try #require(try Self.curl(base + "/").text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
                func post(_ body: String?) throws -> Reply {
                    try Self.curl(
                        base + "/api/session/activity",
                        ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)", "-H", "Content-Type: application/json"] + (body.map { ["-d", $0] } ?? []))
                }
                let live = { try JSONValue(parsing: Self.liveSnapshot(try Self.curl(base + "/api/live", ["--max-time", "1", "-N"]).text)) }
                #expect(try live()["live"]?["activity"]?["next"]?.stringValue == "transition")
                Thread.sleep(forTimeInterval: 2)
                let transition = try post(nil)
                #expect(transition.status == 200, "\(transition.text)")
                #expect(try JSONValue(parsing: transition.text) == .object(["type": "transition", "next": "running"]))
                Thread.sleep(forTimeInterval: 1)
                let shown = try live()["live"]
                #expect(shown?["activity"]?["type"]?.stringValue == "transition" && shown?["activity"]?["number"]?.doubleValue == 2)
                #expect(shown?["zones"]?.arrayValue?.first?["activityDurations"]?.arrayValue != nil, "\(String(describing: shown))")
                let running = try post(#"{"type": "running"}"#)
                #expect(try JSONValue(parsing: running.text) == .object(["type": "running", "next": .null]), "\(running.text)")
                let past = try post(nil)
                #expect(past.status == 409 && past.text.contains("--activities"), "\(past.text)")
                let unknown = try post(#"{"type": "skating"}"#)
                #expect(unknown.status == 400 && unknown.text.contains("running"), "\(unknown.text)")
                #expect(try post("{}").status == 409)
                #expect(try post("[1]").status == 400 && post(#"{"type": 3}"#).status == 400)
                Thread.sleep(forTimeInterval: 2)
                recording.control.stop()
                let (status, output, errors) = recording.waitForExit()
                #expect(status == .success, "\(errors)")
                let workout = try JSONValue(parsing: output)["workout"]
                #expect(workout?["activityType"]?.stringValue == "multisport")
                let activities = workout?["activities"]?.arrayValue ?? []
                #expect(activities.compactMap { $0["activityType"]?.stringValue } == ["cycling", "transition", "running"], "\(output)")
                #expect(activities.allSatisfy { $0["zoneGroups"]?["heartRate"] != nil }, "\(activities)")
            }
        }

        /// `record --plan` on the mock (8 s at 200 W, 120 then 180 bpm): `/api/live` gives the step
        /// under way with its target, time left and the next; each timed step ends in a lap of
        /// cause `step`, and the saved workout has each step's time in target.
        @Test(.timeLimit(.minutes(10)), .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
        func recordRidesAPlanAndTheAPIShowsItsStep() throws {
            let plan = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: plan) }
            try #"{"name": "Short", "steps": [{"name": "Steady", "duration": 3, "power": "190-210W"}, {"duration": 2, "power": "300W"}, {"duration": "open", "heartRate": "100-130"}]}"#
                .write(to: plan, atomically: true, encoding: .utf8)
            try Self.recordingLive(["--hr-zones", "100,130,150,170", "--plan", plan.path]) { _, recording, base in
                let live = { try JSONValue(parsing: Self.liveSnapshot(try Self.curl(base + "/api/live", ["--max-time", "1", "-N"]).text)) }
                let first = try live()["live"]?["step"]
                #expect(first?["number"] == 1 && first?["of"] == 3 && first?["name"] == "Steady", "\(String(describing: first))")
                #expect(first?["target"] == "190-210 W" && first?["next"] == "0:02, 300 W", "\(String(describing: first))")
                #expect(first?["goal"] == .object(["quantity": "power", "low": 190, "high": 210]))
                #expect((1...3).contains(first?["timeLeft"]?.doubleValue ?? 0), "\(String(describing: first))")
                Thread.sleep(forTimeInterval: 3.5)
                let second = try live()["live"]?["step"]
                #expect(second?["number"] == 2 && second?["judgement"] == "below", "\(String(describing: second))")
                Thread.sleep(forTimeInterval: 2)
                recording.control.stop()
                let (status, output, errors) = recording.waitForExit()
                #expect(status == .success, "\(errors)")
                let workout = try JSONValue(parsing: output)["workout"]
                let laps = workout?["events"]?.arrayValue?.filter { $0["type"] == "lap" } ?? []
                #expect(laps.map { $0["cause"]?.stringValue } == ["step", "step"] && laps.map { $0["t"]?.doubleValue } == [3, 5], "\(laps)")
                let steps = workout?["steps"]?.arrayValue ?? []
                // The first step is met from the first power value on (the sensors connect in its first
                // second or two), the second never (300 W asked, 200 W ridden).
                let inTarget = steps.map { $0["timeInTarget"]?.doubleValue }
                #expect(steps.count == 3 && (1...3).contains(inTarget[0] ?? 0) && inTarget[1] == 0, "\(inTarget)")
            }
        }

        /// `record --hr HRM-Pro --power Assioma --json ARGUMENTS --http PORT` in process on the mock,
        /// which plays 8 s of pedalling at pace (the heart rate stepping up at 4 s); `body` runs once
        /// the server answers, with the mock, the recording and the server's base URL.
        static func recordingLive(
            _ arguments: [String], _ body: (MockBlueZ, BlueZCommandTests.Recording, String) throws -> Void
        ) throws {
            let source = try LiveControlTests.trace(seconds: 8, heartRate: { t in t < 4 ? "0678" : "06b4" }) { _ in LiveControlTests.pedalling }
            defer { try? FileManager.default.removeItem(at: source) }
            let mock = try MockBlueZ(trace: source, speed: 1)
            defer { mock.stop() }
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let recording = BlueZCommandTests.Recording(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json"] + arguments + ["--http", "\(port)"])
            try Running.waitUntilServing(base + "/")
            try body(mock, recording, base)
        }

        /// The data of the first event of an SSE stream (the `snapshot`), as text.
        static func liveSnapshot(_ stream: String) -> String {
            let data = stream.components(separatedBy: "\n").first { $0.hasPrefix("data: ") } ?? "data: {}"
            return String(data.dropFirst(6))
        }

        /// `serve --http`: the page's end ends the workout being recorded and serve goes on; the next
        /// measurements start another workout, which the live feed follows too.
        @Test(.timeLimit(.minutes(10)), .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
        func serveEndsOneWorkoutThroughTheAPIAndGoesOn() throws {
            let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 1)
            defer { mock.stop() }
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let serving = ServeCommandTests.Serving(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--http", "\(port)"])
            try Running.waitUntilServing(base + "/")
            #expect(serving.waitForNotifications(10))
            let csrf = try #require(try Self.curl(base + "/").text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            #expect(try Self.curl(base + "/api/session/lap", ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)"]).status == 204)
            #expect(try Self.curl(base + "/api/session/end", ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)"]).status == 204)
            #expect(try serving.waitForSavedWorkouts(1))
            // The sensors go on sending: a second workout, live again.
            let deadline = ContinuousClock.now + .seconds(20)
            while try serving.workouts().count < 2, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.1) }
            let live = try Self.curl(base + "/api/live", ["--max-time", "2", "-N"]).text
            #expect(live.contains("\"state\":\"collecting\""), "\(live.prefix(500))")
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            #expect(run.errors.contains("saved (ended through the HTTP API)"), "\(run.errors)")
            #expect(try serving.workouts().count == 2)
            let first = try serving.show(1)
            #expect(first?["events"]?.arrayValue?.contains { $0["type"]?.stringValue == "lap" } == true, "\(String(describing: first))")
        }

        /// The README's tokens: bound to all addresses, `record --http 0.0.0.0:PORT` with a token file
        /// and a read-only one: the live feed and the buttons need a token, the read-only one
        /// follows the ride and changes nothing, the full one laps.
        @Test(.timeLimit(.minutes(10)), .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
        func tokensGuardTheLiveWorkoutFromOtherMachines() throws {
            let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 1)
            defer { mock.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let tokenFile = try WebSecurityTests.Setup.secret(WebSecurityTests.token, in: folder, named: "token")
            let readTokenFile = try WebSecurityTests.Setup.secret(WebSecurityTests.readToken, in: folder, named: "read-token")
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let full = ["-H", "Authorization: Bearer \(WebSecurityTests.token)"]
            let reader = ["-H", "Authorization: Bearer \(WebSecurityTests.readToken)"]
            let recording = BlueZCommandTests.Recording(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--http", "0.0.0.0:\(port)", "--http-token-file", tokenFile,
                    "--http-read-only-token-file", readTokenFile])
            try Running.waitUntilServing(base + "/", full)
            #expect(try Self.curl(base + "/", ["-H", "Host: box.local:\(port)"]).status == 401)
            #expect(try Self.curl(base + "/api/live", ["--max-time", "2", "-N"]).status == 401)
            #expect(try Self.curl(base + "/api/session/lap", ["-X", "POST"]).status == 401)
            #expect(try Self.curl(base + "/api/session/lap", ["-X", "POST", "-H", "Authorization: Bearer wrong-token-wrong-token"]).status == 401)
            // The read-only token: the page without its buttons, the live stream, no lap.
            let page = try Self.curl(base + "/", reader + ["-H", "Host: box.local:\(port)"])
            #expect(page.status == 200 && !page.text.contains("data-action=\"lap\""), "\(page.text.prefix(300))")
            #expect(try Self.curl(base + "/api/live", reader + ["--max-time", "2", "-N"]).text.contains("event: snapshot"))
            #expect(try Self.curl(base + "/api/session/lap", reader + ["-X", "POST"]).status == 403)
            #expect(try Self.curl(base + "/", full).text.contains("data-action=\"lap\""))
            #expect(try Self.curl(base + "/api/session/lap", full + ["-X", "POST"]).status == 204)
            recording.control.stop()
            let (status, output, errors) = recording.waitForExit()
            #expect(status == .success, "\(errors)")
            #expect(try LiveControlTests.events(output).filter { $0 == "lap manual" }.count == 1)
        }
    }
}


extension WebTests.Running {
    /// Waits (up to 20 s) until `url` answers 200 (to curl with `options`).
    static func waitUntilServing(_ url: String, _ options: [String] = []) throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while try WebTests.curl(url, options).status != 200 {
            try #require(ContinuousClock.now < deadline, "\(url) never answered")
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
