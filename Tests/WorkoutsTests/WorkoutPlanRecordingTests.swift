import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// A workout ridden to a plan (issue 33, "Workout plans"): each step a lap at its planned instant,
/// open steps ended by the lap key, pauses not counting, and the time each step met its target.
@Suite struct WorkoutPlanRecordingTests {
    static let plan = WorkoutPlan(
        name: "Test", entries: [
            .step(PlanStep(name: "Warm-up", length: .time(.seconds(60)), target: .rampOfFTP(from: 0.5, to: 0.7))),
            .repeated(count: 2, steps: [
                PlanStep(length: .time(.seconds(30)), target: .watts(250...270)),
                PlanStep(length: .time(.seconds(20)), target: .powerOfFTP(0.5...0.5)),
            ]),
            .step(PlanStep(length: .open, target: .heartRate(120...140))),
            .step(PlanStep(length: .time(.seconds(10)))),
        ])

    func started(_ plan: WorkoutPlan = plan, autoLap: Duration? = nil) throws -> WorkoutStateMachine {
        let profile = AthleteProfile(functionalThresholdPower: 200)
        var m = WorkoutStateMachine(activityType: .cycling, preferences: ZonePreferences(profile: profile))
        m.plan = plan
        m.autoLap = autoLap
        try m.beginCollection(at: .zero, date: WorkoutStateMachineTests.date)
        return m
    }

    func laps(_ workout: Workout) -> [String] {
        workout.events.compactMap { e in e.kind == .lap ? "\(e.cause.rawValue) \(e.time.seconds)" : nil }
    }

    /// Timed steps end at their planned instants, whatever the sample times (a 0.7 s cadence that
    /// lands on none of them); the open step waits for the lap key; the plan's last step ends and
    /// further laps are the rider's own.
    @Test func eachStepIsALapAtItsPlannedInstant() throws {
        var m = try started()
        for t in stride(from: 0.0, to: 300, by: 0.7) { m.add(watts(200, at: t)) }
        #expect(m.stepIndex == 5)
        try m.lap(at: s(300))
        for t in stride(from: 300.0, to: 330, by: 0.7) { m.add(watts(200, at: t)) }
        try m.endCollection(at: s(330))
        let workout = try m.finishWorkout()
        #expect(laps(workout) == ["step 60.0", "step 90.0", "step 110.0", "step 140.0", "step 160.0", "manual 300.0", "step 310.0"])
        #expect(workout.laps.map(\.lowerBound.seconds) == [0, 60, 90, 110, 140, 160, 300, 310])
        #expect(workout.plan == Self.plan && workout.steps.map(\.step) == Array(0..<7))
    }

    /// A pause stops the step's clock: the step ends its planned active time after its start.
    /// The lap key ends a timed step early, and the next step begins then.
    @Test func pausesDoNotCountAndTheLapKeyEndsAStepEarly() throws {
        var m = try started()
        for t in stride(from: 0.0, to: 40, by: 1) { m.add(watts(150, at: t)) }
        try m.pause(at: s(40))
        m.tick(at: s(100))
        try m.resume(at: s(100))
        for t in stride(from: 100.0, to: 130, by: 1) { m.add(watts(150, at: t)) }
        try m.lap(at: s(130))  // 10 s into the first 30 s interval
        for t in stride(from: 130.0, to: 160, by: 1) { m.add(watts(150, at: t)) }
        try m.endCollection(at: s(160))
        let workout = try m.finishWorkout()
        #expect(laps(workout) == ["step 120.0", "manual 130.0", "step 150.0"])
        // The step under way at the end is a step too; its time is what was ridden of it.
        #expect(workout.laps.map(\.lowerBound.seconds) == [0, 120, 130, 150])
        #expect(workout.steps.count == 4)
    }

    /// A step's target is judged each second of its active time: the ramp's band moves with it, a
    /// target of one value counts within 5 %, a step without target has no time in target.
    @Test func timeInTargetPerStep() throws {
        var m = try started()
        // The warm-up ramps 100 → 140 W over 60 s (100 + 2t/3 W); the rider holds 110 W, in the
        // band (±5 %) while the target is from 104.8 to 115.8 W: t from 7.14 to 23.68, the
        // seconds judged at 7.5 to 23.5.
        for t in stride(from: 0.0, to: 60, by: 1) { m.add(watts(110, at: t)) }
        // 30 s at 250-270 W: 20 s in, then 10 s at 280 W (out).
        for t in stride(from: 60.0, to: 80, by: 1) { m.add(watts(260, at: t)) }
        for t in stride(from: 80.0, to: 90, by: 1) { m.add(watts(280, at: t)) }
        // 20 s at 50 % of 200 W (95-105 W): 100 W for 10 s, then no sample until 110 s: the hold
        // of the one at 99 s covers 2 seconds more. The next step, 250-270 W, is met by nothing.
        for t in stride(from: 90.0, to: 100, by: 1) { m.add(watts(100, at: t)) }
        m.add(watts(100, at: 110))
        for t in stride(from: 111.0, to: 112, by: 1) { m.add(watts(100, at: t)) }
        try m.endCollection(at: s(112))
        let steps = try m.finishWorkout().steps
        #expect(steps.map(\.timeInTarget) == [.seconds(17), .seconds(20), .seconds(12), .zero])
    }

