import Captures
import Foundation
import GATT
import SensorCore
import Testing

/// `Tests/Fixtures/conformance/gatt-cases.btsnoop` (a btmon-style capture of one LE connection
/// carrying all 720 Wireshark-decoded cases) read back against `gatt-cases.json`.
@Suite struct BtsnoopConformanceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/conformance").standardized

    struct Case {
        let uuid: BluetoothUUID
        let payload: [UInt8]
        let frame: Int
        /// `time_epoch` in microseconds since 1970.
        let microseconds: Int64
    }

    static let cases: [Case] = {
        let data = try! Data(contentsOf: fixtures.appendingPathComponent("gatt-cases.json"))
        return try! JSONValue(parsing: [UInt8](data))["cases"]!.arrayValue!.map { c in
            // "1700000000.250000000": seconds and nanoseconds, exactly.
            let parts = c["time_epoch"]!.stringValue!.split(separator: ".")
            let micros = Int64(parts[0])! * 1_000_000 + Int64(parts[1].prefix(6))!
            return Case(
                uuid: BluetoothUUID(c["uuid"]!.stringValue!)!, payload: try! Hex.decode(c["payload_hex"]!.stringValue!),
                frame: c["frame"]!.integerValue!, microseconds: micros)
        }
    }()

    static func events() throws -> (events: [CaptureEvent], reader: BtsnoopReader) {
        let reader = try BtsnoopReader(contentsOf: fixtures.appendingPathComponent("gatt-cases.btsnoop"))
        var events: [CaptureEvent] = []
        while let event = try reader.next() { events.append(event) }
        return (events, reader)
    }

    @Test func notificationsAreExactlyTheCasesInOrder() throws {
        let (events, reader) = try Self.events()
        #expect(reader.datalink == .linuxMonitor)
        let notifications = events.compactMap { event -> (CaptureEvent, ATTNotification)? in
            if case .notification(let n) = event.kind { return (event, n) }
            return nil
        }
        #expect(notifications.count == 720)
        #expect(Self.cases.count == 720)
        // The README's value handles.
        let handles: [BluetoothUUID: UInt16] = [
            .heartRateMeasurement: 0x0012, .cyclingPowerMeasurement: 0x0022, .cyclingPowerVector: 0x0029,
            .cscMeasurement: 0x0032,
        ]
        for (index, ((event, n), c)) in zip(notifications, Self.cases).enumerated() {
            #expect(n.uuid == c.uuid, "case \(index)")
            #expect(Array(n.value) == c.payload, "case \(index)")
            #expect(n.handle == handles[c.uuid], "case \(index)")
            #expect(event.record == c.frame, "case \(index)")
            #expect(event.time.unixMicroseconds == c.microseconds, "case \(index)")
            #expect(n.direction == .received && !n.isIndication)
            #expect(n.connection.handle == 0x0040)
        }
        #expect(reader.statistics.skipped == [:])
        #expect(reader.statistics.notifications == 720)
    }

    @Test func connectionDiscoveryAndDisconnection() throws {
        let (events, reader) = try Self.events()
        guard case .connected(let connection) = events.first?.kind else {
            Issue.record("the first event is not the connection: \(String(describing: events.first))")
            return
        }
        #expect(connection.peer == BluetoothAddress("C0:FF:EE:12:34:56"))
        #expect(connection.peerAddressType == 1)
        #expect(connection.isCentral == true)
        #expect(connection.handle == 0x0040 && connection.adapter == 0)
        #expect(events.first?.time.unixMicroseconds == 1_699_999_999_000_000)
        guard case .disconnected(let gone, let reason) = events.last?.kind else {
            Issue.record("the last event is not the disconnection")
            return
        }
        #expect(gone == connection)
        #expect(reason == 0x13)  // remote user terminated
        let database = try #require(reader.remoteDatabase(of: connection))
        #expect(
            database.services.map(\.uuid) == [.heartRateService, .cyclingPowerService, .cyclingSpeedAndCadenceService])
        #expect(database.services.map(\.handles) == [0x0010...0x0015, 0x0020...0x002A, 0x0030...0x0035])
        #expect(database.uuid(ofHandle: 0x0015) == .bodySensorLocation)
        #expect(database.uuid(ofHandle: 0x0013) == BluetoothUUID(0x2902))
        #expect(database.service(containing: 0x0029)?.uuid == .cyclingPowerService)
    }

    @Test func timesConvertFromTheBtsnoopEpoch() {
        // 0x00DCDDB30F2F8000 µs after year 0 is the Unix epoch, as BlueZ, Android and Wireshark count.
        #expect(BtsnoopTime(microseconds: 0x00DC_DDB3_0F2F_8000).unixMicroseconds == 0)
        #expect(BtsnoopTime(microseconds: 63_868_256_000_250_000).secondsSince1970 == 1_700_000_000.25)
        #expect(BtsnoopTime(unixMicroseconds: 1_700_000_000_250_000).description == "2023-11-14T22:13:20.250000Z")
        #expect(BtsnoopTime(unixMicroseconds: -1).description == "1969-12-31T23:59:59.999999Z")
        #expect(
            BtsnoopTime(Date(timeIntervalSince1970: 1_700_000_000.000001)).unixMicroseconds == 1_700_000_000_000_001)
        #expect(BtsnoopTime(unixMicroseconds: 5).adding(.nanoseconds(1_499)).unixMicroseconds == 6)
    }
}
