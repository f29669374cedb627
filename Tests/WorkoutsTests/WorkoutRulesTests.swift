import Foundation
import SensorCore
import Testing
import Workouts
import Zones

func rpm(_ value: Double, at seconds: Double) -> Sample {
    Sample(sensor: SensorID(2), type: .cyclingCadence, value: value, time: s(seconds))
}

/// Auto-pause, auto-lap and sensor states in the pure state machine (issue 14), driven with
/// sample times alone.
@Suite struct WorkoutRulesTests {
    func started(autoPause: Duration? = nil, autoLap: Duration? = nil) throws -> WorkoutStateMachine {
        var m = WorkoutStateMachine(activityType: .cycling)
        m.sensors = [SensorID(1): "hr", SensorID(2): "power"]
        m.autoPause = autoPause
        m.autoLap = autoLap
        try m.beginCollection(at: .zero, date: WorkoutStateMachineTests.date)
        return m
    }

    func pausesAndResumes(_ workout: Workout) -> [String] {
        workout.events.compactMap { e in
            switch e.kind {
            case .pause, .resume, .lap: "\(e.name) \(e.cause.rawValue) \(e.time.seconds)"
            default: nil
            }
        }
    }

    /// 3 s at 0 W and 0 rpm pauses (at the third second of stillness); pedalling resumes.
    @Test func autoPauseAfterThreeStillSecondsAndResumeOnPedalling() throws {
        var m = try started(autoPause: .seconds(3))
        for t in stride(from: 0.0, to: 10, by: 0.5) { m.add(watts(200, at: t)); m.add(rpm(90, at: t)) }
        // From 10 s the rider stops: 0 W and 0 rpm; the heart rate goes on.
        for t in stride(from: 10.0, to: 20, by: 0.5) { m.add(watts(0, at: t)); m.add(rpm(0, at: t)); m.add(hr(120, at: t)) }
        #expect(m.state == .paused)
        m.add(watts(150, at: 20))
        #expect(m.state == .collecting)
        for t in stride(from: 20.5, to: 25, by: 0.5) { m.add(watts(150, at: t)) }
        try m.endCollection(at: s(25))
        let workout = try m.finishWorkout()
        // The last movement was at 9.5 s: paused at 12.5 s, resumed at 20 s.
        #expect(pausesAndResumes(workout) == ["pause auto 12.5", "resume auto 20.0"])
        #expect(workout.pauses == [s(12.5)..<s(20)])
        #expect(workout.activeDuration == s(17.5))
    }

    /// The crank's latest revolution is the latest movement. A power meter's cadence holds its
    /// rate between revolutions, and for the 3 s it takes to read 0 after the last one: that held
    /// rate (`Sample.isHeld`) is no movement, so the pause comes 3 s after the last pedal stroke,
    /// as documented (issue 32: it came 5.5 to 6 s after, the held 90 rpm counted as turning).
    @Test func autoPauseCountsFromTheLastRevolutionNotAHeldCadence() throws {
        var m = try started(autoPause: .seconds(3))
        for t in stride(from: 0.0, through: 10, by: 0.25) {
            m.add(watts(200, at: t))
            // A new revolution every other notification (90 rpm at 4 notifications a second).
            m.add(Sample(sensor: SensorID(2), type: .cyclingCadence, value: 90, time: s(t), isHeld: Int(t * 4) % 2 == 1))
        }
        // The last stroke at 10 s: 0 W, and the cadence held at 90 rpm until 13 s, then 0.
        for t in stride(from: 10.25, through: 16, by: 0.25) {
            m.add(watts(0, at: t))
            m.add(Sample(sensor: SensorID(2), type: .cyclingCadence, value: t <= 13 ? 90 : 0, time: s(t), isHeld: t <= 13))
        }
        try m.endCollection(at: s(16))
        #expect(pausesAndResumes(try m.finishWorkout()) == ["pause auto 13.0"])
    }

    /// A power meter that comes back after a dropout does not pause the ride at once: nothing was
    /// known while it was lost, and stillness is counted from its return (issue 32: each
    /// reconnection made a 0.25 s automatic pause).
    @Test func aPowerMeterComingBackDoesNotPause() throws {
        var m = try started(autoPause: .seconds(3))
        for t in stride(from: 0.0, through: 10, by: 0.25) { m.add(watts(200, at: t)) }
        m.sensorLost(SensorID(2), at: s(10.2))
        for t in stride(from: 11.0, through: 30, by: 1) { m.add(hr(130, at: t)) }
        m.sensorRegained(SensorID(2), at: s(30))
        m.add(hr(130, at: 30.1))
        for t in stride(from: 30.25, through: 40, by: 0.25) { m.add(watts(200, at: t)) }
        try m.endCollection(at: s(40))
        #expect(pausesAndResumes(try m.finishWorkout()) == [])

        // Still when it comes back: the pause comes 3 s after its return.
        var still = try started(autoPause: .seconds(3))
        still.add(watts(200, at: 0))
        still.sensorLost(SensorID(2), at: s(1))
        still.sensorRegained(SensorID(2), at: s(20))
        still.add(watts(0, at: 20.5))
        still.tick(at: s(22.9))
        #expect(still.state == .collecting)
        still.tick(at: s(23))
        #expect(still.state == .paused)
    }

