import Export
import Foundation
import Testing
import Workouts

/// Structured workouts read from Zwift's `.zwo` and from SensorBridge's JSON form.
@Suite struct WorkoutPlanFileTests {
    static let zwo = """
        <workout_file>
            <name>Sweet spot</name>
            <sportType>bike</sportType>
            <workout>
                <Warmup Duration="600" PowerLow="0.50" PowerHigh="0.75"/>
                <IntervalsT Repeat="2" OnDuration="600" OffDuration="300" OnPower="0.90" OffPower="0.55" Cadence="90" CadenceResting="85"/>
                <SteadyState Duration="300" Power="0.65"><textevent timeoffset="10" message="Hold it"/></SteadyState>
                <steadystate duration="60" powerlow="0.8" powerhigh="0.7"/>
                <FreeRide Duration="120" FlatRoad="1"/>
                <MaxEffort Duration="20"/>
                <Ramp Duration="120" PowerLow="0.6" PowerHigh="0.6"/>
                <Cooldown Duration="300" PowerLow="0.60" PowerHigh="0.40"/>
            </workout>
        </workout_file>
        """

    static func read(_ text: String) throws(WorkoutPlanError) -> WorkoutPlan { try WorkoutPlanFile.read(Data(text.utf8)) }

    @Test func everyZwiftStepIsRead() throws {
        let plan = try Self.read(Self.zwo)
        #expect(plan.name == "Sweet spot" && plan.sport == .cycling)
        let steps = plan.sequence
        #expect(steps.map(\.index) == [0, 1, 2, 1, 2, 4, 5, 6, 7, 8, 9])
        #expect(steps.map { $0.round?.number } == [nil, 1, 1, 2, 2, nil, nil, nil, nil, nil, nil])
        #expect(steps[0].step.target == .rampOfFTP(from: 0.5, to: 0.75))
        #expect(steps[1].step == PlanStep(length: .time(.seconds(600)), target: .powerOfFTP(0.9...0.9), cadence: 90...90))
        #expect(steps[2].step.cadence == 85...85 && steps[2].step.target == .powerOfFTP(0.55...0.55))
        // Attribute names in any case; a SteadyState range in either order.
        #expect(steps[6].step.target == .powerOfFTP(0.7...0.8))
        #expect(steps[7].step.target == PlanStep.Target.none && steps[8].step.name == "Max effort")
        // A ramp between equal powers is a steady power; a cool-down ramps down.
        #expect(steps[9].step.target == .powerOfFTP(0.6...0.6) && steps[10].step.target == .rampOfFTP(from: 0.6, to: 0.4))
        #expect(plan.duration == .seconds(600 + 2 * 900 + 300 + 60 + 120 + 20 + 120 + 300))
        // Half-way down the cool-down, for an FTP of 250 W: 50 % of 250.
        #expect(steps[10].step.watts(at: .seconds(150), ftp: 250) == 125...125)
        #expect(try Self.read(Self.zwo.replacingOccurrences(of: "bike", with: "run")).sport == .running)
    }

    @Test func theJSONFormTakesEveryTarget() throws {
        let plan = try Self.read(
            """
            {"name": "Mixed", "steps": [
              {"name": "Warm-up", "duration": "10m", "power": "50-75%", "ramp": true},
              {"repeat": 3, "steps": [{"duration": "1m30s", "power": "200-250W", "cadence": "85-95"}, {"duration": 60, "power": "Z1"}]},
              {"duration": "5m", "power": "Z2-3"},
              {"duration": "5m", "power": "300-200W", "ramp": true},
              {"duration": "5m", "heartRate": "140-150"},
              {"duration": "5m", "heartRate": "Z2"},
              {"duration": "open"}]}
            """)
        let steps = plan.sequence.map(\.step)
        #expect(steps.count == 12 && plan.duration == nil && plan.sport == .cycling)
        #expect(steps[0] == PlanStep(name: "Warm-up", length: .time(.seconds(600)), target: .rampOfFTP(from: 0.5, to: 0.75)))
        #expect(steps[1] == PlanStep(length: .time(.seconds(90)), target: .watts(200...250), cadence: 85...95))
        #expect(steps[2].target == .powerZones(1...1) && steps[7].target == .powerZones(2...3))
        #expect(steps[8].target == .rampWatts(from: 300, to: 200) && steps[8].watts(at: .seconds(150), ftp: nil) == 250...250)
        #expect(steps[9].target == .heartRate(140...150) && steps[10].target == .heartRateZones(2...2))
        #expect(plan.sequence.last?.step.length == .open && plan.sequence.last?.index == 8)
    }

    /// What is wrong and where, for each kind of mistake; nothing is guessed.
    @Test func mistakesAreRefusedWithWhereAndWhat() {
        let cases: [(String, String)] = [
            (#"{"steps": [{"duration": "10x"}]}"#, "step 1: duration 10x"),
            (#"{"steps": [{"duration": "10m", "watts": 200}]}"#, "step 1: \"watts\" is not part of a step"),
            (#"{"steps": [{"duration": "10m", "power": "94-88%"}]}"#, "the range goes up"),
            (#"{"steps": [{"duration": "10m", "power": "Z10"}]}"#, "give a zone from Z1 to Z9"),
            (#"{"steps": [{"duration": "10m", "power": "200"}]}"#, "give % of FTP"),
            (#"{"steps": [{"duration": "10m", "heartRate": "Z2", "ramp": true}]}"#, "a ramp is of power"),
            (#"{"steps": [{"repeat": 0, "steps": [{"duration": "1m"}]}]}"#, "step 1: \"repeat\" is a count from 1 to 1000"),
            (#"{"steps": []}"#, "give \"steps\""),
            ("[1]", "give a JSON object"),
            ("nonsense", "neither a .zwo file (XML) nor JSON"),
            ("<workout_file><workout><Foo Duration=\"3\"/></workout></workout_file>", "<Foo>: not a step SensorBridge knows"),
            ("<workout_file><workout><SteadyState Duration=\"300\" Power=\"0.65\"/>", "the file ends before </workout>"),
            ("<workout_file><workout><SteadyState Power=\"0.65\"/></workout></workout_file>", "give Duration"),
            ("<workout_file><workout><SteadyState Duration=\"60\" Power=\"high\"/></workout></workout_file>", "Power=\"high\" is not a number"),
            ("<workout_file><workout/></workout_file>", "has no steps"),
            ("<workout_file><name>x</name></workout_file>", "none was found"),
        ]
        for (text, expected) in cases {
            #expect(throws: WorkoutPlanError.self) { try Self.read(text) }
            do {
                _ = try Self.read(text)
            } catch {
                #expect(error.description.contains(expected), "\(text): \(error)")
            }
        }
    }

    /// Every prefix of a valid file is read or refused, never a crash, and never taken as a
    /// shorter plan.
    @Test func aFileCutAnywhereIsRefusedOrWhole() throws {
        let whole = try Self.read(Self.zwo)
        let bytes = Array(Self.zwo.utf8)
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            if let plan = try? WorkoutPlanFile.read(Data(bytes[..<cut])) { #expect(plan == whole, "cut at \(cut)") }
        }
    }
}
