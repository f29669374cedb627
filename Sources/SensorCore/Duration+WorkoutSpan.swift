extension Duration {
    /// The longest time a replayed capture may span, from its start to its last record: 7 days.
    ///
    /// One capture is one workout, and no ride, run or multi-day event recorded in one piece lasts
    /// longer; a record stamped later than this after the start is a clock jump, a corrupt
    /// timestamp or several sessions in one file. The trace readers refuse it with an error naming
    /// its line or record rather than build a workout of years, whose every per-second figure
    /// would then have to cover them.
    public static let maximumWorkoutSpan = Duration.seconds(7 * 86_400)

    /// Whole nanoseconds, truncated toward zero, clamped to `Int64`'s range (about ±292 years)
    /// where a plain `seconds * 1_000_000_000` would trap.
    public var clampedNanoseconds: Int64 {
        if #available(macOS 26, *) { return Int64(clamping: attoseconds / 1_000_000_000) }
        let (seconds, attoseconds) = components
        let limit: Int64 = seconds < 0 || (seconds == 0 && attoseconds < 0) ? .min : .max
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return limit }
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return carry ? limit : sum
    }
}
