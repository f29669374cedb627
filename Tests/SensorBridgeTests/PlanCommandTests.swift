import Foundation
import SensorCore
import Testing

/// `sensorbridge plan`: the README's example, the JSON form with the profile's FTP, and what is refused.
@Suite struct PlanCommandTests {
    @Test func theREADMEExamplePrintsWhatTheREADMEShows() throws {
        let examples = try readmeExamples(under: "## Workout plans")
        #expect(examples.count == 1)
        for (command, shown) in examples {
            let words = command.split(separator: " ").dropFirst().map { word in
                word.hasPrefix("Captures/") ? ReplayCommandTests.captures.appendingPathComponent(String(word.dropFirst(9))).path : String(word)
            }
            let result = runCLI(words)
            #expect(result.status == .success, "\(command): \(result.errors)")
            #expect(result.output.split(separator: "\n").map(String.init) == shown.filter { !$0.isEmpty }, "\(result.output)")
        }
    }

    /// A JSON plan with the FTP of the store's profile: the steps as ridden, with the watts.
    @Test func theJSONFormWithTheProfilesFTP() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("workouts.sqlite").path
        let plan = folder.appendingPathComponent("plan.json")
        try #"{"name": "Threshold", "steps": [{"repeat": 2, "steps": [{"duration": "8m", "power": "95-105%"}, {"duration": "open", "power": "50%"}]}]}"#
            .write(to: plan, atomically: true, encoding: .utf8)
        #expect(runCLI(["profile", "set", "--ftp", "300", "--store", store]).status == .success)
        let shown = runCLI(["plan", plan.path, "--json", "--store", store])
        #expect(shown.status == .success, "\(shown.errors)")
        let json = try JSONValue(parsing: shown.output)
        #expect(json["ftp"] == 300 && json["duration"] == .null && json["name"]?.stringValue == "Threshold")
        let steps = json["steps"]?.arrayValue ?? []
        #expect(steps.map { $0["index"]?.integerValue } == [0, 1, 0, 1] && steps.map { $0["round"]?.integerValue } == [1, 1, 2, 2])
        #expect(steps.first?["watts"] == .object(["low": 285, "high": 315]) && steps.first?["duration"] == 480)
        #expect(steps.last?["duration"] == .null && steps.last?["watts"] == .object(["low": 150, "high": 150]))
        let text = runCLI(["plan", plan.path, "--ftp", "200"])
        #expect(text.output.contains("95-105% of FTP (190-210 W)") && text.output.contains("open"), "\(text.output)")
    }

    @Test func whatIsWrongIsSaid() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).zwo")
        defer { try? FileManager.default.removeItem(at: bad) }
        try "<workout_file><workout><SteadyState Duration=\"300\" Power=\"0.65\"/>".write(to: bad, atomically: true, encoding: .utf8)
        let cut = runCLI(["plan", bad.path])
        #expect(cut.status == .failure && cut.errors.contains("the file ends before </workout>: it was cut short"), "\(cut.errors)")
        #expect(runCLI(["plan"]).status == .usage)
        #expect(runCLI(["plan", "/nonexistent/plan.zwo"]).status == .usage)
        #expect(runCLI(["plan", bad.path, "--ftp", "9"]).status == .usage)
    }
}
