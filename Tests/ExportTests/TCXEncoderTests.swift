import Export
import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
import Zones

@Suite struct TCXEncoderTests {
    static let xmllint = ExternalTool.path("xmllint")
    static let schemas = ExternalTool.fixtures.appendingPathComponent("tcx")

    /// `xmllint --schema` over `tcx` written to a temporary file: nil when valid, else its messages.
    static func schemaErrors(_ tcx: String, schema: String = "TrainingCenterDatabasev2+ActivityExtensionv2.xsd") throws
        -> String?
    {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-\(UUID().uuidString).tcx")
        try tcx.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try ExternalTool.run(
            try #require(xmllint), ["--noout", "--schema", schemas.appendingPathComponent(schema).path, file.path])
        return run.status == 0 ? nil : String(run.output.prefix(2000))
    }

    /// The text of every `<name>...</name>` element, in order.
    static func elements(_ name: String, in xml: String) -> [String] {
        xml.components(separatedBy: "<\(name)>").dropFirst().map { $0.components(separatedBy: "</\(name)>")[0] }
    }

    @Test(.enabled(if: xmllint != nil, "needs xmllint (Debian libxml2-utils, in .ci/debian-packages)"))
    func rideAndMultisportAreValidAgainstBothGarminSchemas() throws {
        let ride = try SyntheticRide.workout(seconds: 3600, seed: 3, startDate: CSVEncoderTests.startDate)
        let tcx = TCXEncoder().encode(ride)
        #expect(try Self.schemaErrors(tcx) == nil)
        #expect(tcx.components(separatedBy: "<Activity Sport=\"Biking\">").count == 2)
        #expect(tcx.components(separatedBy: "<Lap StartTime=").count - 1 == ride.laps.count)
        // A trackpoint per second not paused, a new track after each pause.
        let active = WorkoutSeconds(ride).seconds.count(where: \.isActive)
        #expect(tcx.components(separatedBy: "<Trackpoint>").count - 1 == active)
        #expect(Self.elements("Id", in: tcx) == ["2026-11-02T17:30:00Z"])

        let multisport = try SyntheticRide.workout(seconds: 1800, seed: 4, startDate: CSVEncoderTests.startDate, runAfter: 1200)
        let both = TCXEncoder().encode(multisport)
        #expect(try Self.schemaErrors(both) == nil)
        #expect(both.contains("<Activity Sport=\"Biking\">") && both.contains("<Activity Sport=\"Running\">"))
        #expect(Self.elements("Id", in: both) == ["2026-11-02T17:30:00Z", "2026-11-02T17:50:00Z"])
    }

    @Test(.enabled(if: xmllint != nil, "needs xmllint (Debian libxml2-utils, in .ci/debian-packages)"))
    func theExtensionElementsAreValidatedNotSkipped() throws {
        let tcx = TCXEncoder().encode(try SyntheticRide.workout(seconds: 120, seed: 5, startDate: CSVEncoderTests.startDate))
        let watts = try #require(Self.elements("ns3:Watts", in: tcx).first)
        let negative = tcx.replacingOccurrences(of: "<ns3:Watts>\(watts)<", with: "<ns3:Watts>-\(watts)<")
        let misspelled = tcx.replacingOccurrences(of: "ns3:Watts>", with: "ns3:Wats>")
        #expect(try Self.schemaErrors(negative)?.contains("unsignedShort") == true)
        #expect(try Self.schemaErrors(misspelled)?.contains("Wats") == true)
        // The Training Center schema alone lets both through: its Extensions are lax.
        #expect(try Self.schemaErrors(negative, schema: "TrainingCenterDatabasev2.xsd") == nil)
    }

    @Test func aOneLapWorkoutsLapFiguresAreTheWorkoutStatistics() throws {
        let workout = try SyntheticRide.workout(seconds: 300, seed: 6, startDate: CSVEncoderTests.startDate)
        #expect(workout.laps.count == 1)
        let tcx = TCXEncoder().encode(workout)
        let statistics = workout.statistics
        let heartRate = try #require(statistics.heartRate), power = try #require(statistics.cyclingPower)
        let lap = try #require(tcx.components(separatedBy: "<Track>").first)
        #expect(Self.elements("TotalTimeSeconds", in: lap) == [ExportTestsFormat.number(workout.activeDuration.seconds)])
        #expect(Self.elements("Value", in: lap) == ["\(Int(heartRate.average.rounded()))", "\(Int(heartRate.maximum))"])
        #expect(Self.elements("Cadence", in: lap) == ["\(Int(try #require(statistics.cadence).average.rounded()))"])
        let extensions = try #require(tcx.components(separatedBy: "</Track>").last)
        #expect(Self.elements("ns3:AvgWatts", in: extensions) == ["\(Int(power.average.rounded()))"])
        #expect(Self.elements("ns3:MaxWatts", in: extensions) == ["\(Int(power.maximum))"])
        // Calories: the workout's work in kJ (energy, as FIT's total_calories), one kcal each.
        #expect(Self.elements("Calories", in: lap) == ["\(Int(power.energy.rounded()))"])
        #expect(Self.elements("DistanceMeters", in: lap) == ["0"])  // no speed sensor
    }

    @Test(.enabled(if: xmllint != nil, "needs xmllint (Debian libxml2-utils, in .ci/debian-packages)"))
    func wheelSpeedGivesSpeedsAndDistances() throws {
        var workout = try SyntheticRide.workout(seconds: 300, seed: 8, startDate: CSVEncoderTests.startDate)
        let speeds = (0..<300).map { Sample(sensor: SensorID(3), type: .cyclingSpeed, value: 8, time: workout.start + .seconds($0)) }
        workout.samples = (workout.samples + speeds).sorted { $0.time < $1.time }
        let tcx = TCXEncoder().encode(workout)
        #expect(try Self.schemaErrors(tcx) == nil)
        let active = WorkoutSeconds(workout).seconds.count(where: \.isActive)
        let lap = try #require(tcx.components(separatedBy: "<Track>").first)
        #expect(Self.elements("DistanceMeters", in: lap) == ["\(8 * active)"])
        #expect(Self.elements("MaximumSpeed", in: lap) == ["8"])
        #expect(Self.elements("DistanceMeters", in: tcx).last == "\(8 * active)")  // the last trackpoint's
        #expect(Self.elements("ns3:Speed", in: tcx).count == active)
        #expect(Self.elements("ns3:AvgSpeed", in: tcx) == ["8"])
    }

    @Test(.enabled(if: xmllint != nil, "needs xmllint (Debian libxml2-utils, in .ci/debian-packages)"))
    func textIsEscaped() throws {
        var workout = try SyntheticRide.workout(seconds: 120, seed: 7, startDate: CSVEncoderTests.startDate)
        workout.sensors = [SensorID(1): "Polar <H10> & \"Co\"\u{1}"]
        let tcx = TCXEncoder().encode(workout)
        #expect(tcx.contains("<Notes>Sensors: Polar &lt;H10&gt; &amp; &quot;Co&quot;\u{FFFD}</Notes>"))
        #expect(try Self.schemaErrors(tcx) == nil)
    }

    /// A lap an auto-lap ended is `Time`; the person's laps and the last lap are `Manual`.
    @Test func triggerMethodSaysWhatEndedEachLap() throws {
        let workout = try FITDecodeTests.autoRulesWorkout()
        #expect(workout.laps.count == 4)
        #expect(Self.elements("TriggerMethod", in: TCXEncoder().encode(workout)) == ["Time", "Manual", "Time", "Manual"])
    }
}

/// Numbers as the exports print them, for expectations.
enum ExportTestsFormat {
    static func number(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }
}
