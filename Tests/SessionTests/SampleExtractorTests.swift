import GATT
import SensorCore
import Session
import Testing

/// What a power meter's revolution counters make of cadence: the rate at each new revolution,
/// and between revolutions the rate held (`Sample.isHeld`), which auto-pause takes for no movement.
struct SampleExtractorTests {
    /// A Cycling Power Measurement with crank revolution data: `watts`, the cumulative crank
    /// revolutions and the last crank event time (1/1024 s).
    static func power(_ watts: UInt16, revolutions: UInt16, eventTime: UInt16) throws -> GATTValue {
        let bytes: [UInt8] = [0x20, 0x00, UInt8(watts & 0xFF), UInt8(watts >> 8), UInt8(revolutions & 0xFF), UInt8(revolutions >> 8),
            UInt8(eventTime & 0xFF), UInt8(eventTime >> 8)]
        return try #require(try GATTValue.decode(uuid: BluetoothUUID(0x2A63), bytes: bytes))
    }

    @Test func aCadenceTheCounterDidNotMoveForIsHeld() throws {
        var extractor = SampleExtractor(sensor: SensorID(2))
        var samples: [Sample] = []
        // 4 notifications a second; a revolution every 2/3 s (90 rpm) until the last one at 2 s,
        // then the counter stays.
        let notifications: [(t: Double, revolutions: UInt16, eventTime: UInt16)] = [
            (0, 10, 0), (0.25, 10, 0), (0.5, 11, 683), (0.75, 11, 683), (1.0, 12, 1365), (1.25, 12, 1365),
            (1.5, 13, 2048), (1.75, 13, 2048), (2.0, 14, 2731), (2.25, 14, 2731), (2.5, 14, 2731), (5.25, 14, 2731),
        ]
        for n in notifications {
            let time = Duration.milliseconds(Int64(n.t * 1000))
            extractor.extract(try Self.power(n.t <= 2 ? 200 : 0, revolutions: n.revolutions, eventTime: n.eventTime), at: time, into: &samples)
        }
        let cadence = samples.filter { $0.type == .cyclingCadence }
        // From the first new revolution on (no rate before two events): new revolutions at 0.5,
        // 1.0, 1.5 and 2.0 s, held otherwise; 0 once the crank has been still for 3 s.
        #expect(cadence.map(\.time.seconds) == [0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 5.25])
        #expect(cadence.map(\.isHeld) == [false, true, false, true, false, true, false, true, true, true])
        #expect(cadence.filter { !$0.isHeld }.allSatisfy { abs($0.value - 90) < 0.5 })
        #expect(cadence.last?.value == 0)
        #expect(samples.filter { $0.type == .cyclingPower }.allSatisfy { !$0.isHeld })
    }
}
