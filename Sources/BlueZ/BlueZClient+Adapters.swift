import DBus
import SensorCore
import Foundation

/// A sensor seen by an adapter: what `scan` lists.
public struct DiscoveredSensor: Sendable, Equatable {
    /// `/org/bluez/hci0/dev_C4_7E_11_22_33_44`.
    public var path: String
    /// Its name (BlueZ's `Name`, else `Alias`), made inert (`String.inert`): whoever makes or
    /// spoofs a device chooses it, and it reaches terminals, logs and pages.
    public var name: String?
    /// `C4:7E:11:22:33:44`.
    public var address: String
    /// Signal strength in dBm, when the last advertisement carried it.
    public var rssi: Int?
    /// 16-bit service UUIDs the device advertises (180D, 1818, 1816, ...).
    public var services: [UInt16]
    public var connected: Bool
    public var paired: Bool
}

extension BlueZClient {
    public static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"

    /// The adapter's object path: `name` (hci1) or the first one. A powered-off adapter is
    /// powered on where the bus policy allows it (`poweredOff` where not); a blocked one is an
    /// error that says how to unblock it.
    public func adapter(_ name: String? = nil) throws(BlueZError) -> String {
        let adapters = paths(with: Self.adapterInterface)
        guard let path = name.map({ "/org/bluez/" + $0 }) ?? adapters.first, adapters.contains(path) else {
            throw .noAdapter(name)
        }
        let adapterName = String(path.split(separator: "/").last ?? "")
        let properties = self.properties(path, Self.adapterInterface) ?? [:]
        if properties["Powered"]?.bool == true { return path }
        if properties["PowerState"]?.string == "off-blocked" { throw .blocked(adapterName) }
        do {
            try set(path, Self.adapterInterface, "Powered", .bool(true))
        } catch .dbus(let error) where error.name == DBusError.Name("org.bluez.Error.Blocked")
            || error.message.localizedCaseInsensitiveContains("rfkill")
        {
            throw .blocked(adapterName)
        } catch .permissionDenied {
            throw .poweredOff(adapterName)
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while self.properties(path, Self.adapterInterface)?["Powered"]?.bool != true {
            if ContinuousClock.now > deadline { throw .blocked(adapterName) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return path
    }

    /// Discovers LE sensors offering heart rate, cycling power or CSC for `duration`, then lists
    /// every such device the adapter knows, strongest signal first.
    public func discover(adapter: String, duration: Duration) throws(BlueZError) -> [DiscoveredSensor] {
        try startSensorDiscovery(adapter: adapter)
        Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        _ = try? stopDiscovery(adapter: adapter)
        return sensors(adapter: adapter)
    }

    /// Starts this client's discovery of LE sensors on `adapter`: `SetDiscoveryFilter` (transport
    /// `le`, RSSI -127), then `StartDiscovery`. BlueZ keeps one discovery session per client and
    /// scans while any client has one, merging their filters; `InProgress` (this client's session
    /// runs already) counts as started. The services are not in the filter: bluetoothd 5.87 crashes
    /// when a filter names UUIDs (docs/bluez-behaviours.md §10), so `sensors` keeps the heart-rate,
    /// power and CSC devices itself. The explicit RSSI makes the filter a filter on every version
    /// (`Transport` alone counts as none on an LE-only adapter, and later versions limit RSSI
    /// updates unless the filter gives one), so every advertisement is reported.
    public func startSensorDiscovery(adapter: String) throws(BlueZError) {
        let filter = DBusValue.properties(["Transport": .string("le"), "RSSI": .int16(-127)])
        try call(adapter, Self.adapterInterface, "SetDiscoveryFilter", [filter], timeout: .seconds(5))
        do {
            try call(adapter, Self.adapterInterface, "StartDiscovery", timeout: .seconds(5))
        } catch .dbus(let error) where error.name == .bluezInProgress {
            return
        }
    }

    /// Ends this client's discovery session on `adapter`; other clients' sessions go on.
    public func stopDiscovery(adapter: String) throws(BlueZError) {
        try call(adapter, Self.adapterInterface, "StopDiscovery", timeout: .seconds(5))
    }

    /// The sensors the adapter knows (heart rate, cycling power or CSC among their services).
    public func sensors(adapter: String) -> [DiscoveredSensor] {
        paths(with: Self.deviceInterface, under: adapter).compactMap { path -> DiscoveredSensor? in
            guard let p = properties(path, Self.deviceInterface), let address = p["Address"]?.string else { return nil }
            let services = (p["UUIDs"]?.array ?? []).compactMap { $0.string.flatMap(BlueZUUID.short) }
            guard services.contains(where: BlueZUUID.sensorServices.contains) else { return nil }
            return DiscoveredSensor(
                path: path, name: (p["Name"]?.string ?? p["Alias"]?.string)?.inert, address: address, rssi: p["RSSI"]?.integer,
                services: services, connected: p["Connected"]?.bool ?? false, paired: p["Paired"]?.bool ?? false)
        }.sorted { ($0.rssi ?? -999, $1.address) > ($1.rssi ?? -999, $0.address) }
    }

    /// A sensor the adapter knows, else one found by a short discovery: bluetoothd forgets a device
    /// it found but never connected 30 s after it last saw it (src/device.c, TemporaryTimeout), so
    /// a sensor `scan` listed a minute ago may be unknown again.
    public func findSensor(_ query: String, adapter: String) throws(BlueZError) -> DiscoveredSensor {
        if let known = try? sensor(query, adapter: adapter) { return known }
        _ = try discover(adapter: adapter, duration: .seconds(5))
        return try sensor(query, adapter: adapter)
    }

    /// The sensor with this address (any case) or name (exact, then case-insensitive prefix).
    public func sensor(_ query: String, adapter: String) throws(BlueZError) -> DiscoveredSensor {
        let known = sensors(adapter: adapter)
        if let match = known.first(where: { $0.address.caseInsensitiveCompare(query) == .orderedSame })
            ?? known.first(where: { $0.name == query })
            ?? known.first(where: { $0.name?.lowercased().hasPrefix(query.lowercased()) == true })
        {
            return match
        }
        throw .deviceNotFound(query)
    }
}
