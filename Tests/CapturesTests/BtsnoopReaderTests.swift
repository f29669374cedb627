import Captures
import GATT
import SensorCore
import Testing

/// Captures built here, with `HCITrafficWriter` or byte by byte, read back with `BtsnoopReader`.
@Suite struct BtsnoopReaderTests {
    static let t0 = BtsnoopTime(unixMicroseconds: 1_700_000_000_000_000)
    static let strap = BluetoothAddress("C4:7E:11:22:33:44")!
    static let meter = BluetoothAddress("E8:FE:6E:91:9F:16")!

    static func at(_ milliseconds: Int64) -> BtsnoopTime {
        BtsnoopTime(microseconds: t0.microseconds + milliseconds * 1000)
    }

    static func read(_ bytes: [UInt8], assumedHandles: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError)
        -> (events: [CaptureEvent], statistics: CaptureStatistics)
    {
        let reader = try BtsnoopReader(bytes: bytes, assumedHandles: assumedHandles)
        var events: [CaptureEvent] = []
        while let event = try reader.next() { events.append(event) }
        return (events, reader.statistics)
    }

    static func notifications(_ events: [CaptureEvent]) -> [ATTNotification] {
        events.compactMap { if case .notification(let n) = $0.kind { return n } else { return nil } }
    }

    /// A heart-rate strap connected as 0x0040 and discovered; 2A37's value handle is 0x0012.
    static func strapSession(datalink: BtsnoopDatalink = .linuxMonitor, fragmentSize: Int = 251) -> HCITrafficWriter {
        var w = HCITrafficWriter(datalink: datalink)
        w.aclFragmentSize = fragmentSize
        w.addController(address: BluetoothAddress(0x001A_7DDA_7113), at: at(0))
        w.connect(handle: 0x0040, peer: strap, addressType: 0, at: at(0))
        w.discover(
            GATTServerLayout(characteristics: [.heartRateMeasurement, .bodySensorLocation], name: "HRM-Pro"),
            handle: 0x0040, at: at(1))
        return w
    }

    // MARK: - Fragments and connections

    @Test func fragmentedFramesAreReassembled() throws {
        let payloads: [[UInt8]] = [
            [0x10, 72] + (0..<20).map { UInt8($0) }, [0x00, 73], Array(repeating: 0x16, count: 40),
        ]
        func capture(fragmentSize: Int) throws -> (events: [CaptureEvent], statistics: CaptureStatistics) {
            var w = Self.strapSession(fragmentSize: fragmentSize)
            for (i, payload) in payloads.enumerated() {
                w.notify(handle: 0x0040, attribute: 0x0012, value: payload, at: Self.at(1000 + Int64(i)))
            }
            return try Self.read(w.takeBytes())
        }
        let whole = try capture(fragmentSize: 251)
        let (events, statistics) = try capture(fragmentSize: 5)
        #expect(events.map(\.kind) == whole.events.map(\.kind))
        #expect(events.map(\.time) == whole.events.map(\.time))
        let notifications = Self.notifications(events)
        #expect(notifications.map { Array($0.value) } == payloads)
        #expect(notifications.allSatisfy { $0.uuid == .heartRateMeasurement && $0.handle == 0x0012 })
        #expect(statistics.skipped == [:])
        // The same frames in 5-byte fragments: the notifications alone took 6 + 2 + 10 records, not 3.
        #expect(statistics.records - whole.statistics.records > 15)
    }

