import Foundation
import SensorCore
@testable import Outputs
import Testing

/// `workouts list --json`'s dates in UTC (`WorkoutJSON.iso(_:in:)`), written without a Foundation
/// formatter, are the ones `ISO8601DateFormatter` with fractional seconds writes: milliseconds
/// always, rounded.
struct WorkoutJSONDateTests {
    @Test func datesAreWhatISO8601DateFormatterWrites() {
        let formatter = ISO8601DateFormatter()
        let utc = TimeZone(identifier: "UTC")!
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var random = SplitMix64(seed: 16)
        var dates = [0, 1_767_618_000, 1_767_618_000.25, 1_767_618_000.9999, 1_767_618_000.0004, 951_782_400].map(Date.init(timeIntervalSince1970:))
        for index in 0..<20_000 {
            let whole = Double(Int.random(in: 0...4_102_444_800, using: &random))  // 1970 to 2100
            switch index % 3 {
            case 0: dates.append(Date(timeIntervalSince1970: whole))
            case 1: dates.append(Date(timeIntervalSince1970: whole + Double(Int.random(in: 0..<1000, using: &random)) / 1000))
            default: dates.append(Date(timeIntervalSinceReferenceDate: random.uniform(-978_307_200, 3_124_137_600)))
            }
        }
        for date in dates {
            #expect(WorkoutJSON.iso(date, in: utc) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
    }
}
