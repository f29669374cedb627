import Foundation
import SensorCore
import Testing
import Workouts

@testable import Export

/// FIT workout files (`workout`, `workout_step`) read into plans. The files are made here with
/// the FIT writer and checked by Garmin's own SDK first, so the fixture is what Garmin's tools read.
@Suite(.enabled(if: FITCheck.unavailableReason == nil, "\(FITCheck.unavailableReason ?? "")"))
struct FITWorkoutFileTests {
    /// A step: name, duration type and value, target type and value, custom low and high.
    typealias Step = (name: String?, duration: Int, value: Int?, target: Int, targetValue: Int?, low: Int?, high: Int?)

    static func file(_ steps: [Step], name: String = "Threshold", sport: Int = 2, fileType: Int = 5) -> [UInt8] {
        var writer = FITWriter()
        var fileID = FITMessage(0)
        fileID.add(0, .enum, fileType)
        fileID.add(1, .uint16, 255)
        fileID.add(4, .uint32, 1_100_000_000)
        writer.write(fileID)
        var workout = FITMessage(26)
        workout.add(4, .enum, sport)
        workout.add(6, .uint16, steps.count)
        workout.add(8, string: name, size: 16)
        writer.write(workout)
        for (index, step) in steps.enumerated() {
            var m = FITMessage(27)
            m.add(254, .uint16, index)
            m.add(0, string: step.name ?? "", size: 16)
            m.add(1, .enum, step.duration)
            m.add(2, .uint32, step.value)
            m.add(3, .enum, step.target)
            m.add(4, .uint32, step.targetValue)
            m.add(5, .uint32, step.low)
            m.add(6, .uint32, step.high)
            writer.write(m)
        }
        return writer.bytes()
    }

    /// Warm-up 10 min in power zone 2; 3 × (5 min at 250-270 W at 90-100 rpm, 3 min at 55-60 % FTP);
    /// 5 min at 140-150 bpm; a step open until the lap key in heart-rate zone 1.
    static let steps: [Step] = [
        ("Warm-up", 0, 600_000, 4, 2, nil, nil),
        ("On", 0, 300_000, 4, 0, 1250, 1270),
        ("Off", 0, 180_000, 4, 0, 55, 60),
        (nil, 6, 1, 2, 3, nil, nil),
        (nil, 0, 300_000, 1, 0, 240, 250),
        ("Cool-down", 5, nil, 1, 1, nil, nil),
    ]

    @Test func aGarminWorkoutIsReadAsGarminsSDKReadsIt() throws {
        let bytes = Self.file(Self.steps)
        let garmin = try FITCheck.decode(bytes)
        #expect(garmin["integrity"] == true && garmin["errors"]?.arrayValue?.isEmpty == true, "\(garmin)")
        #expect(garmin["fileType"] == "workout" && garmin["workout"]?["wkt_name"] == "Threshold")
        let sdkSteps = garmin["workoutSteps"]?.arrayValue ?? []
        #expect(sdkSteps.map { $0["duration_type"]?.stringValue } == ["time", "time", "time", "repeat_until_steps_cmplt", "time", "open"])
        #expect(sdkSteps[3]["repeat_steps"] == 3 || sdkSteps[3]["target_value"] == 3, "\(sdkSteps[3])")

        let plan = try WorkoutPlanFile.read(Data(bytes))
        #expect(plan.name == "Threshold" && plan.sport == .cycling)
        #expect(
            plan.entries == [
                .step(PlanStep(name: "Warm-up", length: .time(.seconds(600)), target: .powerZones(2...2))),
                .repeated(
                    count: 3,
                    steps: [
                        PlanStep(name: "On", length: .time(.seconds(300)), target: .watts(250...270)),
                        PlanStep(name: "Off", length: .time(.seconds(180)), target: .powerOfFTP(0.55...0.60)),
                    ]),
                .step(PlanStep(length: .time(.seconds(300)), target: .heartRate(140...150))),
                .step(PlanStep(name: "Cool-down", length: .open, target: .heartRateZones(1...1))),
            ])
        // FIT's step indexes: the repeat is step 3.
        #expect(plan.sequence.map(\.index) == [0, 1, 2, 1, 2, 1, 2, 4, 5])
        #expect(plan.duration == nil)
    }

    /// The plan a workout carries into its FIT file reads back as the same plan: every target FIT
    /// can hold (whole percents), cadence beside another target as the secondary one, repeats.
    @Test func aPlanWrittenAsFITReadsBack() throws {
        let plan = WorkoutPlan(
            name: "Round trip", sport: .running, entries: [
                .step(PlanStep(name: "Warm-up", length: .time(.seconds(600)), target: .powerZones(2...2))),
                .repeated(count: 3, steps: [
                    PlanStep(name: "On", length: .time(.seconds(300)), target: .watts(250...270), cadence: 90...100),
                    PlanStep(length: .time(.milliseconds(180_500)), target: .powerOfFTP(0.55...0.60)),
                ]),
                .step(PlanStep(length: .time(.seconds(300)), target: .heartRate(140...150))),
                .step(PlanStep(length: .time(.seconds(60)), cadence: 85...85)),
                .step(PlanStep(name: "Cool-down", length: .open, target: .heartRateZones(1...1))),
            ])
        var writer = FITWriter()
        var fileID = FITMessage(0)
        fileID.add(0, .enum, 5)
        writer.write(fileID)
        for message in FITWorkoutFile.messages(plan) { writer.write(message) }
        let bytes = writer.bytes()
        let garmin = try FITCheck.decode(bytes)
        #expect(garmin["integrity"] == true && garmin["errors"]?.arrayValue?.isEmpty == true, "\(garmin)")
        #expect(garmin["workout"]?["sport"] == "running" && garmin["workoutSteps"]?.arrayValue?.count == 7)
        #expect(try WorkoutPlanFile.read(Data(bytes)) == plan)
    }

    @Test func whatCannotBeRiddenIsRefusedWithItsStep() throws {
        func error(_ bytes: [UInt8]) -> String {
            do {
                _ = try WorkoutPlanFile.read(Data(bytes))
                return "read"
            } catch {
                return error.description
            }
        }
        #expect(error(Self.file([("Far", 1, 5_000_00, 2, nil, nil, nil)])).contains("workout step 0: duration type 1"))
        #expect(error(Self.file([(nil, 0, 60_000, 0, nil, 100, 200)])).contains("target type 0"))
        #expect(error(Self.file([(nil, 0, 60_000, 2, nil, nil, nil), (nil, 6, 5, 2, 2, nil, nil)])).contains("a repeat must go back"))
        #expect(error(Self.file(Self.steps, fileType: 4)).contains("not a workout (file_id type 4"))
        var damaged = Self.file(Self.steps)
        damaged[40] ^= 0xFF
        #expect(error(damaged).contains("CRC does not match"))
        let whole = Self.file(Self.steps)
        for cut in stride(from: 14, to: whole.count, by: 5) {
            #expect(error(Array(whole[..<cut])) != "read", "cut at \(cut)")
        }
        #expect(try WorkoutPlanFile.read(Data(Self.file(Self.steps, sport: 1))).sport == .running)
    }
}
