import Export
import Foundation
import SensorCore
import Testing
import Workouts
import Zones

/// A workout whose clock jumped by a century (a btsnoop capture with a damaged timestamp, saved
/// before replay refused them): every export once tried to allocate 14 to 50 GB, a second at a
/// time. Each format must cost what the samples cost, not what the span does.
@Suite struct BoundedExportTests {
    static let century = 100.0 * 365 * 86_400

    static func workout() throws -> Workout {
        var workout = WorkoutSecondsTests.workout(
            samples: [(1, .heartRate, 72), (2, .heartRate, 130), (century, .heartRate, 150)], end: century + 1)
        let zones = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 155, 170])
        workout.zoneGroupsByType = [.heartRate: WorkoutZoneGroup(configuration: zones)]
        return workout
    }

    @Test func aCenturyLongWorkoutExportsOnlyTheSecondsItsSamplesHold() throws {
        let workout = try Self.workout()
        let seconds = WorkoutSeconds(workout).seconds
        // 72 bpm at 1 s; 130 bpm from 2 s for its 5 s hold; 150 bpm in the last second.
        #expect(seconds.map(\.elapsed) == [1, 2, 3, 4, 5, 6, Int(Self.century)])
        #expect(seconds.map(\.heartRateZone) == [0, 1, 1, 1, 1, 1, 2])

        let csv = CSVEncoderTests.rows(CSVEncoder().encode(workout))
        #expect(csv.count == 8)
        #expect(csv.last?[0] == "2126-10-09T17:30:00Z" && csv.last?[1] == "3153600000" && csv.last?[2] == "150")

        let tcx = TCXEncoder().encode(workout)
        #expect(tcx.components(separatedBy: "<Trackpoint>").count - 1 == 7)
        #expect(tcx.components(separatedBy: "<Track>").count - 1 == 2)  // the gap ends the first track

        #expect(FITActivityEncoder().encode(workout).count < 4096)

        let svg = SVGChart().render(workout)
        #expect(svg.utf8.count < 32_768)
        // At most ten time labels, however long the workout.
        #expect(svg.components(separatedBy: "<line ").count - 1 <= 11)
    }
}
