import Export
import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
import Zones

@Suite struct CSVEncoderTests {
    static let startDate = Date(timeIntervalSince1970: 1_793_640_600)  // 2026-11-02T17:30:00Z

    /// The rows as fields, header first; fails on a line end other than CRLF.
    static func rows(_ csv: String) -> [[String]] {
        #expect(csv.hasSuffix("\r\n"))
        #expect(!csv.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        return csv.components(separatedBy: "\r\n").dropLast().map { $0.components(separatedBy: ",") }
    }

    /// Rows per zone against the zone group: each maximal run of rows in a zone differs from the
    /// time it stands for by less than a second at each end (rows sample whole seconds), so the
    /// difference per zone is at most its number of runs.
    static func expectRowsMatchZoneDurations(_ rows: [[String]], column: Int, group: WorkoutZoneGroup) {
        for (index, duration) in group.durations.enumerated() {
            let label = String(index + 1)
            let count = rows.count { $0[column] == label }
            var runs = 0
            for (k, row) in rows.enumerated() where row[column] == label && (k == 0 || rows[k - 1][column] != label) {
                runs += 1
            }
            #expect(abs(Double(count) - duration.seconds) <= Double(max(runs, 1)), "zone \(label): \(count) rows, \(duration)")
        }
    }

    @Test func oneRowPerSecondWithHeaderTimesAndZonesThatAddUpToTheZoneGroups() throws {
        let workout = try SyntheticRide.workout(seconds: 3600, seed: 1, startDate: Self.startDate)
        let rows = Self.rows(CSVEncoder().encode(workout))
        #expect(rows.first == CSVEncoder.header)
        let body = Array(rows.dropFirst())
        #expect(body.count == 3600)
        #expect(body[0][0] == "2026-11-02T17:30:00Z" && body[0][1] == "0")
        #expect(body[3599][0] == "2026-11-02T18:29:59Z" && body[3599][1] == "3599")
        #expect(body.allSatisfy { $0.count == 8 })
        let heartRate = try #require(workout.zoneGroupsByType[.heartRate])
        let power = try #require(workout.zoneGroupsByType[.cyclingPower])
        Self.expectRowsMatchZoneDurations(body, column: 6, group: heartRate)
        Self.expectRowsMatchZoneDurations(body, column: 7, group: power)
        // Whole-second samples: every run starts and ends on a second, so the counts are exact here.
        for (index, duration) in heartRate.durations.enumerated() {
            #expect(Double(body.count { $0[6] == String(index + 1) }) == duration.seconds)
        }
    }

    @Test func valuesHoldForTheBoundedHoldAndPausedSecondsHaveNoZone() throws {
        let workout = try SyntheticRide.workout(seconds: 3600, seed: 2, startDate: Self.startDate)
        let body = Array(Self.rows(CSVEncoder().encode(workout)).dropFirst())
        // The power meter is lost for 1440 ..< 1480 s; its last sample (1439.75 s) holds 3 s.
        #expect(body[1442][3] != "" && body[1443][3] == "" && body[1443][7] == "")
        #expect(body[1479][3] == "" && body[1480][3] != "")
        // Paused 720 ..< 792 s: values still shown, zones not counted.
        #expect(body[750][2] != "" && body[750][6] == "" && body[750][7] == "")
        #expect(body[719][6] != "" && body[792][6] != "")
        // Zones are 1-based and the value is in that zone.
        let configuration = try #require(workout.zoneGroupsByType[.heartRate]?.configuration)
        for row in body where row[6] != "" {
            #expect(configuration.zoneIndex(for: try #require(Double(row[2]))).map { $0 + 1 } == Int(row[6]))
        }
    }
}
