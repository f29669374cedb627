import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Outputs

/// Debian's chromium, headless, driven through chromedriver (WebDriver: JSON over HTTP on
/// loopback), started and stopped by the test.
final class Browser {
    static let driverPath = "/usr/bin/chromedriver"
    static var unavailableReason: String? {
        FileManager.default.isExecutableFile(atPath: driverPath) ? nil : "needs Debian's chromium-driver (\(driverPath))"
    }

    private let driver = Process()
    private let base: String
    private let session: String

    init() throws {
        let port = try freeLoopbackPort()
        base = "http://127.0.0.1:\(port)"
        driver.executableURL = URL(fileURLWithPath: Self.driverPath)
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try ChildLaunch.run(driver)
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? WebTests.curl(base + "/status").status) != 200 {
            guard ContinuousClock.now < deadline else {
                driver.terminate()
                throw Failure("chromedriver did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let capabilities: JSONValue = .object([
            "capabilities": .object([
                "alwaysMatch": .object([
                    "browserName": .string("chrome"),
                    "goog:chromeOptions": .object([
                        "binary": .string("/usr/bin/chromium"),
                        "args": .array(["--headless", "--no-sandbox", "--disable-gpu", "--window-size=420,1100", "--hide-scrollbars"].map(JSONValue.string)),
                    ]),
                ])
            ])
        ])
        let created = try Self.call(base + "/session", "POST", capabilities)
        guard let id = created["value"]?["sessionId"]?.stringValue else {
            driver.terminate()
            throw Failure("no browser session: \(created.serialized.prefix(300))")
        }
        session = id
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func call(_ url: String, _ method: String, _ body: JSONValue? = nil) throws -> JSONValue {
        var options = ["-X", method, "--max-time", "60"]
        if let body { options += ["-H", "Content-Type: application/json", "--data-binary", body.serialized] }
        let reply = try WebTests.curl(url, options)
        return (try? JSONValue(parsing: reply.text)) ?? .null
    }

    @discardableResult
    func call(_ path: String, _ method: String = "GET", _ body: JSONValue? = nil) throws -> JSONValue {
        try Self.call(base + "/session/\(session)" + path, method, body)["value"] ?? .null
    }

    func open(_ url: String) throws { try call("/url", "POST", .object(["url": .string(url)])) }

    /// The element matching a CSS selector, once there (up to 20 s).
    func element(_ selector: String) throws -> String {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let found = try call("/element", "POST", .object(["using": .string("css selector"), "value": .string(selector)]))
            if let id = found["element-6066-11e4-a52e-4f735466cecf"]?.stringValue { return id }
            guard ContinuousClock.now < deadline else { throw Failure("no \(selector) on the page") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    func text(_ selector: String) throws -> String { try call("/element/\(try element(selector))/text").stringValue ?? "" }

    func click(_ selector: String) throws { try call("/element/\(try element(selector))/click", "POST", .object([:])) }

    /// Types `text` into the field matching `selector`, in place of what it held.
    func type(_ selector: String, _ text: String) throws {
        let id = try element(selector)
        try call("/element/\(id)/clear", "POST", .object([:]))
        try call("/element/\(id)/value", "POST", .object(["text": .string(text)]))
    }

    /// Runs JavaScript in the page and returns its result.
    func script(_ source: String) throws -> JSONValue {
        try call("/execute/sync", "POST", .object(["script": .string(source), "args": .array([])]))
    }

    /// Waits (up to 20 s) until `condition` holds of the page.
    func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw Failure("gave up waiting: \(what)") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// A PNG of the window, written to `path`.
    func screenshot(to path: String) throws {
        guard let encoded = try call("/screenshot").stringValue, let png = Data(base64Encoded: encoded) else {
            throw Failure("no screenshot")
        }
        try png.write(to: URL(fileURLWithPath: path))
    }

    deinit {
        _ = try? Self.call(base + "/session/\(session)", "DELETE")
        driver.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while driver.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if driver.isRunning { kill(driver.processIdentifier, SIGKILL) }
        driver.waitUntilExit()
    }
}

/// The pages in a real browser: the live page follows a ride the mock BlueZ plays at pace (numbers,
/// a zone change in its colour), its buttons lap and pause the workout; the workout page shows the
/// chart and its downloads work. `SENSORBRIDGE_SCREENSHOTS=DIR` also saves the screenshots that
/// docs/ shows.
extension BridgeOutTests {
    @Suite(
        .serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"),
        .enabled(if: Browser.unavailableReason == nil, "\(Browser.unavailableReason ?? "")"))
    struct BrowserTests {
        static let screenshots = ProcessInfo.processInfo.environment["SENSORBRIDGE_SCREENSHOTS"]

        /// A class of 12 on one box: `serve --http` with 12 athletes, a strap each on the mock;
        /// `/class` in the browser shows every rider's name and heart rate, and a new value within
        /// 2 s of the feed's having it; each rider's own page follows them; every workout is saved
        /// with its rider's zones.
        @Test(.timeLimit(.minutes(10))) func theClassScreenShowsEveryRider() throws {
            let riders = (1...12).map { (name: "Rider\($0)", device: "hr\($0)", address: String(format: "C4:7E:11:22:34:%02X", $0)) }
            let header = "{\"sensorbridge\":\"trace\",\"version\":1,\"start\":\"2026-11-02T17:30:00Z\",\"devices\":{"
                + riders.map { "\"\($0.device)\":{\"name\":\"HRM-\($0.name)\",\"address\":\"\($0.address)\"}" }.joined(separator: ",") + "}}"
            // 30 s, a value a second each: rider n at 100 + n bpm, then 130 + n from 15 s (time for
            // twelve straps to connect one after another on a busy machine).
            var lines = [header]
            for second in 0..<30 {
                for (index, rider) in riders.enumerated() {
                    let bpm = (second < 15 ? 100 : 130) + index + 1
                    lines.append("{\"t\":\(second),\"device\":\"\(rider.device)\",\"uuid\":\"2a37\",\"hex\":\"06\(String(format: "%02x", bpm))\"}")
                }
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("class-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let trace = folder.appendingPathComponent("class.jsonl")
            try (lines.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
            let store = folder.appendingPathComponent("workouts.sqlite").path
            for (index, rider) in riders.enumerated() {
                let zones = "\(100 + index),120,140,160"
                #expect(runCLI(["athletes", "add", rider.name, "--hr-zones", zones, "--max-hr", "190", "--resting-hr", "50", "--store", store]).status == .success)
                #expect(runCLI(["athletes", "assign", rider.name, "--hr", rider.address, "--store", store]).status == .success)
            }
            let browser = try Browser()
            let mock = try MockBlueZ(trace: trace, speed: 1)
            defer { mock.stop() }
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let serving = ServeCommandTests.Serving(mock, ["--idle-timeout", "2", "--http", "\(port)"], store: store, zones: false)
            try WebTests.Running.waitUntilServing(base + "/")
            func classNow() throws -> [JSONValue] {
                let stream = try WebTests.curl(base + "/api/class", ["--max-time", "1", "-N"]).text
                return try JSONValue(parsing: WebTests.liveSnapshot(stream))["riders"]?.arrayValue ?? []
            }
            let connected = ContinuousClock.now + .seconds(60)
            while try classNow().count < 12, ContinuousClock.now < connected { Thread.sleep(forTimeInterval: 0.2) }
            try browser.open(base + "/class")
            try browser.waitUntil("12 riders on the class screen") {
                try browser.script("return document.querySelectorAll('.rider').length").doubleValue == 12
            }
            let names = try browser.script("return [...document.querySelectorAll('.rider .name')].map(e => e.textContent)").arrayValue
            #expect(Set(names?.compactMap(\.stringValue) ?? []) == Set(riders.map(\.name)))
            // The feed has Rider1's second value: the page shows it within 2 s.
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if try classNow().contains(where: { $0["name"] == "Rider1" && $0["heartRate"] == 131 }) { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let seen = ContinuousClock.now
            try browser.waitUntil("Rider1's 131 bpm") {
                try browser.script("return [...document.querySelectorAll('.rider')].find(e => e.dataset.name === 'Rider1')?.querySelector('.heartRate').textContent").stringValue == "131"
            }
            #expect(ContinuousClock.now - seen < .seconds(2))
            // % of the maximum (131 of 190 is 69 %) and the zone (120-140: the third of 100,120,140,160).
            let first = try classNow().first { $0["name"] == "Rider1" }
            #expect(first?["percentOfMaximum"] == 69 && first?["zone"]?["number"] == 3, "\(String(describing: first))")
            if let screenshots = Self.screenshots { try browser.screenshot(to: screenshots + "/class.png") }
            // A rider's own page.
            try browser.open(base + "/athletes/rider12/live")
            try browser.waitUntil("Rider12's page") { try browser.text("#heartRate") == "142" }
            #expect(try browser.text("h1").hasPrefix("Live: Rider12"))

            #expect(try serving.waitForSavedWorkouts(12, timeout: .seconds(60)))
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            let listed = try serving.workouts()
            #expect(Set(listed.compactMap { $0["athlete"]?.stringValue }) == Set(riders.map(\.name)))
            for workout in listed {
                let index = Int(workout["athlete"]?.stringValue?.dropFirst(5) ?? "") ?? 0
                let shown = try serving.show(workout["id"]!.doubleValue!)
                let first = shown?["zoneGroups"]?["heartRate"]?["configuration"]?["zones"]?.arrayValue?.first?["maximum"]?.doubleValue
                #expect(first == Double(99 + index), "Rider\(index)'s own zones")
            }
        }

        @Test(.timeLimit(.minutes(10))) func theLivePageFollowsTheRideAndItsButtonsWork() throws {
            // Heart rate 120 bpm for 6 s, then 180 (from zone 2 to zone 5 of 100,130,150,170), 200 W.
            let source = try LiveControlTests.trace(seconds: 16, heartRate: { t in t < 6 ? "0678" : "06b4" }) { _ in
                LiveControlTests.pedalling
            }
            defer { try? FileManager.default.removeItem(at: source) }
            let mock = try MockBlueZ(trace: source, speed: 1, extra: ["--centrals", "2"])
            defer { mock.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = folder.appendingPathComponent("workouts.sqlite").path
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            // The browser first: its start, slow on a busy machine, must not eat the ride's first 6 s.
            let browser = try Browser()
            let recording = BlueZCommandTests.Recording(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--json", "--hr-zones", "100,130,150,170", "--ftp", "250",
                    "--auto-pause", "off", "--http", "\(port)", "--store", store, "--relay", "Bike 2"])
            try WebTests.Running.waitUntilServing(base + "/")
            try browser.open(base + "/")
            try browser.waitUntil("heart rate 120 on the page") { try browser.text("#heartRate") == "120" }
            #expect(try browser.text("#power") == "200")
            // What the terminal dashboard shows too: 10 s power, %FTP (200 of 250) and the ride's averages.
            try browser.waitUntil("10 s power") { try browser.text("#power10s") == "200" }
            #expect(try browser.text("#percentOfFTP") == "80")
            #expect(try browser.text("#ride td:nth-child(3)") == "200")
            try browser.waitUntil("zone 2") { try browser.text("#zone-heartRate b") == "Z2" }
            try browser.click("button[data-action=lap]")
            try browser.waitUntil("heart rate 180, zone 5") { try browser.text("#zone-heartRate b") == "Z5" }
            // Zone 5 in the palette's colour for zone 5 (orange, #ffa726), as on the chart and the dashboard.
            #expect(try browser.script("return getComputedStyle(document.getElementById('zone-heartRate')).backgroundColor").stringValue == "rgb(255, 167, 38)")
            #expect(try browser.text("#lap") == "2")
            // The relay's line: the two apps the mock connected, each subscribed to both.
            try browser.waitUntil("the relay's apps") { try browser.text("#relay").contains("2 apps connected") }
            #expect(
                try browser.text("#relay")
                    == "Relay 'Bike 2': advertising; 2 apps connected (C0:FF:EE:00:00:00, C0:FF:EE:00:00:01); subscribed: heart rate 2, power 2")
            if let screenshots = Self.screenshots { try browser.screenshot(to: screenshots + "/live.png") }
            try browser.click("button[data-action=pause]")
            try browser.waitUntil("paused") { try browser.text("#state").hasPrefix("paused") }
            try browser.click("button[data-action=resume]")
            try browser.waitUntil("running again") { try !browser.text("#state").hasPrefix("paused") }

            _ = mock.waitUntilPlayed(timeout: .seconds(60))
            recording.control.stop()
            let (status, output, errors) = recording.waitForExit()
            #expect(status == .success, "\(errors)")
            let kinds = try LiveControlTests.events(output)
            #expect(kinds.contains("lap manual") && kinds.contains("pause manual") && kinds.contains("resume manual"), "\(kinds)")

            // The saved workout's page, through `web`.
            let webPort = try freeLoopbackPort()
            let web = WebTests.Running(["web", "--http", "\(webPort)", "--store", store], environment: ["TZ": "UTC"])
            defer { _ = web.stop() }
            try WebTests.Running.waitUntilServing("http://127.0.0.1:\(webPort)/workouts")
            try browser.open("http://127.0.0.1:\(webPort)/workouts")
            try browser.click("a[href='/workouts/1']")
            try browser.waitUntil("the workout page") { try browser.text("h1") == "Workout 1" }
            #expect(try browser.script("return document.querySelectorAll('#chart svg').length").doubleValue == 1)
            #expect(try browser.script("return document.querySelectorAll('a.download').length").doubleValue == 4)
            if let screenshots = Self.screenshots { try browser.screenshot(to: screenshots + "/workout.png") }
            let fitLink = try browser.script("return document.querySelector('a.download[data-format=fit]').href").stringValue ?? ""
            let fit = try WebTests.curl(fitLink)
            #expect(fit.status == 200 && fit.body.count > 100 && fit.body[8..<12] == Data(".FIT".utf8))
        }
    }
}
