import Captures
import Foundation
import GATT
import SensorCore
import Testing

/// Traces to btsnoop and back, and btsnoop captures without notes read as traces.
@Suite struct BtsnoopTraceTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Captures").standardized

    /// A trace written with `BtsnoopTraceWriter` and read back with `BtsnoopTraceReader`.
    static func roundTrip(_ trace: Trace) throws -> (trace: Trace, statistics: CaptureStatistics) {
        var characteristics: [String: [BluetoothUUID]] = [:]
        for record in trace.records { BtsnoopTraceWriter.collect(record, into: &characteristics) }
        var writer = try BtsnoopTraceWriter(header: trace.header, characteristics: characteristics)
        for record in trace.records { try writer.append(record) }
        let reader = try BtsnoopTraceReader(bytes: writer.takeBytes())
        var records: [TraceRecord] = []
        while let record = try reader.next() { records.append(record) }
        return (Trace(header: reader.header, records: records), reader.statistics)
    }

    @Test func multisportTraceRoundTripsLosslessly() throws {
        let original = try TraceReader.read(
            contentsOf: Self.captures.appendingPathComponent("multisport-bike-run.jsonl"))
        #expect(original.notificationCount == 3440)
        let (copy, statistics) = try Self.roundTrip(original)
        #expect(copy == original)
        #expect(statistics.skipped == [:])
    }

    @Test func everyKindOfRecordRoundTripsToTheMicrosecond() throws {
        let header = TraceHeader(
            start: Date(timeIntervalSince1970: 1_795_935_600.125),
            devices: [
                "hr": TraceDevice(name: "HRM-Pro \u{1F493}", address: "C4:7E:11:22:33:44"), "power": TraceDevice(),
            ])
        let vendor = BluetoothUUID("6e400003-b5a3-f393-e0a9-e50e24dcca9e")!
        let records: [TraceRecord] = [
            .event(time: .zero, .activity(type: "cycling")),
            .notification(
                time: .microseconds(1), device: "hr", uuid: .heartRateMeasurement, bytes: [0x16, 0x48, 0x00, 0x03]),
            .notification(
                time: .microseconds(250_001), device: "power", uuid: .cyclingPowerMeasurement,
                bytes: [0x20, 0, 0xFA, 0]),
            // A device the header does not list, a 128-bit characteristic, a value that needs fragments.
            .notification(
                time: .milliseconds(300), device: "kickr", uuid: vendor, bytes: [UInt8](repeating: 7, count: 400)),
            .notification(time: .milliseconds(300), device: "kickr", uuid: .batteryLevel, bytes: []),
            .event(time: .seconds(1), .lap),
            .event(time: .seconds(2), .pause),
            .event(time: .seconds(3), .resume),
            .event(time: .seconds(4), .disconnected(device: "power")),
            // A notification while the trace says the link is down, a connected event on a link that is up.
            .notification(
                time: .seconds(5), device: "power", uuid: .cyclingPowerMeasurement, bytes: [0x20, 0, 0xFB, 0]),
            .event(time: .seconds(6), .connected(device: "hr")),
            .event(time: .seconds(7), .disconnected(device: "hr")),
            .event(time: .seconds(8), .connected(device: "hr")),
            .notification(time: .seconds(8), device: "hr", uuid: .heartRateMeasurement, bytes: [0x00, 0x49]),
            .event(time: .seconds(9), .activity(type: "running")),
            .event(time: .seconds(10), .end),
        ]
        let trace = Trace(header: header, records: records)
        let (copy, statistics) = try Self.roundTrip(trace)
        #expect(copy.header == header)
        #expect(copy.records == records)
        #expect(statistics.skipped == [:])
    }

    @Test func aValueTooLongForANotificationIsRefused() throws {
        let header = TraceHeader(start: Date(timeIntervalSince1970: 0), devices: [:])
        let record = TraceRecord.notification(
            time: .zero, device: "hr", uuid: .heartRateMeasurement, bytes: [UInt8](repeating: 0, count: 515))
        var writer = try BtsnoopTraceWriter(header: header, characteristics: ["hr": [.heartRateMeasurement]])
        #expect(throws: CaptureError.self) { try writer.append(record) }
        #expect(throws: CaptureError.self) {
            try writer.append(.notification(time: .zero, device: "power", uuid: .heartRateMeasurement, bytes: []))
        }
    }

    // MARK: - Captures without notes (btmon, Android)

    static let t0 = BtsnoopTime(unixMicroseconds: 1_700_000_000_123_456)
    static func at(_ seconds: Double) -> BtsnoopTime { t0.adding(.milliseconds(Int64(seconds * 1000))) }

    static func read(_ bytes: [UInt8], assumedHandles: [UInt16: BluetoothUUID] = [:]) throws -> (
        header: TraceHeader, records: [TraceRecord], statistics: CaptureStatistics
    ) {
        let reader = try BtsnoopTraceReader(bytes: bytes, assumedHandles: assumedHandles)
        var records: [TraceRecord] = []
        while let record = try reader.next() { records.append(record) }
        return (reader.header, records, reader.statistics)
    }

    @Test func devicesAreKeyedByServiceAndLinkEventsBecomeEvents() throws {
        let strap = BluetoothAddress("C4:7E:11:22:33:44")!
        let meter = BluetoothAddress("E8:FE:6E:91:9F:16")!
        let secondStrap = BluetoothAddress("C4:7E:11:22:33:55")!
        var w = HCITrafficWriter()
        w.addController(address: BluetoothAddress(0x001A_7DDA_7113), at: Self.t0)
        w.connect(handle: 0x0040, peer: strap, addressType: 0, at: Self.at(0.5))
        w.discover(
            GATTServerLayout(characteristics: [.heartRateMeasurement], name: "HRM-Pro"), handle: 0x0040,
            at: Self.at(0.5))
        w.connect(handle: 0x0041, peer: meter, addressType: 0, at: Self.at(0.6))
        // The power meter's server also has a Heart Rate service; Cycling Power names it.
        w.discover(
            GATTServerLayout(characteristics: [.heartRateMeasurement, .cyclingPowerMeasurement]), handle: 0x0041,
            at: Self.at(0.6))
        w.connect(handle: 0x0042, peer: secondStrap, addressType: 0, at: Self.at(0.7))
        w.discover(GATTServerLayout(characteristics: [.heartRateMeasurement]), handle: 0x0042, at: Self.at(0.7))
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(1))
        w.notify(handle: 0x0041, attribute: 0x0022, value: [0x20, 0x00, 0xFA, 0x00], at: Self.at(1))
        w.notify(handle: 0x0042, attribute: 0x0012, value: [0x00, 0x50], at: Self.at(1))
        w.disconnect(handle: 0x0041, at: Self.at(2))
        w.connect(handle: 0x0041, peer: meter, addressType: 0, at: Self.at(3))
        w.notify(handle: 0x0041, attribute: 0x0022, value: [0x20, 0x00, 0xFB, 0x00], at: Self.at(4))
        // A timestamp that goes backwards takes the time before it.
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x49], at: Self.at(3.5))
        let (header, records, statistics) = try Self.read(w.takeBytes())
        // The trace starts at the first record, on a whole millisecond.
        #expect(header.start == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(header.devices["hr"] == TraceDevice(name: "HRM-Pro", address: "C4:7E:11:22:33:44"))
        #expect(header.devices["power"] == TraceDevice(name: nil, address: "E8:FE:6E:91:9F:16"))
        #expect(header.devices["hr2"] == TraceDevice(name: nil, address: "C4:7E:11:22:33:55"))
        let offset = Duration.microseconds(456)
        #expect(
            records == [
                .notification(
                    time: .seconds(1) + offset, device: "hr", uuid: .heartRateMeasurement, bytes: [0x00, 0x48]),
                .notification(
                    time: .seconds(1) + offset, device: "power", uuid: .cyclingPowerMeasurement,
                    bytes: [0x20, 0x00, 0xFA, 0x00]),
                .notification(
                    time: .seconds(1) + offset, device: "hr2", uuid: .heartRateMeasurement, bytes: [0x00, 0x50]),
                .event(time: .seconds(2) + offset, .disconnected(device: "power")),
                .event(time: .seconds(3) + offset, .connected(device: "power")),
                .notification(
                    time: .seconds(4) + offset, device: "power", uuid: .cyclingPowerMeasurement,
                    bytes: [0x20, 0x00, 0xFB, 0x00]),
                .notification(
                    time: .seconds(4) + offset, device: "hr", uuid: .heartRateMeasurement, bytes: [0x00, 0x49]),
            ])
        #expect(statistics.skipped == [:])
    }

    @Test func withoutDiscoveryTheCharacteristicNamesTheDevice() throws {
        var w = HCITrafficWriter()
        w.connect(handle: 0x0040, peer: BluetoothAddress("C4:7E:11:22:33:44")!, addressType: 0, at: Self.t0)
        // Traffic on a link whose connection the capture missed.
        w.notify(handle: 0x0041, attribute: 0x0030, value: [0x01], at: Self.at(1))
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(1))
        w.notify(handle: 0x0040, attribute: 0x0013, value: [0x00], at: Self.at(1))
        let (header, records, statistics) = try Self.read(
            w.takeBytes(), assumedHandles: [0x0012: .heartRateMeasurement, 0x0030: .batteryLevel])
        #expect(
            records.map { if case .notification(_, let device, _, _) = $0 { device } else { "" } } == [
                "connection-2", "hr",
            ])
        #expect(header.devices.keys.sorted() == ["connection-2", "hr"])
        #expect(statistics.skipped == [.undiscoveredHandle: 1])
    }

    @Test func aCaptureCutShortEndsTheTraceAndAnyOtherDamageThrows() throws {
        var w = HCITrafficWriter()
        w.connect(handle: 0x0040, peer: BluetoothAddress("C4:7E:11:22:33:44")!, addressType: 0, at: Self.t0)
        w.discover(GATTServerLayout(characteristics: [.heartRateMeasurement]), handle: 0x0040, at: Self.t0)
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x48], at: Self.at(1))
        w.notify(handle: 0x0040, attribute: 0x0012, value: [0x00, 0x49], at: Self.at(2))
        let bytes = w.takeBytes()
        let (_, records, statistics) = try Self.read(Array(bytes.dropLast(2)))
        #expect(records.count == 1)
        #expect(statistics.skipped == [.cutShort: 1])
        // A record longer than any packet: the file is corrupt, not cut short.
        var corrupt = Array(bytes.dropLast(37))
        corrupt += [0, 0x10, 0, 0, 0, 0x10, 0, 0] + [UInt8](repeating: 0, count: 16)
        #expect(throws: BtsnoopError.self) { try Self.read(corrupt) }
    }

    @Test func malformedSensorBridgeNotesAreCounted() throws {
        var w = HCITrafficWriter()
        w.note("{\"event\":\"jump\"}", ident: "sensorbridge", at: Self.t0)
        w.note("{\"event\":\"lap\"}", ident: "sensorbridge", at: Self.at(1))
        w.note("not json", ident: "sensorbridge", at: Self.at(2))
        w.note("{\"event\":\"lap\"}", ident: "someone-else", at: Self.at(3))
        let (_, records, statistics) = try Self.read(w.takeBytes())
        #expect(records == [.event(time: .seconds(1) + .microseconds(456), .lap)])
        #expect(statistics.skipped == [.malformedNote: 2])
    }
}