    @Test func interleavedFragmentsOfSeveralConnectionsAndDirections() throws {
        var w = HCITrafficWriter()
        w.aclFragmentSize = 27
        w.connect(handle: 0x0040, peer: Self.strap, addressType: 0, at: Self.at(0))
        w.connect(handle: 0x0041, peer: Self.meter, addressType: 0, at: Self.at(0))
        // Both servers put their first characteristic's value at 0x0012: 2A37 on one, 2A63 on the other.
        w.discover(GATTServerLayout(characteristics: [.heartRateMeasurement]), handle: 0x0040, at: Self.at(1))
        w.discover(GATTServerLayout(characteristics: [.cyclingPowerMeasurement]), handle: 0x0041, at: Self.at(1))
        let heart: [UInt8] = [0x10, 72] + Array(repeating: 0x03, count: 60)
        let power: [UInt8] = [0x20, 0x00, 0xFA, 0x00] + Array(repeating: 0x01, count: 50)
        let write: [UInt8] = [0x52, 0x20, 0x00] + Array(repeating: 0xEE, count: 87)  // a long Write Command going out
        let a = HCITrafficWriter.aclPackets(
            att: [0x1B, 0x12, 0x00] + heart, handle: 0x0040, direction: .received, fragmentSize: 27)
        let b = HCITrafficWriter.aclPackets(
            att: [0x1B, 0x12, 0x00] + power, handle: 0x0041, direction: .received, fragmentSize: 27)
        let c = HCITrafficWriter.aclPackets(att: write, handle: 0x0040, direction: .sent, fragmentSize: 27)
        #expect(a.count == 3 && b.count == 3 && c.count == 4)
        for i in 0..<4 {
            if i < b.count { w.acl(b[i], direction: .received, at: Self.at(10)) }
            if i < c.count { w.acl(c[i], direction: .sent, at: Self.at(10)) }
            if i < a.count { w.acl(a[i], direction: .received, at: Self.at(10)) }
        }
        let (events, statistics) = try Self.read(w.takeBytes())
        let notifications = Self.notifications(events)
        #expect(notifications.count == 2)
        #expect(notifications.map { Array($0.value) } == [power, heart])
        #expect(notifications.map(\.uuid) == [.cyclingPowerMeasurement, .heartRateMeasurement])
        #expect(notifications.map(\.connection.peer) == [Self.meter, Self.strap])
        #expect(statistics.skipped == [:])
    }

