import GATT
import Testing

@Suite struct CadenceAndSpeedTests {
    func crank(_ revolutions: UInt16, _ time: UInt16) -> CrankRevolutionData {
        CrankRevolutionData(cumulativeRevolutions: revolutions, lastEventTime: time)
    }

    @Test func firstMeasurementHasNoCadence() {
        var c = CadenceCalculator()
        #expect(c.update(crank(10, 1024), at: .seconds(1)) == nil)
        #expect(c.cadence(at: .seconds(1)) == nil)
    }

    @Test func ninetyRPM() {
        var c = CadenceCalculator()
        c.update(crank(0, 0), at: .zero)
        // 3 revolutions in 2 s of event time (2048 ticks) = 90 rpm
        #expect(c.update(crank(3, 2048), at: .seconds(2)) == 90)
    }

    @Test func countAndTimeWrapAt65535() {
        var c = CadenceCalculator()
        c.update(crank(65534, 65000), at: .zero)
        // count 65534 → 1 is 3 revolutions; time 65000 → 1512 is 2048 ticks (2 s): 90 rpm
        #expect(c.update(crank(1, 1512), at: .seconds(2)) == 90)
        // count exactly 65535 → 0 and time 65535 → 0 wrap as well
        var d = CadenceCalculator()
        d.update(crank(65535, 65535), at: .zero)
        #expect(d.update(crank(0, 1023), at: .seconds(1)) == 60)  // 1 revolution in 1024 ticks
    }

    @Test func repeatedEventTimeIsNoNewRevolutionNotZero() {
        var c = CadenceCalculator()
        c.update(crank(0, 0), at: .zero)
        #expect(c.update(crank(1, 1024), at: .seconds(1)) == 60)
        // The same count and time again (a duplicate notification, or no revolution since):
        // the cadence stays 60 for about 3 s ...
        #expect(c.update(crank(1, 1024), at: .seconds(2)) == 60)
        #expect(c.update(crank(1, 1024), at: .milliseconds(3900)) == 60)
        // ... and reads 0 once the crank has been still for 3 s after the last revolution.
        #expect(c.update(crank(1, 1024), at: .seconds(4)) == 0)
        #expect(c.cadence(at: .seconds(10)) == 0)
    }

    @Test func revolutionAfterStillnessIsTimedFromTheLastRevolution() {
        var c = CadenceCalculator()
        c.update(crank(0, 0), at: .zero)
        c.update(crank(1, 1024), at: .seconds(1))
        c.update(crank(1, 1024), at: .seconds(2))  // no new revolution: the baseline stays at 1 s
        // One revolution 2 s after the last one: 30 rpm, not 60.
        #expect(c.update(crank(2, 3072), at: .seconds(3)) == 30)
    }

    @Test func droppedNotificationsAreSpanned() {
        var c = CadenceCalculator()
        c.update(crank(0, 0), at: .zero)
        // Four notifications lost: 10 revolutions in 5 s of event time = 120 rpm.
        #expect(c.update(crank(10, 5120), at: .seconds(5)) == 120)
    }

    @Test func stillTimeoutAdaptsToSlowNotifications() {
        var c = CadenceCalculator()
        // A sensor that notifies every 4 s: 8 s without a revolution is still "not yet still".
        c.update(crank(0, 0), at: .zero)
        #expect(c.update(crank(4, 4096), at: .seconds(4)) == 60)
        #expect(c.update(crank(4, 4096), at: .seconds(8)) == 60)
        #expect(c.cadence(at: .milliseconds(11_900)) == 60)
        #expect(c.update(crank(4, 4096), at: .seconds(12)) == 0)
    }

    @Test func gapLongerThanTheEventTimeCanMeasureRestarts() {
        var c = CadenceCalculator()
        c.update(crank(0, 0), at: .zero)
        c.update(crank(1, 1024), at: .seconds(1))
        // 70 s later: the uint16 time (64 s span) may have wrapped; no cadence from this delta.
        #expect(c.update(crank(71, 2048), at: .seconds(71)) == nil)
        #expect(c.update(crank(72, 3072), at: .seconds(72)) == 60)
    }

    @Test func arrivalsCenturiesApartDoNotOverflowTheInterval() {
        // The smoothed interval is kept in nanoseconds: a gap past Int64's range (292 years) is
        // capped, not a trap, and the still timeout still follows the notifications.
        var c = CadenceCalculator()
        c.update(crank(0, 0), at: .seconds(-Int64.max / 2))
        #expect(c.update(crank(1, 1024), at: .seconds(Int64.max / 2)) == nil)
        #expect(c.update(crank(2, 2048), at: .seconds(Int64.max / 2) + .seconds(1)) == 60)
        #expect(c.cadence(at: .seconds(Int64.max / 2) + .seconds(30)) == 60)
        #expect(c.cadence(at: .seconds(Int64.max)) == 0)
    }

    @Test func counterResetIsDiscarded() {
        var c = CadenceCalculator()
        c.update(crank(5000, 0), at: .zero)
        c.update(crank(5001, 1024), at: .seconds(1))
        // Battery change: the count restarts at 0 (a wrapped delta of 60535 revolutions in 1 s).
        #expect(c.update(crank(0, 2048), at: .seconds(2)) == nil)
        #expect(c.update(crank(1, 3072), at: .seconds(3)) == 60)
    }

    @Test func wheelSpeedUsesTheDataTimeUnit() {
        // Cycling Power wheel time is 1/2048 s: 2 revolutions in 2048 ticks is 1 s → 2 rev/s.
        var cp = SpeedCalculator(circumference: 2.105)
        cp.update(WheelRevolutionData(cumulativeRevolutions: 0, lastEventTime: 0, ticksPerSecond: 2048), at: .zero)
        let v = cp.update(
            WheelRevolutionData(cumulativeRevolutions: 2, lastEventTime: 2048, ticksPerSecond: 2048), at: .seconds(1))
        #expect(v == 4.21)
        // CSC wheel time is 1/1024 s and the uint32 count wraps at 2^32.
        var csc = SpeedCalculator(circumference: 2)
        csc.update(
            WheelRevolutionData(cumulativeRevolutions: .max, lastEventTime: 65535, ticksPerSecond: 1024), at: .zero)
        let w = csc.update(
            WheelRevolutionData(cumulativeRevolutions: 4, lastEventTime: 1023, ticksPerSecond: 1024), at: .seconds(1))
        #expect(w == 10)  // 5 revolutions × 2 m in 1 s
    }
}
