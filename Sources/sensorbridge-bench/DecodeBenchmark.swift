import Foundation
import GATT
import SensorCore

/// `sensorbridge-bench decode`: decoded notifications per second on one core for typical
/// payloads, beside the obvious alternative (a decoder over Foundation `Data` that builds a
/// `[String: Double]` per notification, as many apps do).
enum DecodeBenchmark {
    /// Heart rate 72 bpm with contact and two RR intervals.
    static let hrWithRR: [[UInt8]] = [[0x16, 0x48, 0x00, 0x03, 0x10, 0x03], [0x16, 0x49, 0x20, 0x03, 0x08, 0x03]]
    /// 250 W with crank revolution data.
    static let cpWithCrank: [[UInt8]] = [
        [0x20, 0x00, 0xFA, 0x00, 0x2A, 0x00, 0x00, 0x28], [0x20, 0x00, 0xFB, 0x00, 0x2B, 0x00, 0xAB, 0x2A],
    ]
    /// Every optional field of the Cycling Power Measurement.
    static let cpAllFields: [[UInt8]] = [
        [
            0xFF, 0x1F, 0x2C, 0x01, 0x65, 0x40, 0x06, 0x10, 0x27, 0x00, 0x00, 0x00, 0x08, 0x64, 0x00, 0x00, 0x02, 0xF4,
            0x01, 0x38, 0xFF, 0x40, 0x01, 0xE0, 0xFF, 0xBC, 0x3A, 0x12, 0x0A, 0x00, 0xBE, 0x00, 0xD2, 0x04,
        ]
    ]

    static func measure(_ payloads: [[UInt8]], _ decode: ([UInt8]) -> Int) -> Double {
        let batch = 10_000
        return Bench.rate(batch: batch) {
            var sum = 0
            for i in 0..<batch { sum &+= decode(payloads[i & (payloads.count - 1)]) }
            return sum
        }
    }

    static func sensorBridgeHR(_ bytes: [UInt8]) -> Int {
        guard let m = try? HeartRateMeasurement(decoding: bytes) else { return 0 }
        return Int(m.heartRate) &+ m.rrIntervals.count
    }

    static func sensorBridgeCP(_ bytes: [UInt8]) -> Int {
        guard let m = try? CyclingPowerMeasurement(decoding: bytes) else { return 0 }
        return Int(m.instantaneousPower) &+ Int(m.crankRevolutionData?.cumulativeRevolutions ?? 0)
    }

    /// The obvious alternative: `Data` plus a dictionary of named doubles.
    static func dictionaryDecode(_ bytes: [UInt8], heartRate: Bool) -> Int {
        let data = Data(bytes)
        var fields: [String: Double] = [:]
        func u16(_ at: Int) -> Double? {
            at + 1 < data.count ? Double(UInt16(data[at]) | UInt16(data[at + 1]) << 8) : nil
        }
        if heartRate {
            let flags = data[0]
            var at = 1
            fields["heartRate"] = flags & 1 != 0 ? u16(at) : Double(data[at])
            at += flags & 1 != 0 ? 2 : 1
            if flags & 0x08 != 0 { fields["energyExpended"] = u16(at); at += 2 }
            var rr: [Double] = []
            while flags & 0x10 != 0, let v = u16(at) { rr.append(v / 1024); at += 2 }
            fields["rrCount"] = Double(rr.count)
        } else {
            guard let flags = u16(0), let power = u16(2) else { return 0 }
            fields["instantaneousPower"] = Double(Int16(bitPattern: UInt16(power)))
            var at = 4
            let f = UInt16(flags)
            let sizes: [(UInt16, String, Int)] = [
                (0x0001, "pedalPowerBalance", 1), (0x0004, "accumulatedTorque", 2), (0x0010, "wheel", 6),
                (0x0020, "crankRevolutions", 4), (0x0040, "force", 4), (0x0080, "torque", 4), (0x0100, "angles", 3),
                (0x0200, "topDeadSpotAngle", 2), (0x0400, "bottomDeadSpotAngle", 2), (0x0800, "accumulatedEnergy", 2),
            ]
            for (bit, name, size) in sizes where f & bit != 0 {
                guard at + size <= data.count else { return 0 }
                fields[name] = size == 1 ? Double(data[at]) : u16(at)
                at += size
            }
        }
        return fields.count
    }

    static func run(json: Bool) {
        let results: [(name: String, ours: Double, alternative: Double)] = [
            ("hrWithRR", measure(hrWithRR, sensorBridgeHR), measure(hrWithRR) { dictionaryDecode($0, heartRate: true) }),
            (
                "cpWithCrank", measure(cpWithCrank, sensorBridgeCP),
                measure(cpWithCrank) { dictionaryDecode($0, heartRate: false) }
            ),
            (
                "cpAllFields", measure(cpAllFields, sensorBridgeCP),
                measure(cpAllFields) { dictionaryDecode($0, heartRate: false) }
            ),
        ]
        if json {
            var object = JSONObject()
            for r in results {
                object.append(
                    r.name,
                    .object([
                        "perSecond": .number(r.ours.rounded()), "dictionaryDecoderPerSecond": .number(r.alternative.rounded()),
                        "ratio": .number((r.ours / r.alternative * 10).rounded() / 10),
                    ]))
            }
            Bench.printJSON(object)
        } else {
            print("decode: notifications decoded per second, one core (best of 5 rounds)")
            print("payload        SensorBridge    Data+dictionary   ratio")
            for r in results {
                print(
                    r.name.padding(toLength: 15, withPad: " ", startingAt: 0)
                        + Bench.humanRate(r.ours).padding(toLength: 16, withPad: " ", startingAt: 0)
                        + Bench.humanRate(r.alternative).padding(toLength: 18, withPad: " ", startingAt: 0)
                        + String(format: "%.1fx", r.ours / r.alternative))
            }
        }
    }
}
