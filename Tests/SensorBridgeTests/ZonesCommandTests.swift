import Foundation
import SensorBridge
import SensorCore
import Testing
import Outputs

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

    @Test func percentOfMaximumAndFrielsPercentOfThreshold() throws {
        func maxima(_ arguments: [String]) throws -> [Int?] {
            let result = run(["zones", "defaults", "--json"] + arguments)
            #expect(result.status == .success, "\(result.errors)")
            return try #require(try JSONValue(parsing: result.output)["heartRate"]?["zones"]?.arrayValue).map { $0["maximum"]?.integerValue }
        }
        // 60, 70, 80, 90 % of 180; Tanaka's maximum at 40 is 180 too.
        #expect(try maxima(["--max-hr", "180", "--hr-model", "max"]) == [108, 126, 144, 162, nil])
        #expect(try maxima(["--age", "40", "--hr-model", "max"]) == [108, 126, 144, 162, nil])
        // 81, 90, 94, 100, 103, 106 % of 165: 133.65, 148.5, 155.1, 165, 169.95, 174.9.
        #expect(try maxima(["--lthr", "165", "--hr-model", "lthr"]) == [134, 149, 155, 165, 170, 175, nil])
        // Reserve stays the default.
        #expect(try maxima(["--age", "40", "--resting-hr", "50", "--hr-model", "reserve"]) == [128, 141, 154, 167, nil])

        let table = run(["zones", "defaults", "--lthr", "165", "--hr-model", "lthr"]).output
        #expect(
            table == """
                Heart-rate zones (system, count/min, Friel's % of LTHR): LTHR 165
                  zone  from (>=)  to (<)  of LTHR
                     1          -     134  below 81 %
                     2        134     149  81 to 90 %
                     3        149     155  90 to 94 %
                     4        155     165  94 to 100 %
                    5a        165     170  100 to 103 %
                    5b        170     175  103 to 106 %
                    5c        175       -  106 % and above

                """)
        let maximum = run(["zones", "defaults", "--max-hr", "180", "--hr-model", "max"]).output
        #expect(maximum.hasPrefix("Heart-rate zones (system, count/min, % of maximum): maximum 180 (measured)\n"))
        #expect(maximum.contains("     2        108     126  60 to 70 %\n"))
    }

    @Test(arguments: [
        (["--lthr", "165", "--hr-model", "zone2"], "--hr-model takes reserve (heart-rate reserve, Karvonen), max (percent of maximum) or lthr"),
        (["--hr-model", "lthr"], "--hr-model lthr needs --lthr BPM to compute heart-rate zones"),
        (["--ftp", "250", "--hr-model", "max"], "--hr-model max needs --max-hr BPM (or --age YEARS)"),
        (["--age", "40", "--resting-hr", "50", "--hr-model", "lthr"],
         "the %LTHR model needs your lactate-threshold heart rate: add --lthr BPM, as in 'sensorbridge profile set --lthr 165'"),
        (["--lthr", "165"], "--lthr is for Friel's %LTHR zones: add --hr-model lthr (%HRR zones need --resting-hr N and one of"),
        (["--lthr", "22", "--hr-model", "lthr"], "--lthr 22 is too low for seven distinct %LTHR zones"),
        (["--lthr", "300", "--hr-model", "lthr"], "--lthr 300 is out of range; give a value from 20 to 250"),
        (["--resting-hr", "50", "--hr-model", "max"], "heart-rate zones need your maximum heart rate: add --age N"),
    ])
    func heartRateModelErrorsNameWhatIsMissing(arguments: [String], message: String) {
        let result = run(["zones", "defaults"] + arguments)
        #expect(result.status == .usage)
        #expect(result.errors.contains(message), "\(result.errors)")
    }

    /// Every `$ sensorbridge ...` example of the README's zones section, run in order against a new
    /// store (SENSORBRIDGE_STORE), prints what the README shows after it (up to a `...` line):
    /// standard output, or standard error for a refusal.
    @Test func theREADMEZoneExamplesPrintWhatTheREADMEShows() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["SENSORBRIDGE_STORE": folder.appendingPathComponent("workouts.sqlite").path, "TZ": "UTC"]

        let examples = try readmeExamples(under: "## `sensorbridge zones defaults`: the zone models")
        #expect(examples.count == 7)
        for (command, shown) in examples {
            let words = command.split(separator: " ").dropFirst().map(String.init)
            let result = runCLI(words, environment: environment)
            let printed = (result.status == .success ? result.output : result.errors).split(separator: "\n").map(String.init)
            #expect(result.status == .success || result.output.isEmpty, "\(command)")
            let compared = Array(shown.prefix { $0.trimmingCharacters(in: .whitespaces) != "..." })
            #expect(Array(printed.prefix(compared.count)) == compared, "\(command)")
            if compared.count == shown.count { #expect(printed.count == shown.count, "\(command): \(printed)") }
        }
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
        (["--age", "forty", "--resting-hr", "50"], "--age needs a number from 1 to 120, not 'forty'"),
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
