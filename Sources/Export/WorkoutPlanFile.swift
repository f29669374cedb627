public import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import SensorCore
public import Workouts

/// Reads a structured workout (`WorkoutPlan`) from the forms SensorBridge takes: a FIT workout
/// file (`FITWorkoutFile`), Zwift's `.zwo` (what Zwift, intervals.icu and TrainerRoad export)
/// through Foundation's XML parser, and SensorBridge's JSON form (`WorkoutPlan(jsonForm:)`).
public enum WorkoutPlanFile {
    /// The plan in `data`: a FIT workout file by its header (`FITWorkoutFile`), `.zwo` when it
    /// starts with `<` (after white space), else JSON.
    public static func read(_ data: Data) throws(WorkoutPlanError) -> WorkoutPlan {
        if FITWorkoutFile.isFIT(data) { return try FITWorkoutFile.read(data) }
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" }).first == "<" { return try zwo(data) }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            throw WorkoutPlanError("neither a .zwo file (XML) nor JSON: \(error)")
        }
        return try WorkoutPlan(jsonForm: json)
    }

    // MARK: .zwo

    /// A `.zwo` file: `<workout_file>` with `<name>`, `<sportType>` (bike, run) and `<workout>`,
    /// whose elements are steps: `SteadyState` (`Power`, or `PowerLow`/`PowerHigh`), `Warmup`,
    /// `Cooldown` and `Ramp` (a ramp from `PowerLow` to `PowerHigh`), `IntervalsT` (`Repeat` times
    /// `OnDuration` at `OnPower` then `OffDuration` at `OffPower`, `Cadence`/`CadenceResting`),
    /// `FreeRide` and `MaxEffort` (no target); powers are fractions of FTP. Names of elements and
    /// attributes are matched in any case. `textevent`s are left out; any other element is refused
    /// by name.
    static func zwo(_ data: Data) throws(WorkoutPlanError) -> WorkoutPlan {
        let reader = ZWOReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        let parsed = parser.parse()
        if let failure = reader.failure { throw failure }
        guard parsed else {
            throw WorkoutPlanError(
                "not a well-formed .zwo file: \(parser.parserError.map { "\($0.localizedDescription)" } ?? "XML error") at line \(parser.lineNumber)")
        }
        guard reader.sawWorkout else { throw WorkoutPlanError("a .zwo file has <workout_file> with a <workout> of steps; none was found") }
        guard reader.closedWorkout else { throw WorkoutPlanError("the file ends before </workout>: it was cut short") }
        guard !reader.entries.isEmpty else { throw WorkoutPlanError("the .zwo file's <workout> has no steps") }
        return WorkoutPlan(name: reader.name ?? "Workout", sport: reader.sport, entries: reader.entries)
    }
}

/// The `.zwo` elements as `XMLParser` hands them over. Not shared: one parse on one thread.
private final class ZWOReader: NSObject, XMLParserDelegate {
    var name: String?
    var sport = WorkoutActivityType.cycling
    var entries: [WorkoutPlan.Entry] = []
    var failure: WorkoutPlanError?
    var sawWorkout = false
    /// `</workout>` came: the file was not cut short in its steps.
    var closedWorkout = false
    private var inWorkout = false
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        if element == "workout" {
            (inWorkout, sawWorkout) = (true, true)
            return
        }
        guard inWorkout, failure == nil else { return }
        do {
            if let entry = try entry(element, attributes, line: parser.lineNumber) { entries.append(entry) }
        } catch {
            failure = error
            parser.abortParsing()
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch element {
        case "workout": (inWorkout, closedWorkout) = (false, true)
        case "name" where !inWorkout: name = value.isEmpty ? nil : value
        case "sportType" where !inWorkout: sport = value.lowercased() == "run" ? .running : .cycling
        default: break
        }
    }

    private func entry(_ element: String, _ a: [String: String], line: Int) throws(WorkoutPlanError) -> WorkoutPlan.Entry? {
        let place = "line \(line), <\(element)>"
        // Attribute names as Zwift writes them, matched without regard to case (files differ).
        let attributes = Dictionary(a.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        func number(_ key: String) throws(WorkoutPlanError) -> Double? {
            guard let text = attributes[key.lowercased()] else { return nil }
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else {
                throw WorkoutPlanError("\(place): \(key)=\"\(text)\" is not a number")
            }
            return value
        }
        func duration(_ key: String) throws(WorkoutPlanError) -> PlanStep.Length {
            guard let seconds = try number(key), seconds > 0, seconds <= 86_400 else {
                throw WorkoutPlanError("\(place): give \(key), the step's seconds (1 to 86400)")
            }
            return .time(.milliseconds(Int64((seconds * 1000).rounded())))
        }
        func power(_ key: String) throws(WorkoutPlanError) -> Double {
            guard let value = try number(key), value <= 3 else {
                throw WorkoutPlanError("\(place): give \(key), a fraction of FTP (0.75 for 75 %, at most 3)")
            }
            return value
        }
        func cadence(_ key: String) throws(WorkoutPlanError) -> ClosedRange<Double>? {
            guard let rpm = try number(key) else { return nil }
            guard (20...250).contains(rpm) else { throw WorkoutPlanError("\(place): \(key)=\"\(rpm)\": give rpm from 20 to 250") }
            return rpm...rpm
        }
        func ramp(_ length: PlanStep.Length) throws(WorkoutPlanError) -> PlanStep {
            let (low, high) = (try power("PowerLow"), try power("PowerHigh"))
            let target: PlanStep.Target = low == high ? .powerOfFTP(low...low) : .rampOfFTP(from: low, to: high)
            return PlanStep(name: nil, length: length, target: target, cadence: try cadence("Cadence"))
        }
        // Element names too (files differ): `SteadyState`, `steadystate`.
        switch element.lowercased() {
        case "steadystate":
            let length = try duration("Duration")
            let target: PlanStep.Target
            if attributes["power"] != nil {
                let value = try power("Power")
                target = .powerOfFTP(value...value)
            } else {
                let (low, high) = (try power("PowerLow"), try power("PowerHigh"))
                target = .powerOfFTP(min(low, high)...max(low, high))
            }
            return .step(PlanStep(length: length, target: target, cadence: try cadence("Cadence")))
        case "warmup", "cooldown", "ramp":
            return .step(try ramp(try duration("Duration")))
        case "intervalst":
            guard let count = try number("Repeat"), count >= 1, count <= 1000, count == count.rounded() else {
                throw WorkoutPlanError("\(place): give Repeat, how many times (1 to 1000)")
            }
            let (on, off) = (try power("OnPower"), try power("OffPower"))
            return .repeated(
                count: Int(count),
                steps: [
                    PlanStep(length: try duration("OnDuration"), target: .powerOfFTP(on...on), cadence: try cadence("Cadence")),
                    PlanStep(length: try duration("OffDuration"), target: .powerOfFTP(off...off), cadence: try cadence("CadenceResting")),
                ])
        case "freeride", "maxeffort":
            return .step(PlanStep(name: element.lowercased() == "maxeffort" ? "Max effort" : "Free ride", length: try duration("Duration")))
        case "textevent":
            return nil
        default:
            throw WorkoutPlanError(
                "\(place): not a step SensorBridge knows (SteadyState, Warmup, Cooldown, Ramp, IntervalsT, FreeRide, MaxEffort)")
        }
    }
}
