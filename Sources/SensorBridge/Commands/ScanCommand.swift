import BlueZ
import Foundation
import Outputs
import SensorCore

/// `sensorbridge scan`: heart-rate, power and speed/cadence sensors in range.
enum ScanCommand {
    static let help = """
        Usage: sensorbridge scan [--timeout SECONDS] [--adapter hciN] [--json]

        Discovers Bluetooth LE sensors offering heart rate (180D), cycling power (1818) or speed
        and cadence (1816) for a while, then lists them, strongest signal first, with the
        address or name to give 'record' and 'pair'. Wake a sensor before scanning: wear the
        strap, turn the cranks.

        Options:
          --timeout SECONDS   how long to discover (default 10)
          --adapter hciN      the Bluetooth adapter (default: the first); powered on if off
          --json              one JSON object: {"adapter": ..., "sensors": [...]}

        Example:
          sensorbridge scan --timeout 5
        """

    static let serviceNames: [UInt16: String] = [
        0x180D: "heart rate", 0x1818: "cycling power", 0x1816: "speed and cadence", 0x180F: "battery",
    ]

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "scan", options: ["timeout", "adapter"], flags: ["json"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        let timeout = try arguments.number("timeout", in: 0...3600) ?? 10
        let client = try BlueZClient(environment: context.environment)
        defer { client.bus.close() }
        let adapter = try client.adapter(arguments["adapter"])
        if !arguments.has("json") && context.outputIsTerminal {
            context.errors.line("Scanning for \(timeout.formatted()) s on \(adapter.split(separator: "/").last!)...")
            context.errors.flush()
        }
        let sensors = try client.discover(adapter: adapter, duration: .milliseconds(Int64(timeout * 1000)))
        if arguments.has("json") {
            let list = sensors.map { sensor -> JSONValue in
                var object: JSONObject = ["address": .string(sensor.address)]
                object["name"] = sensor.name.map(JSONValue.string) ?? .null
                object["rssi"] = sensor.rssi.map { .number(Double($0)) } ?? .null
                object["services"] = .array(sensor.services.map { .string(String($0, radix: 16)) })
                object["connected"] = .bool(sensor.connected)
                object["paired"] = .bool(sensor.paired)
                return .object(object)
            }
            let object: JSONObject = [
                "adapter": .string(String(adapter.split(separator: "/").last!)), "sensors": .array(list),
            ]
            context.output.line(JSONValue.object(object).serialized)
            return .success
        }
        if sensors.isEmpty {
            context.output.line(
                "No sensors found. Wake them (wear the strap, turn the cranks) and scan again, for longer with --timeout 30.")
            return .success
        }
        for sensor in sensors {
            let services = sensor.services.compactMap { serviceNames[$0] }.joined(separator: ", ")
            let rssi = sensor.rssi.map { "\($0) dBm" } ?? "-"
            let state = [sensor.paired ? "paired" : nil, sensor.connected ? "connected" : nil].compactMap { $0 }
            context.output.line(
                [sensor.address, (sensor.name ?? "(no name)").padding(toLength: 20, withPad: " ", startingAt: 0),
                 rssi.padding(toLength: 8, withPad: " ", startingAt: 0), services + (state.isEmpty ? "" : " (" + state.joined(separator: ", ") + ")")]
                    .joined(separator: "  "))
        }
        return .success
    }
}
