import Foundation
import GATT
import SensorCore
import SensorTestSupport
import Testing

/// Random values survive encode → decode; random bytes never crash a decoder.
@Suite struct RoundTripAndFuzzTests {
    static let seed: UInt64 = 0x5EED_2A37

    @Test func randomValuesRoundTrip() throws {
        var rng = SplitMix64(seed: Self.seed)
        for _ in 0..<2000 {
            let hr = RandomMeasurements.heartRate(using: &rng)
            #expect(try HeartRateMeasurement(decoding: hr.encoded()) == hr)
            let cp = RandomMeasurements.cyclingPower(using: &rng)
            #expect(try CyclingPowerMeasurement(decoding: cp.encoded()) == cp)
            let cpv = RandomMeasurements.cyclingPowerVector(using: &rng)
            #expect(try CyclingPowerVector(decoding: cpv.encoded()) == cpv)
            let csc = RandomMeasurements.csc(using: &rng)
            #expect(try CSCMeasurement(decoding: csc.encoded()) == csc)
        }
    }

    /// Iterations: 20,000 per characteristic by default; `SENSORBRIDGE_FUZZ_ITERATIONS` for a long run.
    static var fuzzIterations: Int {
        ProcessInfo.processInfo.environment["SENSORBRIDGE_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 20_000
    }

    @Test(arguments: GATTValue.supportedUUIDs)
    func randomBytesNeverCrash(uuid: BluetoothUUID) {
        var rng = SplitMix64(seed: Self.seed ^ UInt64(uuid.shortValue ?? 0))
        var decoded = 0
        var failed = 0
        for _ in 0..<Self.fuzzIterations {
            let length = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do {
                let value = try GATTValue.decode(uuid: uuid, bytes: bytes)
                #expect(value?.uuid == uuid)
                #expect((value?.trailingByteCount ?? 0) <= length)
                decoded += 1
            } catch {
                #expect(error.offset >= 0 && error.offset <= length, "offset past the payload: \(error)")
                failed += 1
            }
        }
        #expect(decoded + failed == Self.fuzzIterations)
    }
}
