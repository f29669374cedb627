import Foundation
import SensorTestSupport
import Testing
import Outputs

/// A real terminal: a tmux server of the test's own (its own socket, no configuration) running one
/// command in a window of a given size, whose screen is read back as text after tmux has
/// interpreted every escape code. The shell stays after the command, so that a failure is on the
/// screen to read; the server is killed when the session ends.
final class TerminalSession {
    private let tmux: String
    private let socket = "sensorbridge-test-\(UUID().uuidString.prefix(8))"

    /// `command` (a shell line) in a `columns`×`rows` window.
    init(_ command: String, columns: Int, rows: Int) throws {
        tmux = try #require(
            ["/usr/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "tmux is needed to read the screen (apt-get install tmux)")
        try run(["new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "-s", "ride", command + "; sleep 60"], reading: false)
    }

    deinit { _ = try? run(["kill-server"], reading: false) }

    /// The screen's lines.
    func screen() throws -> [String] {
        try run(["capture-pane", "-p", "-t", "ride"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
    }

    /// The screen (up to 30 s) once `ready` holds of it, or as it is then.
    func screen(when ready: ([String]) -> Bool) throws -> [String] {
        var lines: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            lines = try screen()
            if ready(lines) { break }
            Thread.sleep(forTimeInterval: 0.25)
        }
        return lines
    }

    /// The title the program set for its window.
    func title() throws -> String { try run(["display-message", "-p", "-t", "ride", "#{pane_title}"]) }

    /// Runs tmux and, with `reading`, waits for it and returns what it printed. The server that
    /// `new-session` starts inherits what Foundation's `Process` waits on, so that one is started
    /// and not waited for (the client itself exits at once).
    @discardableResult
    private func run(_ arguments: [String], reading: Bool = true) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tmux)
        process.arguments = ["-L", socket, "-f", "/dev/null"] + arguments
        let output = ChildLaunch.pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = reading ? output : FileHandle.nullDevice
        process.standardError = reading ? output : FileHandle.nullDevice
        try ChildLaunch.run(process)
        guard reading else { return "" }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
