@testable import Session
import SensorCore
import Testing

@testable import SensorBridge
import Outputs

@Suite struct LatencyProbeTests {
    /// A payload with `stamp` appended as the mock's --stamp does: 8 bytes, little-endian.
    static func stamped(_ payload: [UInt8], _ stamp: UInt64) -> [UInt8] {
        payload + (0..<8).map { UInt8(truncatingIfNeeded: stamp >> (8 * UInt64($0))) }
    }

    @Test func eachAppliedSampleTakesItsNotificationsStampInOrder() {
        let probe = LatencyProbe()
        let now = LatencyProbe.monotonicNanoseconds()
        // Stamped 2 s and 1 s ago; the first notification gave two samples (power and cadence).
        probe.received(Self.stamped([0x06, 0x78], now - 2_000_000_000), samples: 2)
        probe.received(Self.stamped([0x06, 0x79], now - 1_000_000_000), samples: 1)
        probe.received([0x06], samples: 1)  // too short to carry a stamp: not measured
        let sample = SessionItem.sample(Sample(sensor: SensorID(1), type: .heartRate, value: 120, time: .zero))
        let control = SessionItem.control(SessionControl(.lap, at: .zero))
        probe.applied([sample, control, sample][...])
        probe.applied([sample][...])
        let latencies = probe.latencies
        #expect(latencies.count == 3)
        #expect(latencies[0] >= 2_000_000_000 && latencies[1] >= 2_000_000_000)
        #expect(latencies[2] >= 1_000_000_000 && latencies[2] < latencies[0])
    }
}
