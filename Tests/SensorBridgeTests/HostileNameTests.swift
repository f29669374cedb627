import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

/// A heart-rate strap whose Bluetooth name (chosen by whoever makes or spoofs it) sets the window
/// title, clears the screen, turns the text red, forges a log line and carries HTML: `scan`,
/// `serve`'s log, the dashboard in a real terminal and the live page in Chromium all show it as
/// inert text.
extension BridgeOutTests {
    @Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
    struct HostileNameTests {
        /// As the trace's JSON writes it.
        static let hostile = #"\u001b]0;owned\u0007\u001b[2J\u001b[31mStrap\nsensorbridge serve: forged <img src=x onerror=document.title='owned'>"#
        /// As every face must show it.
        static let inert = #"\x1b]0;owned\x07\x1b[2J\x1b[31mStrap\nsensorbridge serve: forged <img src=x onerror=document.title='owned'>"#
        static let strap = "C4:7E:11:22:33:44"

        /// The bundled ride's first `lines` notifications, its strap named `hostile`.
        static func trace(lines: Int) throws -> URL {
            let url = try BlueZCommandTests.trace(lines: lines)
            let text = try String(contentsOf: url, encoding: .utf8)
            try text.replacingOccurrences(of: #""name":"HRM-Pro""#, with: "\"name\":\"\(hostile)\"").write(to: url, atomically: true, encoding: .utf8)
            return url
        }

        /// Whether `text` holds no character a terminal acts on (but the line ends).
        static func isInert(_ text: String) -> Bool {
            !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
        }

        @Test(.timeLimit(.minutes(10))) func scanAndServesLogShowTheNameInert() throws {
            let source = try Self.trace(lines: 200)
            defer { try? FileManager.default.removeItem(at: source) }
            let mock = try MockBlueZ(trace: source, speed: 1)
            defer { mock.stop() }
            let scan = runCLI(["scan", "--timeout", "0.2"], environment: mock.environment)
            #expect(scan.status == .success, "\(scan.errors)")
            #expect(Self.isInert(scan.output) && scan.output.contains(#"\x1b]0;owned\x07"#), "\(scan.output.debugDescription)")
            #expect(scan.output.split(separator: "\n").count == 2, "\(scan.output)")  // a line a sensor
            let json = runCLI(["scan", "--timeout", "0.2", "--json"], environment: mock.environment)
            #expect(try JSONValue(parsing: json.output)["sensors"]?.arrayValue?.first?["name"]?.stringValue == Self.inert)

            let serving = ServeCommandTests.Serving(mock, ["--hr", Self.strap, "--power", "Assioma"])
            #expect(serving.waitForNotifications(20))
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            let lines = run.errors.split(separator: "\n")
            #expect(Self.isInert(run.errors), "\(run.errors.debugDescription)")
            #expect(lines.allSatisfy { $0.hasPrefix("sensorbridge serve: ") && !$0.hasPrefix("sensorbridge serve: forged") }, "\(run.errors)")
            #expect(run.errors.contains(Self.inert), "\(run.errors)")
        }

        /// One recording in tmux with the web page on: the dashboard's screen and the terminal's
        /// title, and the live page in Chromium.
        @Test(.timeLimit(.minutes(10)), .enabled(if: Browser.unavailableReason == nil, "\(Browser.unavailableReason ?? "")"))
        func theDashboardAndTheLivePageShowTheNameInert() throws {
            let source = try Self.trace(lines: 400)
            defer { try? FileManager.default.removeItem(at: source) }
            let browser = try Browser()
            let mock = try MockBlueZ(trace: source, speed: 1)
            defer { mock.stop() }
            let port = try freeLoopbackPort()
            let environment = mock.environment.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let command = "env \(environment) TERM=xterm-256color \(try CrashRecoveryTests.executable().path) record "
                + "--hr \(Self.strap) --power Assioma --no-save --duration 40 --http \(port)"
            let terminal = try TerminalSession(command, columns: 160, rows: 40)
            let screen = try terminal.screen { $0.contains { $0.contains(#"\x1b]0;owned\x07"#) && $0.contains("connected") } }.joined(separator: "\n")
            #expect(screen.contains(#"\x1b]0;owned\x07\x1b[2J\x1b[31mStrap\nsensorbridge serve: forged"#), "\(screen)")
            #expect(try !terminal.title().contains("owned"))

            try WebTests.Running.waitUntilServing("http://127.0.0.1:\(port)/")
            try browser.open("http://127.0.0.1:\(port)/")
            try browser.waitUntil("the strap on the page") { try browser.text("#sensors").contains("forged <img src=x") }
            let sensors = try browser.text("#sensors")
            #expect(sensors.contains(Self.inert), "\(sensors)")
            #expect(try browser.script("return document.querySelectorAll('#sensors img, main img').length").doubleValue == 0)
            #expect(try browser.script("return document.title").stringValue == "Live · SensorBridge")
        }
    }
}

/// A capture file with escape sequences where the reader quotes it: the error is inert too.
struct HostileFileTests {
    @Test func anErrorQuotingAFileIsInert() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let header = #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{}}"#
        try (header + "\n" + #"{"t":0,"event":"\u001b]0;owned\u0007\u001b[2Jpause"}"# + "\n").write(to: url, atomically: true, encoding: .utf8)
        let run = runCLI(["replay", url.path])
        #expect(run.status != .success)
        #expect(run.errors.contains(#"\x1b]0;owned\x07\x1b[2Jpause"#), "\(run.errors.debugDescription)")
        #expect(!run.errors.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }
}
