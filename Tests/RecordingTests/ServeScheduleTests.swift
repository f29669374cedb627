import Testing

import Recording

/// The pure schedule of `serve`: when workouts start and end, and which link events they keep.
struct ServeScheduleTests {
    let t0 = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    @Test func theFirstMeasurementStartsAWorkoutAndWhatArrivesMeanwhileIsHeld() {
        var s = ServeSchedule<Int, String>(idleTimeout: .seconds(300))
        #expect(s.notification(0, isMeasurement: false, at: at(0)) == .drop)
        #expect(s.phase == .waiting && s.idleDeadline == nil)
        #expect(s.notification(1, isMeasurement: true, at: at(1)) == .start)
        #expect(s.notification(2, isMeasurement: true, at: at(2)) == .hold)
        #expect(s.idleDeadline == nil)
        #expect(s.firstMeasurement == at(1))
        #expect(s.began() == [1, 2])
        #expect(s.phase == .recording)
        #expect(s.idleDeadline == at(302))
        #expect(s.notification(3, isMeasurement: true, at: at(3)) == .deliver(after: []))
        #expect(s.idleDeadline == at(303))
    }

    @Test func theWorkoutEndsAtTheLastMeasurementNotAtTheTimeout() {
        var s = ServeSchedule<Int, String>(idleTimeout: .seconds(2))
        _ = s.notification(1, isMeasurement: true, at: at(10))
        _ = s.began()
        _ = s.notification(2, isMeasurement: true, at: at(11))
        // A notification that is no measurement (malformed) is delivered but keeps no workout alive.
        #expect(s.notification(3, isMeasurement: false, at: at(12.5)) == .deliver(after: []))
        #expect(s.idleDeadline == at(13))
        #expect(s.end() == at(11))
        #expect(s.phase == .waiting && s.idleDeadline == nil && s.end() == nil)
        // The next measurement starts the next workout.
        #expect(s.notification(4, isMeasurement: true, at: at(40)) == .start)
        #expect(s.firstMeasurement == at(40))
    }

    @Test func linkEventsBelongToTheWorkoutOnlyWhenAMeasurementFollows() {
        var s = ServeSchedule<Int, String>(idleTimeout: .seconds(300))
        s.linkEvent("lost before any workout")
        _ = s.notification(1, isMeasurement: true, at: at(0))
        _ = s.began()
        s.linkEvent("lost power")
        s.linkEvent("regained power")
        #expect(s.notification(2, isMeasurement: false, at: at(4)) == .deliver(after: []))
        #expect(s.notification(3, isMeasurement: true, at: at(5)) == .deliver(after: ["lost power", "regained power"]))
        s.linkEvent("lost hr (asleep after the ride)")
        #expect(s.end() == at(5))
        _ = s.notification(4, isMeasurement: true, at: at(900))
        _ = s.began()
        #expect(s.notification(5, isMeasurement: true, at: at(901)) == .deliver(after: []))
    }

    @Test func endingWhileStartingGivesNoEnd() {
        var s = ServeSchedule<Int, String>(idleTimeout: .seconds(1))
        _ = s.notification(1, isMeasurement: true, at: at(0))
        #expect(s.end() == nil)
        #expect(s.began().isEmpty)
        #expect(s.phase == .waiting)
    }
}
