/// One window's DFA α1.
public struct DFAAlpha1Window: Sendable, Hashable {
    /// When the window's newest beat arrived (its RR sample's time, from the session anchor).
    public var time: Duration
    public var alpha1: Double
    /// The normal intervals α1 was computed from.
    public var beats: Int
    /// The artefacts removed from the window.
    public var artefacts: Int

    public init(time: Duration, alpha1: Double, beats: Int, artefacts: Int) {
        self.time = time
        self.alpha1 = alpha1
        self.beats = beats
        self.artefacts = artefacts
    }
}

/// Rolling DFA α1 of RR intervals (DESIGN 3, "DFA α1"): windows of `length` seconds of beat time,
/// one every `step` seconds of it, within a run of intervals.
///
/// The intervals are judged by `RRArtefactFilter`, so normal intervals are RMSSD's. A run's beat
/// time is the sum of its intervals, artefacts included (they took that time). A window ending at
/// beat time B holds the intervals that end in (B − length, B]; the first ends at B = `length`,
/// then one each `step`. It gives α1 (`DFAAlpha1.alpha(of:)`) of its normal intervals in order,
/// artefacts taken out and their neighbours joined, when it has at least `minimumBeats` of them
/// and artefacts are below `maximumArtefactShare` of its intervals (Rogers et al. 2021: above 5 %
/// artefacts bias α1); else it is refused. A run ends at a pause, a hold end (the strap's values
/// stopped counting), a silence of more than `longestSilence` between two intervals' arrivals (a
/// dropout: beats were lost) and the end: no window spans two runs, so none joins beats across a
/// gap of unknown length, and a new run gives its first window after `length` of beats.
///
/// Verdicts come `RRArtefactFilter.neighbours` intervals late, so a window comes a few beats
/// after its newest one; its `time` is that beat's, so live and replay agree. Each beat costs
/// constant work; each window O(beats × box sizes), every `step`.
public struct DFAAlpha1Windows: Sendable {
    /// The window's span of beat time, in seconds.
    public static let length = 120.0
    /// Beat time between windows, in seconds.
    public static let step = 5.0
    /// The fewest normal intervals a window needs.
    public static let minimumBeats = 100
    /// Windows with this share of artefacts or more are refused.
    public static let maximumArtefactShare = 0.05
    /// Longer between two intervals' arrivals ends the run: the heart-rate hold, after which a
    /// strap is stale.
    public static let longestSilence = Duration.seconds(5)

    private struct Beat: Sendable {
        var interval: Double
        var normal: Bool
        var time: Duration
        /// The run's beat time at its end.
        var end: Double
    }

    private var filter = RRArtefactFilter(keepingVerdicts: true)
    /// Intervals waiting for their verdict, from `waitingStart`.
    private var waiting: [(interval: Double, time: Duration)] = []
    private var waitingStart = 0
    /// The current window's beats, from `windowStart`.
    private var window: [Beat] = []
    private var windowStart = 0
    private var normals = 0
    private var beatTime = 0.0
    private var nextWindowEnd = length
    private var scratch: [Double] = []
    private var lastArrival: Duration?
    /// Windows refused for too few beats or too many artefacts.
    public private(set) var refused = 0
    /// The intervals judged so far.
    public var intervalCount: Int { filter.judged }

    public init() {}

    /// An RR interval in seconds that arrived at `time`, the next of the current run; the windows
    /// it completes (mostly none).
    public mutating func add(_ interval: Double, at time: Duration) -> [DFAAlpha1Window] {
        var windows: [DFAAlpha1Window] = []
        if let lastArrival, time - lastArrival > Self.longestSilence { windows = endRun() }
        lastArrival = time
        waiting.append((interval, time))
        filter.add(interval)
        return windows + takeVerdicts()
    }

    /// Ends the run: the intervals waiting are judged with the neighbours there are; returns the
    /// windows they complete. The next interval starts a new run.
    public mutating func endRun() -> [DFAAlpha1Window] {
        filter.endRun()
        let windows = takeVerdicts()
        waiting.removeAll(keepingCapacity: true)
        waitingStart = 0
        window.removeAll(keepingCapacity: true)
        windowStart = 0
        normals = 0
        beatTime = 0
        nextWindowEnd = Self.length
        lastArrival = nil
        return windows
    }

    private mutating func takeVerdicts() -> [DFAAlpha1Window] {
        var windows: [DFAAlpha1Window] = []
        for normal in filter.newVerdicts {
            let (interval, time) = waiting[waitingStart]
            waitingStart += 1
            if let completed = accept(Beat(interval: interval, normal: normal, time: time, end: 0)) {
                windows.append(completed)
            }
        }
        filter.clearVerdicts()
        if waitingStart > 64, waitingStart * 2 > waiting.count {
            waiting.removeFirst(waitingStart)
            waitingStart = 0
        }
        return windows
    }

    private mutating func accept(_ judged: Beat) -> DFAAlpha1Window? {
        var beat = judged
        beatTime += beat.interval
        beat.end = beatTime
        window.append(beat)
        if beat.normal { normals += 1 }
        while windowStart < window.count, window[windowStart].end <= beatTime - Self.length {
            if window[windowStart].normal { normals -= 1 }
            windowStart += 1
        }
        if windowStart > 512, windowStart * 2 > window.count {
            window.removeFirst(windowStart)
            windowStart = 0
        }
        guard beatTime >= nextWindowEnd else { return nil }
        while nextWindowEnd <= beatTime { nextWindowEnd += Self.step }
        let count = window.count - windowStart
        let artefacts = count - normals
        guard normals >= Self.minimumBeats, Double(artefacts) < Self.maximumArtefactShare * Double(count) else {
            refused += 1
            return nil
        }
        scratch.removeAll(keepingCapacity: true)
        for beat in window[windowStart...] where beat.normal { scratch.append(beat.interval) }
        guard let alpha1 = DFAAlpha1.alpha(of: scratch) else {
            refused += 1
            return nil
        }
        return DFAAlpha1Window(time: beat.time, alpha1: alpha1, beats: normals, artefacts: artefacts)
    }
}
