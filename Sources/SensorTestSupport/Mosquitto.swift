public import Foundation
import Synchronization

/// A real `mosquitto` broker (Debian `mosquitto`) for one test: its own configuration in a
/// temporary folder, a free port on the loopback interface, persistence in that folder. It is this
/// object's process: `stop()` (or `deinit`) ends it by its own id; `restart()` starts it again on
/// the same port with what it persisted.
public final class MosquittoBroker: Sendable {
    public static let brokerPath = "/usr/sbin/mosquitto"
    public static let subscriberPath = "/usr/bin/mosquitto_sub"
    public static let passwordPath = "/usr/bin/mosquitto_passwd"

    /// Why the broker tests cannot run here (nil when they can).
    public static let unavailableReason: String? = {
        for (path, package) in [(brokerPath, "mosquitto"), (passwordPath, "mosquitto"), (subscriberPath, "mosquitto-clients")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is not installed (Debian package \(package))"
        }
        return nil
    }()

    public let port: Int
    public let directory: URL
    private let config: URL
    private let process: Mutex<ChildProcess?>

    /// Starts the broker; with `users`, only they may connect (a password file made by
    /// `mosquitto_passwd -b`), else anyone.
    public init(users: [(name: String, password: String)] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = Int(try freeLoopbackPort())
        var lines = [
            "listener \(port) 127.0.0.1", "persistence true", "persistence_location \(directory.path)/",
            "log_dest stdout", "user \(String(cString: getpwuid(getuid())!.pointee.pw_name))",
        ]
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            let passwords = directory.appendingPathComponent("passwords")
            for (index, user) in users.enumerated() {
                let make = try ChildProcess(
                    Self.passwordPath, (index == 0 ? ["-c"] : []) + ["-b", passwords.path, user.name, user.password],
                    environment: [:])
                _ = make.waitForExit(timeout: .seconds(10))
            }
            lines += ["allow_anonymous false", "password_file \(passwords.path)"]
        }
        config = directory.appendingPathComponent("mosquitto.conf")
        try (lines.joined(separator: "\n") + "\n").write(to: config, atomically: true, encoding: .utf8)
        process = Mutex(nil)
        try start()
    }

    /// `mqtt://127.0.0.1:PORT`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Everything the broker printed.
    public var output: String { process.withLock { $0 }?.output ?? "" }

    private func start() throws {
        let child = try ChildProcess(Self.brokerPath, ["-c", config.path], environment: [:])
        process.withLock { $0 = child }
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.accepts(port) {
            guard ContinuousClock.now < deadline, !child.waitForExit(timeout: .milliseconds(50)) else {
                child.stop()
                throw MockBlueZ.Failure(description: "mosquitto did not start listening on \(port): \(child.output)")
            }
        }
    }

    /// Stops the broker (SIGTERM: it saves what it persists and ends); clients lose their connections.
    public func stop() { process.withLock { $0 }?.stop() }

    /// Starts the broker again on the same port, with the sessions and retained messages it saved.
    public func restart() throws {
        stop()
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether something accepts TCP connections on the loopback `port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// One message a subscriber received, as `mosquitto_sub -F '%r %q %t %p'` prints it.
public struct ReceivedMQTTMessage: Sendable, Hashable {
    public var retained: Bool
    public var qos: Int
    public var topic: String
    public var payload: String
}

/// A `mosquitto_sub` (with `-d`, to see its SUBACK) subscribed to `topics` at QoS 1 (the messages keep the QoS they were published
/// with), printing every message with its retain flag and QoS. `persistentID` makes a persistent
/// session (clean session off): the broker keeps the subscription and queues QoS 1 messages while
/// this subscriber is away, even across a restart.
public final class MQTTSubscriber: Sendable {
    private let process: ChildProcess

    public init(_ broker: MosquittoBroker, topics: [String], persistentID: String? = nil, arguments: [String] = []) throws {
        var words = ["-d", "-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-F", "%r %q %t %p"]
        if let persistentID { words += ["-c", "-i", persistentID] }
        for topic in topics { words += ["-t", topic] }
        // Line-buffered: mosquitto_sub writing to a pipe would otherwise keep its lines until it exits.
        process = try ChildProcess("/usr/bin/stdbuf", ["-oL", MosquittoBroker.subscriberPath] + words + arguments, environment: [:])
    }

    /// Waits up to `timeout` until the broker has confirmed the subscription (SUBACK): what is
    /// published from then on reaches it.
    public func waitUntilSubscribed(timeout: Duration = .seconds(10)) -> Bool {
        process.waitForLine(timeout: timeout) { $0.contains("SUBACK") } != nil
    }

    /// The messages received so far, in order (`-d`'s debug lines left out).
    public var messages: [ReceivedMQTTMessage] {
        process.output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3, let retained = Int(parts[0]), let qos = Int(parts[1]) else { return nil }
            return ReceivedMQTTMessage(
                retained: retained == 1, qos: qos, topic: String(parts[2]), payload: parts.count > 3 ? String(parts[3]) : "")
        }
    }

    /// Everything it printed (errors included), for a failing test's message.
    public var output: String { process.output }

    /// Waits up to `timeout` for a message that satisfies `predicate`.
    @discardableResult
    public func waitFor(timeout: Duration = .seconds(20), _ predicate: (ReceivedMQTTMessage) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if messages.contains(where: predicate) { return true }
            if process.waitForExit(timeout: .milliseconds(50)) { return messages.contains(where: predicate) }
        }
        return false
    }

    /// Waits up to `timeout` for the subscriber to exit by itself (`-W`, `-C`).
    public func waitForExit(timeout: Duration) -> Bool { process.waitForExit(timeout: timeout) }

    public func stop() { process.stop() }

    deinit { process.stop() }
}
