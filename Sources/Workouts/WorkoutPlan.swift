/// A structured workout (issue 33, "Workout plans"): steps, each with a length (a time, or open
/// until the lap key) and a target, some of them repeated. What `.zwo`, FIT workout and the JSON
/// form describe alike (`WorkoutPlanFile` reads them). Pure.
public struct WorkoutPlan: Sendable, Equatable {
    public var name: String
    /// What the plan is for: cycling, or running (Zwift's `run`).
    public var sport: WorkoutActivityType
    /// The steps as written: a step, or steps repeated a number of times.
    public var entries: [Entry]

    public enum Entry: Sendable, Equatable {
        case step(PlanStep)
        case repeated(count: Int, steps: [PlanStep])
    }

    public init(name: String, sport: WorkoutActivityType = .cycling, entries: [Entry]) {
        self.name = name
        self.sport = sport
        self.entries = entries
    }

    /// One step as ridden: the step, its index among the written steps (FIT's `wkt_step_index`:
    /// a repeat's steps are written once, followed by the repeat as a step of its own) and, in a
    /// repeat, which time round (from 1) of how many.
    public struct Planned: Sendable, Equatable {
        public var step: PlanStep
        public var index: Int
        public var round: (number: Int, of: Int)?

        public static func == (a: Planned, b: Planned) -> Bool {
            a.step == b.step && a.index == b.index && a.round?.number == b.round?.number && a.round?.of == b.round?.of
        }
    }

    /// The steps in the order they are ridden, repeats unrolled.
    public var sequence: [Planned] {
        var planned: [Planned] = []
        var index = 0
        for entry in entries {
            switch entry {
            case .step(let step):
                planned.append(Planned(step: step, index: index))
                index += 1
            case .repeated(let count, let steps):
                for round in 1...max(count, 1) {
                    for (offset, step) in steps.enumerated() {
                        planned.append(Planned(step: step, index: index + offset, round: (round, count)))
                    }
                }
                // The repeat itself is a step of FIT's (`repeat_until_steps_cmplt`), after its steps.
                index += steps.count + 1
            }
        }
        return planned
    }

    /// The time the steps take together; nil when one of them is open (ends at the lap key).
    public var duration: Duration? {
        var total = Duration.zero
        for planned in sequence {
            guard case .time(let length) = planned.step.length else { return nil }
            total += length
        }
        return total
    }
}

/// A step of a plan: how long it lasts, what to hold, and optionally a cadence.
public struct PlanStep: Sendable, Equatable {
    public enum Length: Sendable, Equatable {
        case time(Duration)
        /// Until the lap key (the dashboard's `l`, the page's Lap).
        case open
    }

    /// What to hold. Ranges are inclusive; a ramp goes from its first value to its second over the
    /// step (down for a cool-down).
    public enum Target: Sendable, Equatable {
        /// Ride as you like (Zwift's free ride and max effort).
        case none
        /// Power as a fraction of FTP (0.88 for 88 %).
        case powerOfFTP(ClosedRange<Double>)
        /// Power in watts.
        case watts(ClosedRange<Double>)
        /// A ramp of power, fractions of FTP, from the first to the second.
        case rampOfFTP(from: Double, to: Double)
        /// A ramp of power in watts.
        case rampWatts(from: Double, to: Double)
        /// Power zones, 1-based as people number them.
        case powerZones(ClosedRange<Int>)
        /// Heart-rate zones, 1-based.
        case heartRateZones(ClosedRange<Int>)
        /// Heart rate in beats per minute.
        case heartRate(ClosedRange<Double>)

        /// Whether its watts depend on the FTP (% of FTP, steady or a ramp).
        public var isRelativeToFTP: Bool {
            switch self {
            case .powerOfFTP, .rampOfFTP: true
            case .none, .watts, .rampWatts, .powerZones, .heartRateZones, .heartRate: false
            }
        }
    }

    public var name: String?
    public var length: Length
    public var target: Target
    /// Cadence in revolutions per minute.
    public var cadence: ClosedRange<Double>?

    public init(name: String? = nil, length: Length, target: Target = .none, cadence: ClosedRange<Double>? = nil) {
        self.name = name
        self.length = length
        self.target = target
        self.cadence = cadence
    }

    /// The power in watts the target asks for at `elapsed` into the step, for an athlete with FTP
    /// `ftp`; nil for a target that is no power in watts or FTP (zones, heart rate, none) or a
    /// fraction of FTP without one. A ramp's value moves linearly over the step's time.
    public func watts(at elapsed: Duration, ftp: Int?) -> ClosedRange<Double>? {
        let ftp = ftp.map(Double.init)
        func along(_ from: Double, _ to: Double) -> Double {
            guard case .time(let length) = length, length > .zero else { return from }
            return from + (to - from) * min(max(elapsed / length, 0), 1)
        }
        switch target {
        case .powerOfFTP(let range): return ftp.map { (range.lowerBound * $0)...(range.upperBound * $0) }
        case .watts(let range): return range
        case .rampOfFTP(let from, let to): return ftp.map { value in let w = along(from, to) * value; return w...w }
        case .rampWatts(let from, let to):
            let w = along(from, to)
            return w...w
        case .none, .powerZones, .heartRateZones, .heartRate: return nil
        }
    }
}
