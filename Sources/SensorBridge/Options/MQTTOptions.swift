import Foundation
import MQTT
import Outputs

/// The options of `record` and `serve` that publish the workout to an MQTT broker: `--mqtt URL`,
/// `--mqtt-credentials FILE`, and the bridge's topic level from `--bridge-id ID` (which also names
/// the bridge in saved workouts: `WorkoutSetup`). Everything is checked before the command connects
/// to anything; a mistake is a `UsageError` that says what to write.
struct MQTTOptions {
    static let options: Set<String> = ["mqtt", "mqtt-credentials", WorkoutSetup.bridgeOption]
    static let flags: Set<String> = []
    static let help = """
          --mqtt mqtt://HOST[:PORT]/PREFIX
                                     also publish to this MQTT broker, under PREFIX/BRIDGE-ID/: live
                                     heart rate, power and cadence, zones, pauses and laps, sensor and
                                     workout states, each finished workout, and Home Assistant
                                     discovery (mqtts:// for TLS checked against /etc/ssl/certs; port
                                     1883, 8883 for mqtts; PREFIX sensorbridge). A broker that is away
                                     never holds up the recording
          --mqtt-credentials FILE    the broker's user: a file, readable only by you (chmod 600),
                                     holding username:password (or a username) on its first line
        """

    /// Where to publish; nil without `--mqtt`.
    var broker: MQTTBroker?

    init(_ arguments: CommandArguments) throws(UsageError) {
        guard let url = arguments["mqtt"] else {
            for option in ["mqtt-credentials"] where arguments[option] != nil {
                throw UsageError("--\(option) is for MQTT; give the broker too: --mqtt mqtt://HOST[:PORT]/PREFIX")
            }
            return
        }
        var broker = try Self.parse(url)
        if let file = arguments["mqtt-credentials"] {
            (broker.username, broker.password) = try Self.credentials(file)
        }
        broker.bridgeID = try WorkoutSetup.bridge(arguments).rawValue
        self.broker = broker
    }

    /// `mqtt://HOST[:PORT]/PREFIX` or `mqtts://...` into a broker (its bridge id still the default).
    static func parse(_ text: String) throws(UsageError) -> MQTTBroker {
        let write =
            "give mqtt://HOST[:PORT]/PREFIX, or mqtts://HOST[:PORT]/PREFIX for TLS; for example "
            + "--mqtt mqtt://homeassistant.local/sensorbridge"
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else {
            throw UsageError("--mqtt \(text) is not a URL; \(write)")
        }
        guard scheme == "mqtt" || scheme == "mqtts" else {
            throw UsageError("--mqtt \(text): the scheme must be mqtt or mqtts, not \(scheme); \(write)")
        }
        guard var host = url.host, !host.isEmpty else { throw UsageError("--mqtt \(text) names no host; \(write)") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if url.user != nil || url.password != nil {
            throw UsageError(
                "--mqtt \(text): put the user and password in a file given with --mqtt-credentials (a URL is "
                    + "visible to every user of the machine in ps); \(write)")
        }
        if url.query != nil || url.fragment != nil {
            throw UsageError("--mqtt \(text): a broker URL has no ?query or #fragment; \(write)")
        }
        // The port as written: URLComponents reads one past Int as none, which would be the default.
        let portText = url.rangeOfPort.map { String(text[$0]) } ?? ""
        let port = portText.isEmpty ? (scheme == "mqtts" ? 8883 : 1883) : Int(portText) ?? 0
        guard (1...65535).contains(port) else {
            throw UsageError("--mqtt \(text): port \(portText) is out of range; give 1 to 65535, or none for \(scheme == "mqtts" ? 8883 : 1883)")
        }
        var path = url.path
        while path.hasPrefix("/") { path.removeFirst() }
        while path.hasSuffix("/") { path.removeLast() }
        let prefix = path.isEmpty ? "sensorbridge" : path
        guard !prefix.contains(where: { "+#\0".contains($0) }), !prefix.split(separator: "/", omittingEmptySubsequences: false).contains("") else {
            throw UsageError(
                "--mqtt \(text): the topic prefix '\(prefix)' may not hold +, # or empty levels (//); \(write)")
        }
        return MQTTBroker(host: host, port: port, tls: scheme == "mqtts", prefix: prefix)
    }

    /// The user and password of a credentials file: its first line, `username:password` or a username.
    /// A file every user of the machine may read is refused (`SecretFile`).
    static func credentials(_ path: String) throws(UsageError) -> (String, String?) {
        let write = "write username:password (or only a username) on its first line, then chmod 600 it"
        let data = try SecretFile.read(path, option: "--mqtt-credentials", advice: write)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first
            .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) } ?? ""
        guard let colon = line.firstIndex(of: ":") else {
            guard !line.isEmpty else { throw UsageError("--mqtt-credentials \(path): the first line is empty; \(write)") }
            return (line, nil)
        }
        let user = String(line[..<colon])
        guard !user.isEmpty else { throw UsageError("--mqtt-credentials \(path): the user name is empty; \(write)") }
        return (user, String(line[line.index(after: colon)...]))
    }

    /// Starts publishing when `--mqtt` was given: the connection lives until `stop`, across workouts.
    func start(timeZone: TimeZone, log: @escaping @Sendable (String) -> Void) -> MQTTPublisher? {
        broker.map { MQTTPublisher($0, timeZone: timeZone, log: log) }
    }
}