    @Test func otherDatalinksCarryTheSameSession() throws {
        var expected: [ATTNotification] = []
        for datalink in BtsnoopDatalink.allCases {
            var w = Self.strapSession(datalink: datalink, fragmentSize: 9)
            w.notify(handle: 0x0040, attribute: 0x0012, value: [0x16, 0x48, 0x00, 0x03], at: Self.at(1000))
            w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x49], indication: true, at: Self.at(2000))
            w.disconnect(handle: 0x0040, at: Self.at(3000))
            let bytes = w.takeBytes()
            #expect(bytes[12..<16] == [0, 0, UInt8(datalink.rawValue >> 8), UInt8(datalink.rawValue & 0xFF)])
            let (events, statistics) = try Self.read(bytes)
            var notifications = Self.notifications(events)
            #expect(notifications.count == 2, "\(datalink)")
            #expect(statistics.skipped == [:], "\(datalink)")
            #expect(events.filter { if case .disconnected = $0.kind { true } else { false } }.count == 1)
            // Monitor records name the controller; the others have controller 0 too.
            for i in notifications.indices { notifications[i].connection.number = 0 }
            if expected.isEmpty { expected = notifications } else { #expect(notifications == expected, "\(datalink)") }
        }
        #expect(expected.map(\.isIndication) == [false, true])
    }

    /// Records written out byte by byte from the format descriptions, independently of the writer.
    @Test func handWrittenH4AndUnencapsulatedRecords() throws {
        func file(_ datalink: UInt16, _ records: [(flags: UInt8, data: [UInt8])]) -> [UInt8] {
            var bytes = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, UInt8(datalink >> 8), UInt8(datalink & 0xFF)]
            for (i, record) in records.enumerated() {
                let n = UInt8(record.data.count)
                // Lengths, flags, drops, then 0x00E2E7D7273E7DC0 + i µs (2023-11-14T22:13:19Z + i µs).
                bytes += [0, 0, 0, n, 0, 0, 0, n, 0, 0, 0, record.flags, 0, 0, 0, 0]
                bytes += [0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x3E, 0x7D, 0xC0 + UInt8(i)]
                bytes += record.data
            }
            return bytes
        }
        // LE Connection Complete: handle 0x0041, central, random address C0:FF:EE:12:34:56.
        let connection: [UInt8] = [
            0x3E, 0x13, 0x01, 0x00, 0x41, 0x00, 0x00, 0x01, 0x56, 0x34, 0x12, 0xEE, 0xFF, 0xC0, 0x18, 0x00, 0x00, 0x00,
            0x2A, 0x00, 0x00,
        ]
        // ACL, handle 0x0041 first fragment (0x2041), 9 bytes; L2CAP 5 bytes on CID 4; notification of 0x0012: 00 48.
        let notification: [UInt8] = [0x41, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x1B, 0x12, 0x00, 0x00, 0x48]
        // H4: a type byte before each packet; flags bit 0 received, bit 1 command/event.
        let h4 = file(1002, [(3, [0x04] + connection), (1, [0x02] + notification)])
        // 1001: no type byte; the flags alone say event (3) or incoming data (1).
        let unencapsulated = file(1001, [(3, connection), (1, notification)])
        for bytes in [h4, unencapsulated] {
            let (events, statistics) = try Self.read(bytes, assumedHandles: [0x0012: .heartRateMeasurement])
            #expect(statistics.skipped == [:])
            #expect(events.count == 2)
            guard case .connected(let c) = events.first?.kind, case .notification(let n) = events.last?.kind else {
                Issue.record("expected a connection and a notification: \(events)")
                continue
            }
            #expect(c.peer == BluetoothAddress("C0:FF:EE:12:34:56") && c.handle == 0x0041 && c.peerAddressType == 1)
            #expect(
                n.connection == c && n.handle == 0x0012 && n.uuid == .heartRateMeasurement
                    && Array(n.value) == [0x00, 0x48])
            #expect(events.last?.time == BtsnoopTime(microseconds: 0x00E2_E7D7_273E_7DC1))
        }
    }

    // MARK: - Discovery

    /// A connected strap with no discovery, for discovery built by hand.
    static func bareConnection() -> HCITrafficWriter {
        var w = HCITrafficWriter()
        w.connect(handle: 0x0040, peer: strap, addressType: 0, at: at(0))
        return w
    }

    @Test func responsesArePairedWithTheirRequests() throws {
        var w = Self.bareConnection()
        // Read By Type for the Device Name (0x2A00), answered with a 7-byte entry that looks like a
        // characteristic declaration of 2A37 at 0x0012: it is a name, not a declaration.
        w.att([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A], handle: 0x0040, direction: .sent, at: Self.at(1))
        w.att(
            [0x09, 0x07, 0x03, 0x00, 0x10, 0x12, 0x00, 0x37, 0x2A], handle: 0x0040, direction: .received, at: Self.at(2)
        )
        // A characteristic-declaration response with no request before it: skipped.
        w.att(
            [0x09, 0x07, 0x21, 0x00, 0x10, 0x22, 0x00, 0x63, 0x2A], handle: 0x0040, direction: .received, at: Self.at(3)
        )
        // A request answered by an Error Response; the late response after it is unpaired.
        w.att([0x08, 0x20, 0x00, 0xFF, 0xFF, 0x03, 0x28], handle: 0x0040, direction: .sent, at: Self.at(4))
        w.att([0x01, 0x08, 0x20, 0x00, 0x0A], handle: 0x0040, direction: .received, at: Self.at(5))
        w.att(
            [0x09, 0x07, 0x31, 0x00, 0x10, 0x32, 0x00, 0x5B, 0x2A], handle: 0x0040, direction: .received, at: Self.at(6)
        )
        // A proper pair with a 128-bit characteristic UUID.
        let vendor = BluetoothUUID("6e400003-b5a3-f393-e0a9-e50e24dcca9e")!
        w.att([0x08, 0x40, 0x00, 0x4F, 0x00, 0x03, 0x28], handle: 0x0040, direction: .sent, at: Self.at(7))
        w.att(
            [0x09, 0x15, 0x41, 0x00, 0x10, 0x42, 0x00] + [
                0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x03, 0x00, 0x40, 0x6E,
            ],
            handle: 0x0040, direction: .received, at: Self.at(8))
        for attribute: UInt16 in [0x0012, 0x0022, 0x0032, 0x0042] {
            w.notify(handle: 0x0040, attribute: attribute, value: [0x00, 0x48], at: Self.at(10))
        }
        let reader = try BtsnoopReader(bytes: w.takeBytes())
        var events: [CaptureEvent] = []
        while let event = try reader.next() { events.append(event) }
        #expect(Self.notifications(events).map(\.uuid) == [nil, nil, nil, vendor])
        #expect(reader.statistics.skipped == [.unpairedResponse: 2, .undiscoveredHandle: 3])
        guard case .connected(let connection) = events.first?.kind else { return }
        #expect(reader.remoteDatabase(of: connection)?.name == "\u{10}\u{12}")  // up to the first NUL
    }

    @Test func serviceDiscoveryByUUIDAndFindInformation() throws {
        var w = Self.bareConnection()
        // Find By Type Value: primary service 0x1818 → 0x0020...0x002A.
        w.att([0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x18, 0x18], handle: 0x0040, direction: .sent, at: Self.at(1))
        w.att([0x07, 0x20, 0x00, 0x2A, 0x00], handle: 0x0040, direction: .received, at: Self.at(2))
        // Find Information over the service: 0x0022 is 2A63, 0x0023 the CCCD.
        w.att([0x04, 0x21, 0x00, 0x2A, 0x00], handle: 0x0040, direction: .sent, at: Self.at(3))
        w.att(
            [0x05, 0x01, 0x21, 0x00, 0x03, 0x28, 0x22, 0x00, 0x63, 0x2A, 0x23, 0x00, 0x02, 0x29], handle: 0x0040,
            direction: .received, at: Self.at(4))
        // A Multiple Handle Value Notification: 0x0022 (2 bytes), then 0x0023 (1 byte).
        w.att(
            [0x23, 0x22, 0x00, 0x02, 0x00, 0xAA, 0xBB, 0x23, 0x00, 0x01, 0x00, 0xCC], handle: 0x0040,
            direction: .received, at: Self.at(5))
        let reader = try BtsnoopReader(bytes: w.takeBytes())
        var events: [CaptureEvent] = []
        while let event = try reader.next() { events.append(event) }
        let notifications = Self.notifications(events)
        #expect(notifications.map { Array($0.value) } == [[0xAA, 0xBB], [0xCC]])
        #expect(notifications.map(\.uuid) == [.cyclingPowerMeasurement, BluetoothUUID(0x2902)])
        guard case .connected(let connection) = events.first?.kind else { return }
        #expect(
            reader.remoteDatabase(of: connection)?.services == [
                .init(handles: 0x0020...0x002A, uuid: .cyclingPowerService)
            ])
        #expect(reader.statistics.skipped == [:])
    }

    @Test func thisHostsOwnServerIsAnotherDatabase() throws {
        var w = Self.bareConnection()
        // The peer discovers this host's server (requests received, responses sent): 0x0012 is 2A19 there.
        w.att([0x08, 0x10, 0x00, 0x1F, 0x00, 0x03, 0x28], handle: 0x0040, direction: .received, at: Self.at(1))
        w.att([0x09, 0x07, 0x11, 0x00, 0x10, 0x12, 0x00, 0x19, 0x2A], handle: 0x0040, direction: .sent, at: Self.at(2))
        w.att([0x1B, 0x12, 0x00, 0x55], handle: 0x0040, direction: .sent, at: Self.at(3))
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(4))
        let (events, _) = try Self.read(w.takeBytes())
        let notifications = Self.notifications(events)
        #expect(notifications.map(\.direction) == [.sent, .received])
        #expect(notifications.map(\.uuid) == [.batteryLevel, nil])
    }

    @Test func aReconnectionKeepsThePeersDatabase() throws {
        var w = Self.strapSession()
        w.disconnect(handle: 0x0040, at: Self.at(100))
        // Back on another handle; no discovery this time (as with BlueZ's GATT cache).
        w.connect(handle: 0x0044, peer: Self.strap, addressType: 0, at: Self.at(200))
        w.notify(handle: 0x0044, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(300))
        let (events, statistics) = try Self.read(w.takeBytes())
        let notification = try #require(Self.notifications(events).first)
        #expect(notification.uuid == .heartRateMeasurement)
        #expect(notification.connection.handle == 0x0044 && notification.connection.number == 2)
        #expect(statistics.skipped == [:])
    }

    @Test func assumedHandlesFillWhatDiscoveryDidNotName() throws {
        var w = Self.strapSession()
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(10))
        w.notify(handle: 0x0040, attribute: 0x0099, value: [0x01], at: Self.at(11))
        let bytes = w.takeBytes()
        let plain = try Self.read(bytes)
        #expect(Self.notifications(plain.events).map(\.uuid) == [.heartRateMeasurement, nil])
        #expect(plain.statistics.skipped == [.undiscoveredHandle: 1])
        // The discovery in the capture wins over the assumption for 0x0012.
        let assumed = try Self.read(bytes, assumedHandles: [0x0012: .cscMeasurement, 0x0099: .batteryLevel])
        #expect(Self.notifications(assumed.events).map(\.uuid) == [.heartRateMeasurement, .batteryLevel])
        #expect(assumed.statistics.skipped == [:])
    }

    @Test func notesAndControllerRemoval() throws {
        var w = Self.strapSession()
        w.note("bluetoothd[512]: profiles/deviceinfo", ident: "bluetoothd", at: Self.at(5))
        w.writer.appendMonitor(.deleteIndex, adapter: 0, [], at: Self.at(6))
        let (events, _) = try Self.read(w.takeBytes())
        #expect(events.count == 3)
        #expect(events[1].kind == .note(ident: "bluetoothd", message: "bluetoothd[512]: profiles/deviceinfo"))
        guard case .disconnected(let connection, let reason) = events[2].kind else {
            Issue.record("no disconnection when the controller went away")
            return
        }
        #expect(connection.peer == Self.strap && reason == nil)
    }

    // MARK: - Bad input

    static let header = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x07, 0xD1]

    static func expectError(
        _ bytes: [UInt8], _ kind: BtsnoopError.Kind, record: Int, mentions: String, eventsBefore: Int = 0
    ) {
        var events = 0
        do {
            let reader = try BtsnoopReader(bytes: bytes)
            while try reader.next() != nil { events += 1 }
            Issue.record("expected \(kind)")
        } catch {
            #expect(error.kind == kind)
            #expect(error.record == record)
            #expect(error.description.contains(mentions), "\(error)")
        }
        #expect(events == eventsBefore)
    }

    @Test func fileProblemsAreTypedErrors() {
        Self.expectError([], .truncatedHeader, record: 0, mentions: "empty")
        Self.expectError(Array(Self.header.prefix(10)), .truncatedHeader, record: 0, mentions: "10 bytes")
        Self.expectError(
            Array("btsnoOp\0".utf8) + Self.header.suffix(8), .badMagic, record: 0, mentions: "not a btsnoop file")
        Self.expectError(
            Array(Self.header.prefix(8)) + [0, 0, 0, 2, 0, 0, 0x07, 0xD1], .unsupportedVersion, record: 0,
            mentions: "version 2")
        Self.expectError(
            Array(Self.header.prefix(12)) + [0, 0, 0x03, 0xEB], .unknownDatalink, record: 0, mentions: "1003")
        // A record that claims 4 GiB: refused before anything is allocated.
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 16)
        Self.expectError(Self.header + huge, .recordTooLong, record: 1, mentions: "longer than any HCI packet")
        let inverted: [UInt8] = [0, 0, 0, 2, 0, 0, 0, 4] + [UInt8](repeating: 0, count: 16) + [1, 2, 3, 4]
        Self.expectError(
            Self.header + inverted, .badRecordLength, record: 1, mentions: "includes 4 bytes of a 2-byte packet")
    }

    @Test func aCaptureCutShortYieldsEverythingBeforeTheCut() throws {
        var w = Self.strapSession()
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(10))
        let whole = w.takeBytes()
        let events = try Self.read(whole).events.count  // connected, notification
        #expect(events == 2)
        // Cut inside the last record's data, then inside its header.
        Self.expectError(
            Array(whole.dropLast(3)), .truncatedRecord, record: try Self.read(whole).statistics.records,
            mentions: "cut short", eventsBefore: 1)
        let lastRecordSize = 24 + 4 + 4 + 3 + 2
        Self.expectError(
            Array(whole.dropLast(lastRecordSize - 10)), .truncatedRecord,
            record: try Self.read(whole).statistics.records, mentions: "10 bytes into", eventsBefore: 1)
    }

    @Test func brokenPacketsAreCountedAndSkipped() throws {
        var w = Self.strapSession()
        let notification = HCITrafficWriter.aclPackets(
            att: [0x1B, 0x12, 0x00, 0x00, 0x48, 0x01, 0x02], handle: 0x0040, direction: .received, fragmentSize: 4)
        #expect(notification.count == 3)
        // A continuation with no start before it.
        w.acl(notification[1], direction: .received, at: Self.at(10))
        // A start, then another start before the first frame is complete.
        w.acl(notification[0], direction: .received, at: Self.at(11))
        w.acl(notification[0], direction: .received, at: Self.at(12))
        w.acl(notification[1], direction: .received, at: Self.at(12))
        w.acl(notification[2], direction: .received, at: Self.at(12))
        // A start, then more continuation bytes than its L2CAP length.
        w.acl(notification[0], direction: .received, at: Self.at(13))
        w.acl(notification[1], direction: .received, at: Self.at(13))
        w.acl([0x40, 0x10, 0x05, 0x00, 1, 2, 3, 4, 5], direction: .received, at: Self.at(13))
        // An ACL header whose length disagrees with the record, and an ATT PDU too short.
        w.acl([0x40, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00], direction: .received, at: Self.at(14))
        w.att([0x1B, 0x12], handle: 0x0040, direction: .received, at: Self.at(15))
        // A packet the capture kept only the start of.
        w.writer.append(
            BtsnoopRecord(flags: 5, time: Self.at(16), data: Array(notification[0].prefix(4)), originalLength: 8))
        let (events, statistics) = try Self.read(w.takeBytes())
        #expect(Self.notifications(events).map { Array($0.value) } == [[0x00, 0x48, 0x01, 0x02]])
        #expect(
            statistics.skipped == [
                .fragmentWithoutStart: 1, .incompleteFrame: 1, .oversizedFrame: 1, .malformedPacket: 1,
                .malformedATT: 1,
                .snappedPacket: 1,
            ])
        #expect(statistics.summary?.contains("1 fragment without a start") == true)
    }

    @Test func controllersComeAndGoBeyondTheTableLimit() throws {
        // 600 controllers, one link each, one after the other: the tables of gone links are reused.
        var w = HCITrafficWriter()
        for adapter in UInt16(0)..<600 {
            w.adapter = adapter
            w.connect(
                handle: 0x0040, peer: BluetoothAddress(UInt64(adapter) + 1), addressType: 0, at: Self.at(Int64(adapter))
            )
            w.notify(handle: 0x0040, attribute: 0x0012, value: [UInt8(adapter & 0xFF)], at: Self.at(Int64(adapter)))
            w.disconnect(handle: 0x0040, at: Self.at(Int64(adapter)))
        }
        let (events, statistics) = try Self.read(w.takeBytes(), assumedHandles: [0x0012: .batteryLevel])
        let notifications = Self.notifications(events)
        #expect(events.count == 1800)
        #expect(notifications.map(\.connection.adapter) == Array(0..<600))
        #expect(notifications.allSatisfy { $0.connection.peer == BluetoothAddress(UInt64($0.connection.adapter) + 1) })
        #expect(statistics.skipped == [:])
    }

    @Test func connectionsBeyondTheLimitAreCounted() throws {
        var w = HCITrafficWriter()
        for i in 0..<513 {
            w.connect(handle: UInt16(i), peer: BluetoothAddress(UInt64(i + 1)), addressType: 0, at: Self.at(0))
        }
        let (events, statistics) = try Self.read(w.takeBytes())
        #expect(events.count == 512)
        #expect(statistics.skipped == [.connectionLimit: 1])
    }
}
