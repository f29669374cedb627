extension Duration {
    /// The duration as a whole number of attoseconds, exact. Unlike `Duration`'s own arithmetic,
    /// which Linux's standard library does not inline, `Int128` arithmetic compiles to a few
    /// instructions, so the classifier keeps its times in this form.
    @inline(__always)
    var attosecondCount: Int128 {
        if #available(macOS 26, *) { return attoseconds }
        let (seconds, attoseconds) = components
        return Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
    }

    /// The duration of `attosecondCount` attoseconds.
    @inline(__always)
    init(attosecondCount: Int128) {
        if #available(macOS 26, *) {
            self.init(attoseconds: attosecondCount)
        } else {
            let (seconds, attoseconds) = attosecondCount.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
            self.init(secondsComponent: Int64(seconds), attosecondsComponent: Int64(attoseconds))
        }
    }
}