    /// Auto-lap waits until the plan is done; heart-rate and zone targets judge their quantity.
    @Test func autoLapAfterThePlanAndTargetsOfOtherQuantities() throws {
        let zones = WorkoutPlan(name: "Z", entries: [
            .step(PlanStep(length: .time(.seconds(20)), target: .heartRate(120...140))),
            .step(PlanStep(length: .time(.seconds(20)), target: .powerZones(2...2))),
            .step(PlanStep(length: .time(.seconds(20)), target: .heartRateZones(9...9))),
        ])
        var m = try started(zones, autoLap: .seconds(25))
        for t in stride(from: 0.0, to: 100, by: 1) {
            m.add(hr(t < 10 ? 130 : 150, at: t))
            m.add(watts(t < 30 ? 120 : 300, at: t))  // zone 2 of six for 200 W: 55-75 % (110-150 W)
        }
        try m.endCollection(at: s(100))
        let workout = try m.finishWorkout()
        #expect(laps(workout) == ["step 20.0", "step 40.0", "step 60.0", "auto 85.0"])
        // Heart rate in 120-140 for 10 s; power in zone 2 for 10 s; no ninth heart-rate zone.
        #expect(workout.steps.map(\.timeInTarget) == [.seconds(10), .seconds(10), nil])
    }

    /// The JSON form the store keeps reads back to the same plan, every kind of step and target.
    @Test func theJSONFormReadsBackToTheSamePlan() throws {
        let plan = WorkoutPlan(
            name: "All", sport: .running, entries: [
                .step(PlanStep(name: "a", length: .time(.milliseconds(90_500)), target: .powerOfFTP(0.88...0.94), cadence: 85...95)),
                .repeated(count: 3, steps: [
                    PlanStep(length: .time(.seconds(60)), target: .watts(200...250)),
                    PlanStep(length: .open, target: .rampOfFTP(from: 0.75, to: 0.4)),
                ]),
                .step(PlanStep(length: .time(.seconds(1)), target: .rampWatts(from: 100, to: 300.5))),
                .step(PlanStep(length: .time(.seconds(1)), target: .powerZones(2...3))),
                .step(PlanStep(length: .time(.seconds(1)), target: .heartRateZones(4...4), cadence: 90...90)),
                .step(PlanStep(length: .time(.seconds(1)), target: .heartRate(140...150))),
                .step(PlanStep(length: .time(.seconds(1)))),
            ])
        let text = plan.jsonForm.serialized
        #expect(try WorkoutPlan(jsonForm: JSONValue(parsing: text)) == plan)
        #expect(text.contains("\"88-94%\""))
    }
}

/// The live coaching of a plan: the step under way follows the machine's laps, its target is
/// judged at each sample of its quantity, the alert comes after the debounce, never while paused.
@Suite struct StepCoachTests {
    @Test func followsTheMachinesStepsAndJudgesTheirTargets() throws {
        let plan = WorkoutPlan(name: "Coach", entries: [
            .step(PlanStep(length: .time(.seconds(60)), target: .watts(200...220))),
            .step(PlanStep(length: .open, target: .heartRate(120...130))),
        ])
        var m = WorkoutStateMachine(activityType: .cycling)
        m.plan = plan
        try m.beginCollection(at: .zero, date: WorkoutStateMachineTests.date)
        var coach = StepCoach(plan: plan, functionalThresholdPower: nil, zones: [], debounce: .seconds(10))
        func feed(_ sample: Sample) {
            m.add(sample)
            coach.add(sample)
            while let output = m.nextOutput() { coach.apply(output) }
        }
        func control(_ action: (inout WorkoutStateMachine) throws -> Void) throws {
            try action(&m)
            while let output = m.nextOutput() { coach.apply(output) }
        }
        for t in stride(from: 0.0, to: 20, by: 1) { feed(watts(210, at: t)) }
        #expect(coach.judgement == .in && coach.timeLeft(at: s(20)) == .seconds(40))
        // 230 W from 20 s: out from then, alerting from 30 s.
        for t in stride(from: 20.0, to: 29, by: 1) { feed(watts(230, at: t)) }
        #expect(coach.judgement == .above && coach.outFor(at: s(29)) == .seconds(9) && !coach.alerting(at: s(29)))
        feed(watts(230, at: 30))
        #expect(coach.alerting(at: s(30)))
        // Paused from 31 to 91 s: no alert, and the step's clock stops 31 s in, 29 s left.
        try control { try $0.pause(at: s(31)) }
        #expect(!coach.alerting(at: s(60)) && coach.isPaused && coach.timeLeft(at: s(60)) == .seconds(29))
        try control { try $0.resume(at: s(91)) }
        #expect(coach.outFor(at: s(95)) == .seconds(4), "out again from the resume")
        feed(watts(210, at: 95))
        #expect(coach.outFor(at: s(96)) == nil)
        // The step ends at 60 s of active time: 120 s; the heart-rate step begins, judged afresh.
        for t in stride(from: 96.0, to: 125, by: 1) { feed(watts(210, at: t)); feed(hr(140, at: t)) }
        #expect(coach.index == 1 && coach.elapsed(at: s(125)) == .seconds(5) && coach.timeLeft(at: s(125)) == nil)
        #expect(coach.judgement == .above && coach.next == nil)
        try control { try $0.lap(at: s(130)) }
        #expect(coach.current == nil && coach.index == 2)
    }
}
