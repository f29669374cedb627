import Foundation
import SensorBridge
import SensorCore
import Testing

@Suite struct ZonesCommandTests {
    /// Runs `sensorbridge ...` in-process.
    func run(_ arguments: [String]) -> (status: SensorBridge.ExitStatus, output: String, errors: String) {
        let output = TextOutput()
        let errors = TextOutput()
        let status = SensorBridgeCLI.run(
            arguments, context: CommandContext(input: LineReader(text: ""), output: output, errors: errors))
        return (status, output.text, errors.text)
    }

    @Test func jsonGivesBothDefaultConfigurations() throws {
        let result = run(["zones", "defaults", "--age", "40", "--resting-hr", "50", "--ftp", "250", "--json"])
        #expect(result.status == .success)
        #expect(result.errors.isEmpty)
        // Heart rate: maximum 208 - 0.7 x 40 = 180, reserve 130, boundaries 50 + 60/70/80/90 % = 128, 141, 154, 167.
        // Power: 55/75/90/105/120 % of 250 = 137.5, 187.5, 225, 262.5, 300, halves rounded up.
        let expected = #"{"heartRate":{"source":"system","unit":"count/min","zones":["#
            + #"{"index":0,"minimum":null,"maximum":128},{"index":1,"minimum":128,"maximum":141},"#
            + #"{"index":2,"minimum":141,"maximum":154},{"index":3,"minimum":154,"maximum":167},"#
            + #"{"index":4,"minimum":167,"maximum":null}]},"#
            + #""cyclingPower":{"source":"system","unit":"W","zones":["#
            + #"{"index":0,"minimum":null,"maximum":138},{"index":1,"minimum":138,"maximum":188},"#
            + #"{"index":2,"minimum":188,"maximum":225},{"index":3,"minimum":225,"maximum":263},"#
            + #"{"index":4,"minimum":263,"maximum":300},{"index":5,"minimum":300,"maximum":null}]}}"#
        #expect(result.output == expected + "\n")
        let parsed = try JSONValue(parsing: result.output)
        #expect(parsed.objectValue?.keys == ["heartRate", "cyclingPower"])
    }

    @Test func eachModelAppearsOnlyWhenItsFlagsAreGiven() throws {
        let heartRateOnly = try JSONValue(parsing: run(["zones", "defaults", "--max-hr", "190", "--resting-hr", "50", "--json"]).output)
        #expect(heartRateOnly.objectValue?.keys == ["heartRate"])
        // A measured maximum of 190: reserve 140, boundaries 134, 148, 162, 176.
        let maxima = heartRateOnly["heartRate"]?["zones"]?.arrayValue?.map { $0["maximum"]?.integerValue }
        #expect(maxima == [134, 148, 162, 176, nil])

        let powerOnly = try JSONValue(parsing: run(["zones", "defaults", "--ftp", "250", "--power-model", "7", "--json"]).output)
        #expect(powerOnly.objectValue?.keys == ["cyclingPower"])
        let zones = try #require(powerOnly["cyclingPower"]?["zones"]?.arrayValue)
        #expect(zones.count == 7)
        #expect(zones[6].serialized == #"{"index":6,"minimum":375,"maximum":null}"#)
    }

    @Test func humanOutputIsATable() {
        let result = run(["zones", "defaults", "--age", "33", "--resting-hr", "50"])
        #expect(result.status == .success)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Heart-rate zones (system, count/min): resting 50, maximum 184.9 (208 - 0.7 x age 33)")
        #expect(lines.contains("     1          -     131  below 60 %"))
        #expect(lines.contains("     2        131     144  60 to 70 %"))
        #expect(lines.contains("     5        171       -  90 % and above"))
    }

    @Test func aBirthDateGivesTheSameZonesAsTheAgeItMakesToday() throws {
        // Born exactly 40 years ago today (February 28 for someone born on a February 29).
        let today = Calendar.current.dateComponents([.year, .month, .day], from: Date())
        let year = try #require(today.year) - 40
        let month = try #require(today.month)
        let day = month == 2 && today.day == 29 ? 28 : try #require(today.day)
        func pad(_ value: Int, _ width: Int) -> String {
            String(repeating: "0", count: width - String(value).count) + String(value)
        }
        let birthDate = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        let byBirthDate = run(["zones", "defaults", "--birth-date", birthDate, "--resting-hr", "50", "--json"])
        #expect(byBirthDate.status == .success, "\(byBirthDate.errors)")
        #expect(byBirthDate.output == run(["zones", "defaults", "--age", "40", "--resting-hr", "50", "--json"]).output)
    }

    @Test(arguments: [
        (["--age", "40"], "add --resting-hr N"),
        (["--resting-hr", "50"], "add --age N or --birth-date YYYY-MM-DD to estimate it, or --max-hr N"),
        ([], "give a profile: --age N (or --birth-date YYYY-MM-DD) and --resting-hr N for heart-rate zones, --ftp W"),
        (["--age", "-3", "--resting-hr", "50"], "--age -3 is out of range; give a value from 1 to 120"),
        (["--age", "forty", "--resting-hr", "50"], "--age needs a number, not 'forty'"),
        (["--ftp", "250.5"], "--ftp needs a whole number, like 250 (W), not '250.5'"),
        (["--age", "40", "--resting-hr", "175"], "--resting-hr 175 must be at least 10 below the maximum heart rate 180"),
        (["--resting-hr", "190", "--max-hr", "180"], "--resting-hr 190 must be at least 10 below --max-hr 180"),
        (["--birth-date", "1985-02-30", "--resting-hr", "50"], "--birth-date needs a date as YYYY-MM-DD"),
        (["--birth-date", "9999-01-01", "--resting-hr", "50"], "--birth-date 9999-01-01 is after today"),
        (["--age", "40", "--birth-date", "1985-01-01", "--resting-hr", "50"], "give --age or --birth-date, not both"),
        (["--ftp", "250", "--power-model", "5"], "--power-model takes 6 (six zones) or 7 (Coggan's seven), not '5'"),
        (["--age", "40", "--resting-hr", "50", "--power-model", "7"], "--power-model needs --ftp"),
        (["--agee", "40"], "unknown option '--agee' for 'zones defaults'"),
    ])
    func usageErrorsSayWhatToDoAndExitWithStatus2(arguments: [String], message: String) {
        let result = run(["zones", "defaults"] + arguments)
        #expect(result.status == .usage)
        #expect(result.output.isEmpty)
        #expect(result.errors.hasPrefix("sensorbridge zones: "))
        #expect(result.errors.contains(message), "\(result.errors)")
    }

    @Test func helpHasExamples() {
        let defaults = run(["zones", "defaults", "--help"])
        #expect(defaults.status == .success)
        #expect(defaults.output.contains("Examples:\n  sensorbridge zones defaults --age 40 --resting-hr 50\n"))
        let zones = run(["zones", "--help"])
        #expect(zones.status == .success)
        #expect(zones.output.contains("defaults"))
        #expect(run(["zones"]).status == .usage)
        #expect(run(["zones", "limits"]).errors.contains("unknown zones command 'limits'"))
        #expect(run(["--help"]).output.contains("  zones       zones: defaults for a profile; set, show, reset your own"))
    }
}
