import BlueZ
import Foundation
import Outputs
import SensorCore

/// `sensorbridge pair ADDRESS`: bonds with a sensor that asks for it and trusts it (where the bus
/// policy lets it set properties).
enum PairCommand {
    static let help = """
        Usage: sensorbridge pair ADDRESS|NAME [--adapter hciN]

        Pairs with a sensor found by 'sensorbridge scan' ("just works": sensors have no display or
        keys) and marks it trusted where the D-Bus policy allows it (udev/sensorbridge-dbus.conf does
        not; sensorbridge needs only the pairing). While it pairs, sensorbridge is BlueZ's
        default agent (NoInputNoOutput) and accepts the bonding request of this sensor only. Most
        heart-rate straps and power meters need no pairing; 'record' connects to them directly.

        Options:
          --adapter hciN             the Bluetooth adapter (default: the first)

        Examples:
          sensorbridge pair C4:7E:11:22:33:44
          sensorbridge pair "HRM-Pro:123456" --adapter hci1
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(words, command: "pair", options: ["adapter"], flags: [])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 1)
        guard let query = arguments.positionals.first else {
            throw UsageError("give the sensor's address or name, as 'sensorbridge scan' lists it")
        }
        let client = try BlueZClient(environment: context.environment)
        defer { client.bus.close() }
        let adapter = try client.adapter(arguments["adapter"])
        let sensor = try client.findSensor(query, adapter: adapter)
        let name = sensor.name ?? sensor.address
        if !sensor.paired {
            // Sensors that ask for bonding need an agent to say yes ("just works").
            let agent = try PairingAgent(client: client, device: sensor.path)
            defer { agent.unregister() }
            do {
                try client.call(sensor.path, BlueZClient.deviceInterface, "Pair", timeout: .seconds(60))
            } catch {
                // AlreadyExists: it paired meanwhile.
                guard case .dbus(let reply) = error else { throw error }
                if reply.name.rawValue != "org.bluez.Error.AlreadyExists" {
                    throw BlueZError.pairingRefused(device: name, reply)
                }
            }
        }
        guard try trust(sensor.path, client: client) else {
            context.output.line("Paired with \(name) (\(sensor.address)).")
            context.errors.line(
                "sensorbridge pair: \(name) is not marked trusted: the D-Bus policy lets this user set no BlueZ "
                    + "property. SensorBridge does not need it ('serve' takes paired sensors); "
                    + "'bluetoothctl trust \(sensor.address)' does it as a user who may.")
            return .success
        }
        context.output.line("Paired with \(name) (\(sensor.address)) and trusted it.")
        return .success
    }

    /// Marks the device trusted; false when the bus policy refuses it (setting properties).
    private static func trust(_ path: String, client: BlueZClient) throws(BlueZError) -> Bool {
        do {
            try client.set(path, BlueZClient.deviceInterface, "Trusted", .bool(true))
            return true
        } catch .permissionDenied {
            return false
        }
    }
}
