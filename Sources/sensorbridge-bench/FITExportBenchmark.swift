// `sensorbridge-bench export`: FIT export of a 3-hour ride (SyntheticRide: heart rate 1 Hz with RR
// intervals, power and cadence 4 Hz, 18 laps, two pauses). Beside it, in the same run, the
// obvious alternative for the bulk of the file: the same 10,800 records' field values appended
// one by one to a Foundation `Data` (no definitions, laps, zones or CRC: a floor, not an encoder).
// Prints {"fitSeconds", "fitBytesPerSecond", "dataAppendSeconds", "ratio"} with --json.
import Export
import Foundation
import SensorCore
import SensorTestSupport
import Workouts
import Zones

enum FITExportBenchmark {
    static func run(json: Bool) {
        let profile = AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)
        guard
            let workout = try? SyntheticRide.workout(
                seconds: 3 * 3600, seed: 9, startDate: Date(timeIntervalSince1970: 1_793_640_600))
        else { fatalError("the synthetic ride did not build") }
        let encoder = FITActivityEncoder(profile: profile)
        var size = 0
        let fitRate = Bench.rate(batch: 1, seconds: 1, rounds: 3) {
            size = encoder.encode(workout).count
            return size
        }

        // Per-second values, held as the encoder holds them, computed once outside the timing.
        var values: [(UInt32, UInt8, UInt8, UInt16)] = []
        var latest: [QuantityType: Double] = [:]
        var index = 0
        for second in 0..<(3 * 3600) {
            let time = workout.start + .seconds(second)
            while index < workout.samples.count, workout.samples[index].time <= time {
                latest[workout.samples[index].type] = workout.samples[index].value
                index += 1
            }
            values.append((
                UInt32(second), UInt8(latest[.heartRate] ?? 255), UInt8(latest[.cyclingCadence] ?? 255),
                UInt16(max(0, latest[.cyclingPower] ?? 0))
            ))
        }
        let dataRate = Bench.rate(batch: 1, seconds: 1, rounds: 3) {
            var data = Data()
            for (timestamp, heartRate, cadence, power) in values {
                data.append(0)
                withUnsafeBytes(of: timestamp.littleEndian) { data.append(contentsOf: $0) }
                data.append(heartRate)
                data.append(cadence)
                withUnsafeBytes(of: UInt16(0xFFFF).littleEndian) { data.append(contentsOf: $0) }
                withUnsafeBytes(of: power.littleEndian) { data.append(contentsOf: $0) }
                data.append(0xFF)
            }
            return data.count
        }
        let fitSeconds = 1 / fitRate
        let dataSeconds = 1 / dataRate
        if json {
            Bench.printJSON([
                "fitSeconds": .number(fitSeconds), "fitBytes": .number(Double(size)),
                "fitBytesPerSecond": .number(Double(size) / fitSeconds), "dataAppendSeconds": .number(dataSeconds),
                "ratio": .number(fitSeconds / dataSeconds),
            ])
        } else {
            print(String(format: "FIT export, 3-hour ride: %.1f ms for %d bytes (%.1f MB/s)", fitSeconds * 1000, size, Double(size) / fitSeconds / 1e6))
            print(String(format: "records' values appended to Data: %.1f ms (FIT encoder takes %.1f x that)", dataSeconds * 1000, fitSeconds / dataSeconds))
        }
    }
}
