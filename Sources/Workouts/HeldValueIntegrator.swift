import SensorCore

/// Integrates one quantity over active time by the zone rule's sample-and-hold (DESIGN 3,
/// "Zones"): a sample at `t[i]` stands for `[t[i], min(t[i+1], t[i] + hold))`, intersected with
/// active time and cut at the end. Gives the integral (power → energy), the time covered, and
/// feeds the held value at every whole second of covered time to a `NormalizedPower`.
///
/// Times are nanoseconds from the workout start; callers give events in time order. No time
/// traps, however far apart (sums saturate at `Int64`'s ends), and the work per sample is bounded
/// by the hold, never by the gap before it.
struct HeldValueIntegrator: Sendable {
    let hold: Int64
    private var last: (value: Double, time: Int64)?
    private var paused = false
    private var creditedUntil: Int64 = 0
    /// Σ value × seconds over covered time.
    private(set) var integral = 0.0
    /// Covered time, nanoseconds.
    private(set) var coveredNanoseconds: Int64 = 0
    /// Normalized power of the held values at each whole second (from the start) of covered time.
    private(set) var normalized = NormalizedPower()
    /// The held value at each whole second of covered time, with that second (from the start),
    /// when asked for (`init(hold:keepingSeconds:)`): the series best efforts are found in.
    private(set) var seconds: [(second: Int64, value: Double)]?

    init(hold: Duration, keepingSeconds: Bool = false) {
        // A hold longer than any workout is no hold: the cap keeps the work per sample bounded.
        self.hold = min(max(hold, .zero), .maximumWorkoutSpan).clampedNanoseconds
        seconds = keepingSeconds ? [] : nil
    }

    mutating func add(_ value: Double, at time: Int64) {
        credit(until: time)
        last = (value, time)
    }

    mutating func pause(at time: Int64) {
        credit(until: time)
        paused = true
    }

    mutating func resume(at time: Int64) {
        creditedUntil = max(creditedUntil, time)
        paused = false
    }

    /// The held value stops at `time` (its sensor's values stopped counting): nothing more is
    /// credited until the next sample.
    mutating func endHold(at time: Int64) {
        credit(until: time)
        last = nil
    }

    mutating func end(at time: Int64) {
        credit(until: time)
        paused = true
    }

    private mutating func credit(until time: Int64) {
        defer { creditedUntil = max(creditedUntil, time) }
        guard !paused, let last else { return }
        let from = max(creditedUntil, last.time)
        let to = min(time, Self.saturatingSum(last.time, hold))
        guard to > from else { return }
        // 0 < to - from <= hold: to is at most last.time + hold (or Int64.max, when that is
        // less), and from at least last.time.
        integral += last.value * Double(to - from) / 1e9
        coveredNanoseconds = Self.saturatingSum(coveredNanoseconds, to - from)
        // Whole seconds s with from <= s < to: at most hold / 1 s + 1 of them, however long the gap.
        for second in Self.secondsCeiling(from)..<Self.secondsCeiling(to) {
            normalized.add(last.value)
            seconds?.append((second, last.value))
        }
    }

    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// ⌈nanoseconds / 1 s⌉.
    static func secondsCeiling(_ nanoseconds: Int64) -> Int64 {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return remainder > 0 ? quotient + 1 : quotient
    }
}

/// Normalized power, kept incrementally: the fourth root of the mean fourth power of the 30 s
/// rolling average of power values one second apart. Constant time and memory per value.
struct NormalizedPower: Sendable {
    private var window = [Double](repeating: 0, count: 30)
    private var count = 0
    private var windowSum = 0.0
    private var sumOfFourth = 0.0

    mutating func add(_ value: Double) {
        let slot = count % 30
        windowSum += value - window[slot]
        window[slot] = value
        count += 1
        if count % 30 == 0 {
            // Re-add the window from scratch now and then so rounding cannot drift.
            windowSum = window.reduce(0, +)
        }
        guard count >= 30 else { return }
        let average = windowSum / 30
        let square = average * average
        sumOfFourth += square * square
    }

    /// Nil for fewer than 30 values.
    var value: Double? {
        count >= 30 ? (sumOfFourth / Double(count - 29)).squareRoot().squareRoot() : nil
    }
}
