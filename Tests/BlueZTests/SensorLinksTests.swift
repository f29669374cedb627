import BlueZ
import DBus
import Foundation
import SensorTestSupport
import Testing

/// `SensorLinks` on the mock org.bluez: it connects the sensors, reads their values through
/// `StartNotify` or `AcquireNotify` sockets as its notify path and the bluetoothd release say, reads
/// the read-once characteristics, connects a sensor again once it advertises after its link
/// dropped, and when it stops ends its subscriptions and takes down the links it made, not another
/// program's.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct SensorLinksTests {
    /// The value lines of a trace for `key`, as hex, in order.
    static func sent(_ trace: URL, _ key: String) throws -> [String] {
        try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.contains("\"device\":\"\(key)\""), let hex = line.firstMatch(of: /"hex":"([0-9a-f]+)"/)?.1 else { return nil }
            return String(hex)
        }
    }

    /// Every value of a trace played as fast as the mock can arrives, from its sensor and
    /// characteristic, in order, stamped in order; through sockets (`AcquireNotify`) exactly where
    /// the notify path says (by default: where bluetoothd is 5.84 or later), else `StartNotify`.
    /// Each sensor is connected once, its read-once characteristics read once, and at `stop` its
    /// notifications end and the links made are taken down.
    @Test(arguments: [
        ("5.66", NotifyPath.automatic, false), ("5.84", .automatic, true), ("5.66", .acquire, true), ("5.84", .start, false),
    ])
    func everyValueArrivesInOrderThroughTheNotifyPathChosen(bluez: String, path: NotifyPath, socket: Bool) throws {
        let trace = try MockSensors.trace(seconds: 10)
        let mock = try MockBlueZ(trace: trace, acquireNotify: ["hr", "power"], bluez: bluez)
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        let told = Told()
        let links = SensorLinks(
            client: client, sensors: try MockSensors.requests(client), notifyPath: path, onNotification: told.notification,
            onEvent: told.event)
        links.start()
        let played = mock.waitUntilPlayed(timeout: .seconds(30))
        let (heartRate, power) = (try Self.sent(trace, "hr"), try Self.sent(trace, "power"))
        #expect(played == heartRate.count + power.count, "\(mock.output)")
        #expect(eventually { told.received.count >= heartRate.count + power.count }, "\(told.received.count) of \(played ?? -1)")
        links.stop()

        #expect(told.values("hr") == heartRate)
        #expect(told.values("power") == power)
        #expect(told.received.allSatisfy { $0.uuid == ($0.key == "hr" ? 0x2A37 : 0x2A63) })
        // In order, to within the conversion of the kernel's receive times (realtime) to this
        // clock, made per read: packets that came before their socket took receive times all take
        // the time it was asked, converted again by each read.
        for key in ["hr", "power"] {
            let times = told.received.filter { $0.key == key }.map(\.receivedAt)
            #expect(!zip(times, times.dropFirst()).contains { $1 < $0 - .milliseconds(1) }, "\(key)'s values stamped out of order")
        }
        for device in ["hr 2a37", "power 2a63"] {
            #expect(mock.output.contains("acquired \(device)") == socket, "\(mock.output)")
            #expect(mock.output.contains("notifying \(device) (1)") == !socket, "\(mock.output)")
        }
        let events = told.eventLines
        #expect(events.filter { $0.hasPrefix("connected ") }.sorted() == ["connected hr", "connected power"], "\(events)")
        #expect(!events.contains { $0.hasPrefix("failed ") || $0.hasPrefix("lost ") || $0.hasPrefix("stale ") }, "\(events)")
        // Read once after the first connection: body sensor location (chest), CP feature, sensor location
        // (left crank), battery levels.
        #expect(
            Set(events.filter { $0.hasPrefix("value ") })
                == ["value hr 2a38 01", "value hr 2a19 57", "value power 2a65 0c000000", "value power 2a5d 05", "value power 2a19 57"],
            "\(events)")
        // Stopped: StartNotify's sessions ended, both links (made by it) taken down.
        #expect(mock.printed("disconnected C4:7E:11:22:33:44"), "\(mock.output)")
        #expect(mock.printed("disconnected E8:FE:6E:91:9F:16"), "\(mock.output)")
        if !socket {
            let measurements = client.paths(with: SensorLinks.characteristicInterface).filter {
                client.properties($0, SensorLinks.characteristicInterface)?["Flags"]?.array?.contains(.string("notify")) == true
            }
            #expect(measurements.count == 2)
            #expect(eventually {
                measurements.allSatisfy { client.properties($0, SensorLinks.characteristicInterface)?["Notifying"]?.bool == false }
            })
        }
    }

    /// The power meter goes out of range mid-ride (its link drops) and comes back: it is told lost,
    /// discovery starts for it, it is connected again once it advertises, discovery stops, and every
    /// value it sent arrives, in order; the strap is never disturbed.
    @Test(arguments: [NotifyPath.start, .acquire])
    func aSensorWhoseLinkDropsIsConnectedAgainOnceItAdvertises(path: NotifyPath) throws {
        let trace = try MockSensors.trace(
            seconds: 8,
            extra: [#"{"t":3.8,"event":"disconnected","device":"power"}"#, #"{"t":3.9,"event":"connected","device":"power"}"#],
            at: 3)
        let mock = try MockBlueZ(trace: trace, acquireNotify: ["hr", "power"], bluez: "5.84")
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        let told = Told()
        let links = SensorLinks(
            client: client, sensors: try MockSensors.requests(client), notifyPath: path, onNotification: told.notification,
            onEvent: told.event)
        links.start()
        let played = mock.waitUntilPlayed(timeout: .seconds(30))
        let (heartRate, power) = (try Self.sent(trace, "hr"), try Self.sent(trace, "power"))
        #expect(played == heartRate.count + power.count, "\(mock.output)")
        #expect(eventually { told.received.count >= heartRate.count + power.count }, "\(told.received.count) of \(played ?? -1)")
        links.stop()

        #expect(told.values("hr") == heartRate)
        #expect(told.values("power") == power)
        // Lost, then connected again; a drop that comes while the meter is still being set up (the
        // mock plays as fast as it can) may add a connected and lost pair, never two of one kind in a row.
        let meterEvents = told.eventLines.filter { $0.hasSuffix(" power") }
        #expect(meterEvents.prefix(2) == ["connected power", "lost power"] && meterEvents.last == "connected power", "\(told.eventLines)")
        #expect(!zip(meterEvents, meterEvents.dropFirst()).contains { $0 == $1 }, "\(told.eventLines)")
        #expect(told.eventLines.filter { $0.hasSuffix(" hr") } == ["connected hr"], "\(told.eventLines)")
        // Discovery runs while a sensor is not connected (at the start, and again after the loss
        // unless the first session still runs: the mock plays as fast as it can) and is stopped
        // once both are connected again.
        let output = mock.output.split(separator: "\n")
        let down = try #require(output.firstIndex { $0.hasPrefix("link power down") }, "\(mock.output)")
        let discovery = output.filter { $0.hasPrefix("discovery ") }
        #expect(discovery.first?.hasPrefix("discovery started: le any rssi -127") == true, "\(mock.output)")
        #expect(discovery.filter { $0.hasPrefix("discovery started") }.count == discovery.filter { $0 == "discovery stopped" }.count)
        #expect(output[down...].contains("discovery stopped"), "\(mock.output)")
        // The socket lost with the link is acquired again; StartNotify is asked again.
        let subscribed = path == .acquire ? "acquired power 2a63" : "notifying power 2a63 ("
        #expect(output.filter { $0.hasPrefix(subscribed) }.count == 2, "\(mock.output)")
    }

    /// The read-once characteristics (battery, locations, CP feature) are read after a sensor's first
    /// connection, also when its first value came before `SensorLinks` had finished setting it up
    /// (the value announces it connected): played as fast as the mock can, the meter's first value
    /// often does. Eight rides, each sensor's values read once in each.
    @Test func theReadOnceCharacteristicsAreReadOnceAfterTheFirstConnectionEvenWhenAValueCameFirst() throws {
        let trace = try MockSensors.trace(seconds: 1)
        for ride in 1...8 {
            let mock = try MockBlueZ(trace: trace)
            defer { mock.stop() }
            let client = try BlueZClient(environment: mock.environment)
            defer { client.bus.close() }
            let told = Told()
            let links = SensorLinks(
                client: client, sensors: try MockSensors.requests(client), onNotification: told.notification, onEvent: told.event)
            links.start()
            #expect(mock.waitUntilPlayed(timeout: .seconds(30)) == 8, "\(mock.output)")
            #expect(eventually { told.received.count >= 8 && told.eventLines.filter { $0.hasPrefix("value ") }.count >= 5 })
            links.stop()
            #expect(
                told.eventLines.filter { $0.hasPrefix("value ") }.sorted()
                    == ["value hr 2a19 57", "value hr 2a38 01", "value power 2a19 57", "value power 2a5d 05", "value power 2a65 0c000000"],
                "ride \(ride): \(told.eventLines)")
        }
    }

    /// A sensor another program had connected is used as it is (no `Connect`) and left connected at
    /// `stop`; the one `SensorLinks` connected is disconnected.
    @Test func stopTakesDownOnlyTheLinksItMade() throws {
        let trace = try MockSensors.trace(seconds: 4)
        let mock = try MockBlueZ(trace: trace)
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        // Another program's link (the rider's phone app, say).
        let other = try BlueZClient(environment: mock.environment)
        defer { other.bus.close() }
        try other.call(MockSensors.meter, BlueZClient.deviceInterface, "Connect")
        #expect(eventually { client.properties(MockSensors.meter, BlueZClient.deviceInterface)?["Connected"]?.bool == true })

        let told = Told()
        let links = SensorLinks(
            client: client, sensors: try MockSensors.requests(client), onNotification: told.notification, onEvent: told.event)
        links.start()
        let played = mock.waitUntilPlayed(timeout: .seconds(30))
        #expect(played == 32, "\(mock.output)")
        #expect(eventually { told.received.count >= 32 }, "\(told.received.count)")
        links.stop()

        #expect(mock.printed("disconnected C4:7E:11:22:33:44"), "\(mock.output)")
        #expect(!mock.output.contains("disconnected E8:FE:6E:91:9F:16"), "\(mock.output)")
        #expect(client.properties(MockSensors.meter, BlueZClient.deviceInterface)?["Connected"]?.bool == true)
        #expect(eventually { client.properties(MockSensors.strap, BlueZClient.deviceInterface)?["Connected"]?.bool == false })
    }
}
