import Foundation
import SensorTestSupport

/// bleak, the Python BLE library people would pick, beside `record` in the `bluez` benchmark:
/// `scripts/bleak-peer.py` in the virtual environment `.build/venv` (`scripts/install-deps` puts
/// bleak there) as a child process that connects to the mock's two sensors with `BleakClient`,
/// `start_notify`s their measurements and counts the notifications. Its CPU is the sum over its
/// threads' `schedstat`.
enum BleakPeer {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build/venv/bin/python").path
    static let script = root.appendingPathComponent("scripts/bleak-peer.py").path
    /// The benchmark trace's devices and their measurements: the strap and the power meter.
    static let subscriptions = ["C4:7E:11:22:33:44=2a37", "E8:FE:6E:91:9F:16=2a63"]

    /// Why bleak cannot run here (nil when it can): no virtual environment, or no bleak in it.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "\(python) is missing (scripts/install-deps makes it and installs bleak)"
        }
        do {
            return try MockBlueZ.pythonImports("bleak", python: python)
                ? nil : "bleak is not installed in .build/venv (scripts/install-deps installs it)"
        } catch {
            return "\(python) does not run: \(error)"
        }
    }()

    /// Starts the script on `mock`'s bus; with `acquireNotify`, through AcquireNotify sockets
    /// (bleak's `use_start_notify` false) instead of its default StartNotify.
    static func start(_ mock: MockBlueZ, acquireNotify: Bool) throws -> BlueZBenchmark.Peer {
        let child = try ChildProcess(
            python, [script] + (acquireNotify ? ["--acquire-notify"] : []) + subscriptions, environment: mock.environment)
        var asked = 0
        var known = 0
        return BlueZBenchmark.Peer(
            waitForFirst: {
                guard child.waitForLine(timeout: .seconds(60), where: { $0 == "first" }) != nil else {
                    throw BlueZBenchmark.Failure(description: "bleak received nothing: \(child.output)")
                }
            },
            // The script prints its count on SIGUSR1 (asked 20 times a second at most: each costs it some CPU).
            received: {
                asked += 1
                child.send(SIGUSR1)
                let line = child.waitForLine(timeout: .seconds(10), occurrence: asked, where: { $0.hasPrefix("received ") })
                known = line.flatMap { Int($0.dropFirst("received ".count)) } ?? known
                return known
            },
            cpuSeconds: {
                BlueZBenchmark.threadCPUSeconds(process: String(child.processIdentifier)).values.reduce(0) { $0 + $1.use.seconds }
            },
            interval: 0.05,
            stop: { child.stop(grace: .seconds(5)) })
    }
}
