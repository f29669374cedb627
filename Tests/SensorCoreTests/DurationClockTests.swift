import SensorCore
import Testing

struct DurationClockTests {
    @Test func clockTextRoundsToTheSecondAndShowsHoursOnlyWhenThereAreAny() {
        #expect(Duration.zero.clockText == "0:00")
        #expect(Duration.milliseconds(59_499).clockText == "0:59")
        #expect(Duration.milliseconds(59_500).clockText == "1:00")
        #expect(Duration.seconds(605).clockText == "10:05")
        #expect(Duration.seconds(3599).clockText == "59:59")
        #expect(Duration.seconds(3600).clockText == "1:00:00")
        #expect(Duration.seconds(3780).clockText == "1:03:00")
        #expect(Duration.seconds(36_005).clockText == "10:00:05")
    }

    @Test func hoursAndMinutesTextIsForAxisLabels() {
        #expect(Duration.zero.hoursAndMinutesText == "0:00")
        #expect(Duration.seconds(600).hoursAndMinutesText == "0:10")
        #expect(Duration.seconds(3780).hoursAndMinutesText == "1:03")
    }
}