    /// 0 W with the cranks turning is movement; a heart-rate strap alone never pauses.
    @Test func movementOrNoMovementSensorKeepsTheWorkoutGoing() throws {
        var coasting = try started(autoPause: .seconds(3))
        for t in stride(from: 0.0, to: 20, by: 0.5) { coasting.add(watts(0, at: t)); coasting.add(rpm(60, at: t)) }
        #expect(coasting.state == .collecting)

        var strapOnly = try started(autoPause: .seconds(3))
        for t in stride(from: 0.0, to: 20, by: 1) { strapOnly.add(hr(120, at: t)) }
        strapOnly.tick(at: s(30))
        #expect(strapOnly.state == .collecting)
    }

    /// A power meter that stops sending while the rider stands still pauses the workout too (no
    /// value is no movement), but a lost one does not: nothing is known then.
    @Test func silenceIsStillnessButALostSensorIsNot() throws {
        var silent = try started(autoPause: .seconds(3))
        silent.add(watts(200, at: 0))
        silent.add(hr(120, at: 1))
        silent.tick(at: s(3.5))
        #expect(silent.state == .paused)

        var lost = try started(autoPause: .seconds(3))
        lost.add(watts(200, at: 0))
        lost.sensorLost(SensorID(2), at: s(1))
        lost.tick(at: s(10))
        #expect(lost.state == .collecting)
    }

    /// A manual pause is not resumed by pedalling; a manual resume of an auto-pause gets the full
    /// auto-pause time before it can pause again.
    @Test func manualPausesAreTheRidersOwn() throws {
        var m = try started(autoPause: .seconds(3))
        m.add(watts(200, at: 0))
        try m.pause(at: s(1))
        m.add(watts(200, at: 2))
        #expect(m.state == .paused)
        try m.resume(at: s(3))
        m.tick(at: s(5.5))
        #expect(m.state == .collecting)
        m.tick(at: s(6))
        #expect(m.state == .paused)
        try m.endCollection(at: s(7))
        #expect(pausesAndResumes(try m.finishWorkout()) == ["pause manual 1.0", "resume manual 3.0", "pause auto 6.0"])
    }

    /// A lap every 5 minutes of active time: pauses do not count toward it; a manual lap starts
    /// the count again.
    @Test func autoLapByActiveTime() throws {
        var m = try started(autoLap: .seconds(300))
        for t in stride(from: 0.0, through: 400, by: 1) { m.add(hr(130, at: t)) }
        try m.pause(at: s(400))
        m.tick(at: s(500))
        try m.resume(at: s(500))
        for t in stride(from: 500.0, through: 700, by: 1) { m.add(hr(130, at: t)) }
        try m.lap(at: s(700))
        for t in stride(from: 701.0, through: 1001, by: 1) { m.add(hr(130, at: t)) }
        try m.endCollection(at: s(1001))
        let workout = try m.finishWorkout()
        #expect(pausesAndResumes(workout) == [
            "lap auto 300.0", "pause manual 400.0", "resume manual 500.0", "lap auto 700.0", "lap manual 700.0",
            "lap auto 1000.0",
        ])
        #expect(workout.laps.map(\.lowerBound.seconds) == [0, 300, 700, 1000])
    }

    /// A new activity begins a new lap, so no lap spans a bike and a run (FIT and TCX nest laps in
    /// their activity); the auto-lap count starts again with it. A lap pressed at the change makes none.
    @Test func aNewActivityBeginsANewLap() throws {
        var m = try started(autoLap: .seconds(300))
        for t in stride(from: 0.0, to: 1000, by: 1) {
            if t == 400 { try m.lap(at: s(400)) }
            if t == 600 { try m.beginActivity(.running, at: s(600)) }
            if t == 800 { try m.lap(at: s(800)); try m.beginActivity(.cycling, at: s(800)) }
            m.add(hr(130, at: t))
        }
        try m.endCollection(at: s(1000))
        let workout = try m.finishWorkout()
        #expect(workout.laps.map(\.lowerBound.seconds) == [0, 300, 400, 600, 800])
        #expect(workout.activities.map(\.start.seconds) == [0, 600, 800])
        #expect(pausesAndResumes(workout) == ["lap auto 300.0", "lap manual 400.0", "lap manual 800.0"])
    }

    /// No contact for 30 s: the strap's time is reported per state, the events say when its
    /// values stopped and started counting, and a silent sensor turns stale.
    @Test func sensorStatesAndTheirTimes() throws {
        var m = try started()
        for t in stride(from: 0.0, to: 10, by: 1) { m.add(hr(120, at: t)); m.add(watts(100, at: t)) }
        m.sensorValues(SensorID(1), .noContact, at: s(10))
        for t in stride(from: 10.0, to: 40, by: 1) { m.add(watts(100, at: t)); m.tick(at: s(t)) }
        #expect(m.currentSensorStates == ["hr": .noContact, "power": .notifying])
        m.add(hr(125, at: 40))
        m.tick(at: s(50))
        #expect(m.currentSensorStates == ["hr": .stale, "power": .stale])
        try m.endCollection(at: s(60))
        let workout = try m.finishWorkout()
        // hr: notifying 0-10 and 40-45, no contact 10-40, stale from 45 (5 s after its last value).
        #expect(workout.sensorStates["hr"] == [.notifying: s(15), .noContact: s(30), .stale: s(15)])
        #expect(workout.sensorStates["power"] == [.notifying: s(44), .stale: s(16)])
        let changes = workout.events.compactMap { e -> String? in
            guard case .sensorState(let sensor, let state) = e.kind else { return nil }
            return "\(sensor) \(state.rawValue) \(e.time.seconds)"
        }
        #expect(changes == ["hr noContact 10.0", "hr notifying 40.0", "power stale 44.0", "hr stale 45.0"])
    }
}
