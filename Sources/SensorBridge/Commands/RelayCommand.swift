import BlueZ
import Outputs
import SensorCore
import Session
import Synchronization

/// `sensorbridge relay`: the box takes the sensors once and offers them again, as a Bluetooth LE
/// heart-rate and power sensor, to apps that want their own connection (Zwift on a tablet, a
/// watch, a bike computer). `record --relay NAME` without saving.
enum RelayCommand {
    static let help = """
        Usage: sensorbridge relay [--hr SENSOR] [--power SENSOR] [--name NAME] [options]

        Connects to a heart-rate strap and/or a power meter through BlueZ and offers them again,
        from this box, as one Bluetooth LE sensor called NAME (default: SensorBridge) with the
        Heart Rate service and the Cycling Power service: every value each sensor sends is sent on
        to every app subscribed, as it came. Most straps and power meters take one connection;
        this gives the same sensor to the recording box and to Zwift, a watch or a bike computer.
        It records as 'sensorbridge record --no-save' does (the dashboard, --duration, Ctrl-C),
        and stops offering the sensors when it ends.

        The adapter must be able to be a peripheral while it is a central (most Bluetooth 4.1 and
        later adapters); one that cannot is refused at the start, saying so. Apps connecting and
        leaving, and what they subscribe to, are logged. While a sensor is lost nothing is sent
        for it, as the sensor itself would send nothing.

        Options:
          --hr SENSOR, --power SENSOR   the sensors, as for 'sensorbridge record'
          --name NAME                   what other apps see (1 to 20 bytes; default SensorBridge)
          --reencode                    send each value rebuilt from what counts: no heart rate
                                        without skin contact (a strap off the skin sends 0 bpm)
                                        or outside 25-250 bpm; power with its crank data
          --adapter hciN                the Bluetooth adapter (default: the first)
          Every other option of 'sensorbridge record' but --relay and --no-save; to save the
          workout as well, use 'sensorbridge record --relay NAME'.

        Example:
          sensorbridge relay --hr HRM-Pro --power E8:FE:6E:91:9F:16 --name 'Bike 2'
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        if words.contains("--help") || words.contains("-h") {
            context.output.line(help)
            return .success
        }
        for taken in ["--relay", "--no-save", "--save"] where words.contains(taken) {
            throw UsageError("relay does not take \(taken); use 'sensorbridge record --relay NAME' to record and save as well")
        }
        var words = words
        var name = "SensorBridge"
        if let index = words.firstIndex(of: "--name") {
            guard words.indices.contains(index + 1) else { throw UsageError("--name needs a name, for example --name 'Bike 2'") }
            name = words[index + 1]
            words.removeSubrange(index...(index + 1))
        }
        return try RecordCommand.run(words + ["--no-save", "--relay", name], context)
    }

    /// The log line of a relay event.
    static func logLine(_ event: GattRelayEvent) -> String {
        switch event {
        case .registered(let adapter):
            "relay: offering the sensors on \(adapter.split(separator: "/").last.map(String.init) ?? adapter)"
        case .bluezGone:
            "relay: BlueZ went away; the sensors are offered again when it returns"
        case .adapterGone(let adapter):
            "relay: the adapter \(adapter) went away; the sensors are offered again when it is back"
        case .advertising(let name):
            "relay: advertising as '\(name)'"
        case .subscribers(let uuid, let count):
            "relay: \(count) subscribed to \(BlueZUUID.name(uuid))"
        case .central(let address, let connected):
            "relay: \(address) \(connected ? "connected" : "left")"
        case .notRelayed(let count):
            "relay: \(count) value\(count == 1 ? "" : "s") not relayed: BlueZ did not take them fast enough (is bluetoothd busy?)"
        case .failed(let error, let wait):
            "relay: \(error)" + (wait.map { "; trying again in \($0.components.seconds) s" } ?? "")
        }
    }
}

/// `--relay NAME` and `--reencode`, as `record` and `serve` take them.
struct RelayOptions {
    static let options: Set<String> = ["relay"]
    static let flags: Set<String> = ["reencode"]
    static let help = """
          --relay NAME               also offer the heart rate and power to other apps (Zwift, a watch)
                                     as a Bluetooth LE sensor called NAME, each value as it came
          --reencode                 with --relay: send each value rebuilt from what counts (no heart
                                     rate without skin contact or outside 25-250 bpm; power with its
                                     crank data), instead of as it came
        """

    let name: String?
    let reencode: Bool

    init(_ arguments: CommandArguments) throws(UsageError) {
        name = try arguments["relay"].map { name throws(UsageError) in
            guard !name.isEmpty, name.utf8.count <= 20 else {
                throw UsageError("--relay '\(name)': give a name of 1 to 20 bytes, for example --relay 'Bike 2' (it is advertised)")
            }
            return name
        }
        reencode = arguments.has("reencode")
        if reencode, name == nil { throw UsageError("--reencode changes what --relay sends; give --relay NAME with it") }
    }

    /// The relay of the sensors keyed `keys` (`hr`, `power`), registered with BlueZ; nil without
    /// `--relay`. Its events go to `log`, and the status they make to `show` (the live screens).
    func start(
        client: BlueZClient, adapter: String, keys: [String], log: @escaping @Sendable (String) -> Void,
        show: @escaping @Sendable (RelayStatus) -> Void
    ) throws -> GattRelay? {
        guard let name else { return nil }
        let services = [("hr", RelayedService.heartRate), ("power", .cyclingPower)].filter { keys.contains($0.0) }.map(\.1)
        guard !services.isEmpty else {
            throw UsageError("--relay offers heart rate and power; give --hr or --power (cadence and speed are not relayed)")
        }
        let status = Mutex(RelayStatus(name: name))
        let relay = GattRelay(client: client, adapter: adapter, name: name, services: services) { event in
            log(RelayCommand.logLine(event))
            // Shown under the lock, so that the screens get the statuses in the order they were made.
            status.withLock { s in
                s.apply(event)
                show(s)
            }
        }
        try relay.start()
        return relay
    }
}

extension GattRelay {
    /// Passes on a notification: as it came, or with `reencoding` as `RelayValue` rebuilds it
    /// (nothing when it does not count).
    func forward(_ notification: BlueZNotification, reencoding: Bool) {
        if !reencoding {
            forward(uuid: notification.uuid, bytes: notification.bytes)
        } else if let value = RelayValue.reencoded(uuid: notification.uuid, bytes: notification.bytes) {
            forward(uuid: notification.uuid, bytes: value)
        }
    }
}

