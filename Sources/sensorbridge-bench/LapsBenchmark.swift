// `sensorbridge-bench laps`: the figures of every lap of a long ride with `--auto-lap 10s`
// (SyntheticRide: 24 hours, 8,640 laps, 691,200 samples), as `workouts show` and the JSON work
// them out, and its FIT export, which sums each lap too (issue 31: these once cost laps × samples).
// CPU time of one run each. Prints {"laps", "lapSummariesSeconds", "fitSeconds"} with --json.
import Export
import Foundation
import SensorCore
import SensorTestSupport
import Workouts
import Zones

enum LapsBenchmark {
    static func run(json: Bool) {
        let hours = 24
        guard
            let workout = try? SyntheticRide.workout(
                seconds: hours * 3600, seed: 31, startDate: Date(timeIntervalSince1970: 1_793_640_600), lapSeconds: 10)
        else { fatalError("the synthetic ride did not build") }
        var start = Bench.threadCPUTime()
        let summaries = workout.lapSummaries()
        let lapSeconds = (Bench.threadCPUTime() - start).seconds
        Bench.blackHole(summaries)
        let encoder = FITActivityEncoder(profile: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250))
        start = Bench.threadCPUTime()
        let size = encoder.encode(workout).count
        let fitSeconds = (Bench.threadCPUTime() - start).seconds
        if json {
            Bench.printJSON([
                "laps": .number(Double(summaries.count)), "samples": .number(Double(workout.samples.count)),
                "lapSummariesSeconds": .number(lapSeconds), "fitSeconds": .number(fitSeconds),
            ])
        } else {
            print("\(hours)-hour ride, \(summaries.count) laps, \(workout.samples.count) samples:")
            print(String(format: "  lap summaries (workouts show, JSON): %.3f s CPU", lapSeconds))
            print(String(format: "  FIT export (%d bytes): %.3f s CPU", size, fitSeconds))
        }
    }
}
