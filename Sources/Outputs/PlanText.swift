public import SensorCore
public import Workouts
import Export

/// A plan's steps in words and as JSON, for `sensorbridge plan`, the summaries and the live screens.
public enum PlanText {
    /// `Step 3 of 8: 5:00, 90% of FTP (225 W)`: the step `coach` has begun, or that the plan is done.
    public static func beginning(_ coach: StepCoach) -> String {
        guard let current = coach.current else { return "The plan is done: ride on, or end the workout" }
        let name = current.step.name.map { " (\($0))" } ?? ""
        return "Step \(coach.index + 1) of \(coach.sequence.count)\(name): \(brief(current.step, ftp: coach.functionalThresholdPower))"
    }

    /// The step under way as `/api/live` and MQTT's `step` give it: `number` of `of`, `name`,
    /// `target` in words, `goal` now (`quantity` and `low`/`high` values, or 1-based `zones`),
    /// `elapsed` and `timeLeft` (s; null for an open step), `next` in words, `judgement` (`below`,
    /// `in`, `above`, null unknown), `outFor` (s), `alert`, `paused`.
    public static func json(_ step: DashboardState.Step) -> JSONValue {
        func seconds(_ d: Duration?) -> JSONValue { d.map { .number($0.seconds.rounded(.down)) } ?? .null }
        let goal: JSONValue = step.goal.map { goal in
            let quantity = JSONValue.string(goal.quantityType == .heartRate ? "heartRate" : "power")
            switch goal.bounds {
            case .values(let r):
                return .object(["quantity": quantity, "low": .number((r.lowerBound * 10).rounded() / 10), "high": .number((r.upperBound * 10).rounded() / 10)])
            case .zones(let z, _):
                return .object(["quantity": quantity, "zones": .array([.number(Double(z.lowerBound + 1)), .number(Double(z.upperBound + 1))])])
            }
        } ?? .null
        let judgement: JSONValue =
            switch step.judgement {
            case .below: "below"
            case .in: "in"
            case .above: "above"
            case nil: .null
            }
        return .object([
            "number": .number(Double(step.number)), "of": .number(Double(step.count)), "name": step.name.map(JSONValue.string) ?? .null,
            "target": .string(step.target), "goal": goal, "elapsed": seconds(step.elapsed), "timeLeft": step.timeLeft.map { .number($0.seconds.rounded(.up)) } ?? .null,
            "next": step.next.map(JSONValue.string) ?? .null, "judgement": judgement, "outFor": seconds(step.outFor),
            "alert": .bool(step.alert), "paused": .bool(step.paused),
        ])
    }

    /// `5:00, 88-94% of FTP (220-235 W)`, `open, free`: a step's length and target.
    public static func brief(_ step: PlanStep, ftp: Int?) -> String {
        (step.timeLength?.clockText ?? "open") + ", " + describe(step, ftp: ftp)
    }

    /// `88-94% of FTP (220-235 W), 85-95 rpm`.
    public static func describe(_ step: PlanStep, ftp: Int?) -> String {
        func number(_ value: Double) -> String { ExportNumber.text(value, decimals: 1) }
        func range(_ r: ClosedRange<Double>, _ scale: Double = 1) -> String {
            r.lowerBound == r.upperBound ? number(r.lowerBound * scale) : "\(number(r.lowerBound * scale))-\(number(r.upperBound * scale))"
        }
        func watts(_ r: ClosedRange<Double>?) -> String { r.map { " (\(range($0.lowerBound.rounded()...$0.upperBound.rounded())) W)" } ?? "" }
        var text: String
        switch step.target {
        case .none: text = "free"
        case .powerOfFTP(let r): text = "\(range(r, 100))% of FTP" + watts(step.watts(at: .zero, ftp: ftp))
        case .watts(let r): text = "\(range(r)) W"
        case .rampOfFTP(let from, let to):
            let end: Duration = if case .time(let length) = step.length { length } else { .zero }
            let (first, last) = (step.watts(at: .zero, ftp: ftp), step.watts(at: end, ftp: ftp))
            text = "ramp \(number(from * 100))% → \(number(to * 100))% of FTP"
                + (first.flatMap { f in last.map { " (\(Int(f.lowerBound.rounded())) → \(Int($0.lowerBound.rounded())) W)" } } ?? "")
        case .rampWatts(let from, let to): text = "ramp \(number(from)) → \(number(to)) W"
        case .powerZones(let z): text = z.count == 1 ? "power zone \(z.lowerBound)" : "power zones \(z.lowerBound)-\(z.upperBound)"
        case .heartRateZones(let z): text = z.count == 1 ? "heart-rate zone \(z.lowerBound)" : "heart-rate zones \(z.lowerBound)-\(z.upperBound)"
        case .heartRate(let r): text = "\(range(r)) bpm"
        }
        if let cadence = step.cadence { text += ", \(range(cadence)) rpm" }
        return text
    }

    /// The plan for `plan --json` and a workout's JSON: its steps in the order ridden, each with
    /// its target and the watts at its start for `ftp`.
    public static func json(_ plan: WorkoutPlan, ftp: Int?) -> JSONValue {
        func pair(_ r: ClosedRange<Double>) -> JSONValue { .object(["low": .number(r.lowerBound), "high": .number(r.upperBound)]) }
        func zones(_ r: ClosedRange<Int>) -> JSONValue { pair(Double(r.lowerBound)...Double(r.upperBound)) }
        let steps: [JSONValue] = plan.sequence.map { planned in
            let step = planned.step
            let target: JSONValue =
                switch step.target {
                case .none: .null
                case .powerOfFTP(let r): .object(["type": "powerOfFTP", "range": pair(r)])
                case .watts(let r): .object(["type": "watts", "range": pair(r)])
                case .rampOfFTP(let from, let to): .object(["type": "rampOfFTP", "from": .number(from), "to": .number(to)])
                case .rampWatts(let from, let to): .object(["type": "rampWatts", "from": .number(from), "to": .number(to)])
                case .powerZones(let z): .object(["type": "powerZones", "range": zones(z)])
                case .heartRateZones(let z): .object(["type": "heartRateZones", "range": zones(z)])
                case .heartRate(let r): .object(["type": "heartRate", "range": pair(r)])
                }
            let duration: JSONValue = if case .time(let length) = step.length { .number(length.seconds) } else { .null }
            return .object([
                "index": .number(Double(planned.index)), "round": planned.round.map { .number(Double($0.number)) } ?? .null,
                "of": planned.round.map { .number(Double($0.of)) } ?? .null, "name": step.name.map(JSONValue.string) ?? .null,
                "duration": duration, "target": target, "watts": step.watts(at: .zero, ftp: ftp).map(pair) ?? .null,
                "cadence": step.cadence.map(pair) ?? .null, "text": .string(describe(step, ftp: ftp)),
            ])
        }
        return .object([
            "name": .string(plan.name), "sport": .string(plan.sport.rawValue), "duration": plan.duration.map { .number($0.seconds) } ?? .null,
            "ftp": ftp.map { .number(Double($0)) } ?? .null, "steps": .array(steps),
        ])
    }
}
