public import SensorCore

/// Why a plan file was not read: what is wrong and where, in words a person can act on.
public struct WorkoutPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// SensorBridge's JSON form of a plan (README, "Workout plans"), read by `init(jsonForm:)` and
/// written by `jsonForm` (what the store keeps of the plan a workout was ridden to):
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
extension WorkoutPlan {
    public init(jsonForm json: JSONValue) throws(WorkoutPlanError) {
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
                    repeated.append(try Self.step(step, place: "\(place), repeated step \(offset + 1)"))
                }
                entries.append(.repeated(count: count, steps: repeated))
            } else {
                entries.append(.step(try Self.step(entry, place: place)))
            }
        }
        self.init(name: json["name"]?.stringValue ?? "Workout", sport: sport, entries: entries)
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

    /// The plan in the JSON form `init(jsonForm:)` reads back to an equal plan.
    public var jsonForm: JSONValue {
        func step(_ step: PlanStep) -> JSONValue {
            var object = JSONObject()
            if let name = step.name { object["name"] = .string(name) }
            switch step.length {
            case .open: object["duration"] = .string("open")
            case .time(let length): object["duration"] = .number(Double(length.clampedNanoseconds / 1_000_000) / 1000)
            }
            func text(_ value: Double) -> String {
                // Shortest text that reads back to the same value.
                value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
            }
            func range(_ low: Double, _ high: Double, _ unit: String) -> JSONValue {
                .string(low == high ? "\(text(low))\(unit)" : "\(text(low))-\(text(high))\(unit)")
            }
            func zones(_ z: ClosedRange<Int>) -> JSONValue {
                .string(z.count == 1 ? "Z\(z.lowerBound)" : "Z\(z.lowerBound)-\(z.upperBound)")
            }
            switch step.target {
            case .none: break
            case .powerOfFTP(let r): object["power"] = range(Self.percent(r.lowerBound), Self.percent(r.upperBound), "%")
            case .watts(let r): object["power"] = range(r.lowerBound, r.upperBound, "W")
            case .rampOfFTP(let from, let to):
                object["power"] = range(Self.percent(from), Self.percent(to), "%")
                object["ramp"] = .bool(true)
            case .rampWatts(let from, let to):
                object["power"] = range(from, to, "W")
                object["ramp"] = .bool(true)
            case .powerZones(let z): object["power"] = zones(z)
            case .heartRateZones(let z): object["heartRate"] = zones(z)
            case .heartRate(let r): object["heartRate"] = range(r.lowerBound, r.upperBound, "")
            }
            if let cadence = step.cadence { object["cadence"] = range(cadence.lowerBound, cadence.upperBound, "") }
            return .object(object)
        }
        let steps: [JSONValue] = entries.map { entry in
            switch entry {
            case .step(let planned): step(planned)
            case .repeated(let count, let steps): .object(["repeat": .number(Double(count)), "steps": .array(steps.map(step))])
            }
        }
        return .object(["name": .string(name), "sport": .string(sport.rawValue), "steps": .array(steps)])
    }

    /// A fraction as a percentage, without the binary fraction's tail (0.88 → 88, not 88.00000000000001).
    private static func percent(_ fraction: Double) -> Double { (fraction * 100 * 1e9).rounded() / 1e9 }
}
