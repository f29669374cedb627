import BlueZ
import DBus
import Foundation
import SensorTestSupport
import Testing

/// `BlueZClient`'s mirror of org.bluez and its discovery, against the mock org.bluez on a private
/// dbus-daemon: what it loads, the changes it follows, an adapter that goes and comes back, BlueZ
/// restarting, and the discovery filter it sets.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct BlueZClientTests {
    /// The adapter, the sensors with their names, addresses and services, a query by address or name
    /// prefix, the release shown by the device objects, and the GATT objects under a device.
    @Test(arguments: ["5.66", "5.84"]) func theMirrorHoldsTheAdapterAndItsSensors(bluez: String) throws {
        let mock = try MockBlueZ(trace: try MockSensors.trace(seconds: 1), bluez: bluez)
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }

        let adapter = try client.adapter()
        #expect(adapter == "/org/bluez/hci0")
        #expect(try client.adapter("hci0") == adapter)
        let noAdapter = #expect(throws: BlueZError.self) { try client.adapter("hci1") }
        #expect({ if case .noAdapter("hci1")? = noAdapter { true } else { false } }(), "\(String(describing: noAdapter))")
        let sensors = client.sensors(adapter: adapter)
        #expect(sensors.map(\.path).sorted() == [MockSensors.strap, MockSensors.meter])
        let strap = try #require(sensors.first { $0.path == MockSensors.strap })
        #expect(strap.name == "HRM-Pro" && strap.address == "C4:7E:11:22:33:44")
        #expect(strap.services.contains(0x180D) && !strap.services.contains(0x1818))
        #expect(!strap.connected && !strap.paired)
        #expect(try client.sensor("e8:fe:6e:91:9f:16", adapter: adapter).path == MockSensors.meter)
        #expect(try client.sensor("assi", adapter: adapter).name == "Assioma")
        let notFound = #expect(throws: BlueZError.self) { try client.sensor("Garmin", adapter: adapter) }
        #expect({ if case .deviceNotFound("Garmin")? = notFound { true } else { false } }(), "\(String(describing: notFound))")
        // bluetoothd 5.84 and later put org.bluez.Bearer.LE1 on every LE device object.
        #expect(client.isAtLeast5_84(adapter: adapter) == (bluez == "5.84"))
        #expect(client.isAtLeast5_84(device: MockSensors.strap) == (bluez == "5.84"))
        // The strap's GATT objects: its measurement, body sensor location and battery level.
        let characteristics = client.paths(with: SensorLinks.characteristicInterface, under: MockSensors.strap).compactMap {
            client.properties($0, SensorLinks.characteristicInterface)?["UUID"]?.string.flatMap(BlueZUUID.short)
        }
        #expect(Set(characteristics) == [0x2A37, 0x2A38, 0x2A19])
    }

    /// A property BlueZ changes reaches the mirror and then the listeners (`Connected` after a
    /// `Connect`); a removed listener hears nothing more.
    @Test func theMirrorFollowsPropertyChangesAndTellsItsListeners() throws {
        let mock = try MockBlueZ(trace: try MockSensors.trace(seconds: 1))
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        let told = Told()
        let listener = client.addListener { told.change($0) }
        try client.call(MockSensors.strap, BlueZClient.deviceInterface, "Connect")
        #expect(eventually { client.properties(MockSensors.strap, BlueZClient.deviceInterface)?["Connected"]?.bool == true })
        #expect(client.properties(MockSensors.strap, BlueZClient.deviceInterface)?["ServicesResolved"]?.bool == true)
        #expect(eventually { told.changesHeard.contains { Self.connected($0, MockSensors.strap) == true } })
        client.removeListener(listener)
        let heard = told.changesHeard.count
        try client.call(MockSensors.strap, BlueZClient.deviceInterface, "Disconnect")
        #expect(eventually { client.properties(MockSensors.strap, BlueZClient.deviceInterface)?["Connected"]?.bool == false })
        #expect(told.changesHeard.count == heard)
    }

    /// `Connected` in a change of the device at `path`, if it carries one.
    static func connected(_ change: BlueZChange, _ path: String) -> Bool? {
        guard case .propertiesChanged(path, BlueZClient.deviceInterface, let changed) = change else { return nil }
        return changed["Connected"]?.bool
    }

    /// The adapter unplugged: its objects leave the mirror (InterfacesRemoved) and `adapter()` finds
    /// none; plugged back, they return. BlueZ restarting: the listeners hear it stop and start, and
    /// the mirror is loaded again from the new owner of org.bluez.
    @Test func theMirrorFollowsAnAdapterThatGoesAndBlueZRestarting() throws {
        let mock = try MockBlueZ(trace: try MockSensors.trace(seconds: 1))
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        let told = Told()
        let listener = client.addListener { told.change($0) }
        defer { client.removeListener(listener) }

        try mock.unplugAdapter()
        #expect(eventually { client.paths(with: BlueZClient.adapterInterface).isEmpty })
        #expect(eventually { client.paths(with: BlueZClient.deviceInterface).isEmpty })
        #expect(client.paths(with: SensorLinks.characteristicInterface).isEmpty)
        #expect(told.changesHeard.contains { if case .interfacesRemoved("/org/bluez/hci0") = $0 { true } else { false } })
        #expect(told.changesHeard.contains { if case .interfacesRemoved(MockSensors.strap) = $0 { true } else { false } })
        let gone = #expect(throws: BlueZError.self) { try client.adapter() }
        #expect({ if case .noAdapter(nil)? = gone { true } else { false } }(), "\(String(describing: gone))")

        mock.replugAdapter()
        #expect(eventually { client.sensors(adapter: "/org/bluez/hci0").count == 2 })
        #expect(told.changesHeard.contains { if case .interfacesAdded(MockSensors.meter) = $0 { true } else { false } })
        #expect(try client.adapter() == "/org/bluez/hci0")

        try mock.restartBlueZ()
        #expect(eventually { told.changesHeard.contains { if case .bluezRunning(false) = $0 { true } else { false } } })
        let stopped = try #require(told.changesHeard.lastIndex { if case .bluezRunning(false) = $0 { true } else { false } })
        #expect(eventually { told.changesHeard.dropFirst(stopped).contains { if case .bluezRunning(true) = $0 { true } else { false } } })
        #expect(eventually { client.sensors(adapter: "/org/bluez/hci0").count == 2 })
    }

    /// Discovery for sensors: transport LE and RSSI -127, no UUIDs in the filter (bluetoothd 5.87
    /// crashes on one that names them); while it runs the adapter is `Discovering` and the devices'
    /// advertisements reach the listeners as RSSI changes; a second start counts as started; stop ends it.
    @Test func sensorDiscoverySetsAnLEFilterWithoutUUIDsAndReportsAdvertisements() throws {
        let mock = try MockBlueZ(trace: try MockSensors.trace(seconds: 1), bluez: "5.87")
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        let told = Told()
        let listener = client.addListener { told.change($0) }
        defer { client.removeListener(listener) }
        let adapter = try client.adapter()

        try client.startSensorDiscovery(adapter: adapter)
        #expect(mock.printed("discovery started: le any rssi -127"), "\(mock.output)")
        #expect(eventually { client.properties(adapter, BlueZClient.adapterInterface)?["Discovering"]?.bool == true })
        #expect(eventually { told.changesHeard.contains { Self.rssi($0, MockSensors.meter) } }, "\(mock.output)")
        try client.startSensorDiscovery(adapter: adapter)
        try client.stopDiscovery(adapter: adapter)
        #expect(mock.printed("discovery stopped"), "\(mock.output)")
        #expect(eventually { client.properties(adapter, BlueZClient.adapterInterface)?["Discovering"]?.bool == false })
        #expect(!mock.output.contains("crashed"), "\(mock.output)")
        // A timed discovery lists the sensors, strongest signal first.
        let found = try client.discover(adapter: adapter, duration: .milliseconds(300))
        #expect(Set(found.map(\.address)) == ["C4:7E:11:22:33:44", "E8:FE:6E:91:9F:16"])
        #expect(found.map { $0.rssi ?? -999 } == found.map { $0.rssi ?? -999 }.sorted(by: >))
    }

    /// Whether `change` is an RSSI change of the device at `path`.
    static func rssi(_ change: BlueZChange, _ path: String) -> Bool {
        guard case .propertiesChanged(path, BlueZClient.deviceInterface, let changed) = change else { return false }
        return changed["RSSI"] != nil
    }
}
