public import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import SensorCore
public import Workouts

/// Why a plan file was not read: what is wrong and where, in words a person can act on.
public struct WorkoutPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Reads a structured workout (`WorkoutPlan`) from the forms SensorBridge takes: a FIT workout
/// file (`FITWorkoutFile`), Zwift's `.zwo` (what Zwift, intervals.icu and TrainerRoad export)
/// through Foundation's XML parser, and SensorBridge's JSON form (README, "Workout plans"):
///
///     {"name": "2x20", "sport": "cycling", "steps": [
///       {"name": "Warm-up", "duration": "10m", "power": "50-75%", "ramp": true},
///       {"repeat": 2, "steps": [{"duration": "20m", "power": "88-94%", "cadence": "85-95"},
///                               {"duration": "5m", "power": "55%"}]},
///       {"duration": "open", "heartRate": "Z2"}]}
///
/// Durations are seconds, or `90s`, `10m`, `1h30m`, or `open` (until the lap key). `power` is `N%`
/// or `A-B%` of FTP, `NW` or `A-BW`, `ZN` or `ZA-B` (power zones); with `"ramp": true` a range goes
/// from its first value to its second. `heartRate` is `ZN`, `ZA-B` or `A-B` bpm. `cadence` is `N`
/// or `A-B` rpm.
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
        return try plan(json)
    }

    // MARK: JSON

    static func plan(_ json: JSONValue) throws(WorkoutPlanError) -> WorkoutPlan {
        guard json.objectValue != nil else { throw WorkoutPlanError("give a JSON object with \"name\" and \"steps\"") }
        let sport = try json["sport"]?.stringValue.map { text throws(WorkoutPlanError) in
            guard let type = WorkoutActivityType(name: text) else { throw WorkoutPlanError("sport \(text) is not an activity type") }
            return type
        } ?? .cycling
        guard let steps = json["steps"]?.arrayValue, !steps.isEmpty else { throw WorkoutPlanError("give \"steps\", a list of one step or more") }
        var entries: [WorkoutPlan.Entry] = []
        for (index, entry) in steps.enumerated() {
            let place = "step \(index + 1)"
            if let count = entry["repeat"] {
                guard let count = count.integerValue, (1...1000).contains(count) else {
                    throw WorkoutPlanError("\(place): \"repeat\" is a count from 1 to 1000")
                }
                guard let inner = entry["steps"]?.arrayValue, !inner.isEmpty else {
                    throw WorkoutPlanError("\(place): a repeat has \"steps\", a list of one step or more")
                }
                var repeated: [PlanStep] = []
                for (offset, step) in inner.enumerated() {
                    repeated.append(try self.step(step, place: "\(place), repeated step \(offset + 1)"))
                }
                entries.append(.repeated(count: count, steps: repeated))
            } else {
                entries.append(.step(try step(entry, place: place)))
            }
        }
        return WorkoutPlan(name: json["name"]?.stringValue ?? "Workout", sport: sport, entries: entries)
    }

    static func step(_ json: JSONValue, place: String) throws(WorkoutPlanError) -> PlanStep {
        guard let object = json.objectValue else { throw WorkoutPlanError("\(place): give an object") }
        let known: Set = ["name", "duration", "power", "heartRate", "cadence", "ramp"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw WorkoutPlanError("\(place): \"\(unknown)\" is not part of a step; give \(known.sorted().joined(separator: ", "))")
        }
        let length: PlanStep.Length
        switch json["duration"] {
        case .string("open"): length = .open
        case .string(let text): length = .time(try duration(text, place: place))
        case .number(let seconds) where seconds > 0 && seconds <= 86_400: length = .time(.milliseconds(Int64(seconds * 1000)))
        default: throw WorkoutPlanError("\(place): give a \"duration\" such as 300, \"90s\", \"10m\", \"1h30m\" or \"open\"")
        }
        let ramp = json["ramp"]?.boolValue ?? false
        var target = PlanStep.Target.none
        if let power = json["power"] {
            guard json["heartRate"] == nil else { throw WorkoutPlanError("\(place): give power or heartRate, not both") }
            target = try powerTarget(power.stringValue ?? "", ramp: ramp, place: place)
        } else if let heartRate = json["heartRate"] {
            guard !ramp else { throw WorkoutPlanError("\(place): a ramp is of power") }
            target = try heartRateTarget(heartRate.stringValue ?? "", place: place)
        } else if ramp {
            throw WorkoutPlanError("\(place): a ramp is of power; give \"power\": \"50-75%\"")
        }
        let cadence = try json["cadence"].map { value throws(WorkoutPlanError) -> ClosedRange<Double> in
            let text = value.stringValue ?? value.doubleValue.map { String($0) } ?? ""
            guard let range = Self.range(text), range.lowerBound >= 20, range.upperBound <= 250 else {
                throw WorkoutPlanError("\(place): cadence \(text): give rpm from 20 to 250, such as \"90\" or \"85-95\"")
            }
            return range
        }
        return PlanStep(name: json["name"]?.stringValue, length: length, target: target, cadence: cadence)
    }

    /// `10m`, `90s`, `1h30m`, `300`: a step's length, up to a day.
    static func duration(_ text: String, place: String) throws(WorkoutPlanError) -> Duration {
        guard let duration = Duration(written: text), duration <= .seconds(86_400) else {
            throw WorkoutPlanError("\(place): duration \(text): give one such as 300, \"90s\", \"10m\", \"1h30m\" (up to a day) or \"open\"")
        }
        return duration
    }

    /// `88%`, `88-94%`, `250W`, `200-250W`, `Z3`, `Z2-3`.
    static func powerTarget(_ text: String, ramp: Bool, place: String) throws(WorkoutPlanError) -> PlanStep.Target {
        let plain = text.replacingOccurrences(of: " ", with: "")
        let wrong = WorkoutPlanError("\(place): power \(text): give % of FTP (\"88%\", \"88-94%\"), watts (\"250W\", \"200-250W\") or zones (\"Z3\", \"Z2-3\")")
        if let zones = try zoneRange(plain, place: place) {
            guard !ramp else { throw WorkoutPlanError("\(place): a ramp goes between two powers, not zones") }
            return .powerZones(zones)
        }
        let percent = plain.hasSuffix("%")
        guard percent || plain.uppercased().hasSuffix("W") else { throw wrong }
        guard let (from, to) = pair(String(plain.dropLast())) else { throw wrong }
        let limit = percent ? 0...300.0 : 0...3000.0
        guard limit.contains(from), limit.contains(to) else { throw wrong }
        if ramp {
            guard from != to else { throw WorkoutPlanError("\(place): a ramp goes between two different powers: \(text)") }
            return percent ? .rampOfFTP(from: from / 100, to: to / 100) : .rampWatts(from: from, to: to)
        }
        guard from <= to else { throw WorkoutPlanError("\(place): power \(text): the range goes up; a ramp down is \"ramp\": true") }
        return percent ? .powerOfFTP((from / 100)...(to / 100)) : .watts(from...to)
    }

    /// `Z2`, `Z2-3`, `140-150` (bpm).
    static func heartRateTarget(_ text: String, place: String) throws(WorkoutPlanError) -> PlanStep.Target {
        let plain = text.replacingOccurrences(of: " ", with: "")
        if let zones = try zoneRange(plain, place: place) { return .heartRateZones(zones) }
        let bpm = plain.lowercased().hasSuffix("bpm") ? String(plain.dropLast(3)) : plain
        guard let range = range(bpm), range.lowerBound >= 30, range.upperBound <= 250 else {
            throw WorkoutPlanError("\(place): heartRate \(text): give zones (\"Z2\", \"Z2-3\") or bpm from 30 to 250 (\"140-150\")")
        }
        return .heartRate(range)
    }

    /// `Z3` or `Z2-3` as zones 1 to 9; nil for text that is no zone.
    static func zoneRange(_ text: String, place: String) throws(WorkoutPlanError) -> ClosedRange<Int>? {
        guard text.uppercased().hasPrefix("Z") else { return nil }
        guard let (from, to) = pair(String(text.dropFirst())), from == from.rounded(), to == to.rounded(), 1 <= from, from <= to, to <= 9
        else { throw WorkoutPlanError("\(place): \(text): give a zone from Z1 to Z9, or zones such as Z2-3") }
        return Int(from)...Int(to)
    }

    /// `A-B` or `A` as two numbers (equal for one).
    static func pair(_ text: String) -> (Double, Double)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let from = Double(parts[0]), let to = Double(parts[parts.count - 1]) else { return nil }
        return (from, to)
    }

    static func range(_ text: String) -> ClosedRange<Double>? {
        guard let (from, to) = pair(text), from <= to else { return nil }
        return from...to
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
