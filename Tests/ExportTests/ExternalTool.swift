import Foundation
import SensorTestSupport

/// Runs a program the export tests check files with (xmllint, Chromium, python3), with a time bound.
enum ExternalTool {
    /// The full path of `name` in the usual binary folders, or nil when it is not installed.
    static func path(_ name: String) -> String? {
        ["/usr/bin", "/bin", "/usr/local/bin"].map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The folder of the test fixtures.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Runs `executable` and returns its exit status and its standard output and error together.
    /// After `timeout` it is killed (its process group when it leads one, so a browser's helpers
    /// go too), and the status is nil.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(60)) throws
        -> (status: Int32?, output: String)
    {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-tool-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try ChildLaunch.run(process)
        var status: Int32?
        if exited.wait(timeout: .now() + Double(timeout.components.seconds)) == .timedOut {
            let pid = process.processIdentifier
            kill(getpgid(pid) == pid ? -pid : pid, SIGKILL)
            exited.wait()
        } else {
            status = process.terminationStatus
        }
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
