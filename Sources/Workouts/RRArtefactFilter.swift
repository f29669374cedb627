/// RR intervals judged before any HRV figure (DESIGN 3, "Statistics"): an interval outside
/// `range`, or differing from the median of its neighbours (up to `neighbours` on each side, those
/// within `range`) by more than `tolerance` of that median, is an artefact: a missed beat (about
/// twice its neighbours), an extra or split beat (two short ones), an ectopic beat (a short one and
/// a long one). Artefacts are removed, and a successive difference counts only between two
/// consecutive normal intervals, so no difference spans a removed one.
///
/// An interval is judged once the `neighbours` after it have come, or when its run ends (a pause,
/// the end, its sensor's values stopping), with those there are: the verdicts depend on the
/// intervals alone, never on when they were read, so a live workout and its replay agree, and
/// the live RMSSD leaves out the last few beats until they are judged.
struct RRArtefactFilter: Sendable {
    /// Intervals counted, in seconds: outside, no heart beats (or the strap missed several).
    static let range = 0.25...2.5
    /// Neighbours on each side whose median judges an interval.
    static let neighbours = 5
    /// The largest relative difference from that median a normal interval has.
    static let tolerance = 0.2

    /// The run's recent intervals: up to `neighbours` judged ones, then those waiting.
    private var run: [Double] = []
    /// The index in `run` of the first interval not judged.
    private var next = 0
    private var previousNormal: Double?
    private var scratch: [Double] = []
    private(set) var squares = 0.0
    private(set) var pairs = 0
    private(set) var judged = 0
    private(set) var artefacts = 0
    /// The verdicts not yet taken (true for a normal interval), in the order the intervals came,
    /// when kept (`keepingVerdicts`): what DFA α1 windows its beats by (`DFAAlpha1Windows`).
    private var verdicts: [Bool]?

    init(keepingVerdicts: Bool = false) {
        run.reserveCapacity(2 * Self.neighbours + 2)
        scratch.reserveCapacity(2 * Self.neighbours)
        if keepingVerdicts { verdicts = [] }
    }

    /// The verdicts given since `clearVerdicts()`, in the intervals' order (empty unless kept).
    var newVerdicts: ArraySlice<Bool> { verdicts?[...] ?? [] }

    mutating func clearVerdicts() {
        verdicts?.removeAll(keepingCapacity: true)
    }

    /// An interval in seconds, the next of the current run.
    mutating func add(_ interval: Double) {
        run.append(interval)
        while run.count - next > Self.neighbours { judgeNext() }
        if next > Self.neighbours {
            run.removeFirst(next - Self.neighbours)
            next = Self.neighbours
        }
    }

    /// Ends the run: what waits is judged with the neighbours there are; the next interval starts
    /// a new run.
    mutating func endRun() {
        while next < run.count { judgeNext() }
        run.removeAll(keepingCapacity: true)
        next = 0
        previousNormal = nil
    }

    private mutating func judgeNext() {
        let interval = run[next]
        judged += 1
        let normal = isNormal(at: next)
        verdicts?.append(normal)
        if normal {
            if let previous = previousNormal {
                let difference = (interval - previous) * 1000
                squares += difference * difference
                pairs += 1
            }
            previousNormal = interval
        } else {
            artefacts += 1
            previousNormal = nil
        }
        next += 1
    }

    private mutating func isNormal(at index: Int) -> Bool {
        let interval = run[index]
        guard Self.range.contains(interval) else { return false }
        scratch.removeAll(keepingCapacity: true)
        for position in max(0, index - Self.neighbours)..<min(run.count, index + Self.neighbours + 1)
        where position != index && Self.range.contains(run[position]) {
            scratch.append(run[position])
        }
        // One neighbour or none judges nothing: two intervals alone could each be the odd one.
        guard scratch.count >= 2 else { return true }
        let median = PowerSpikeDetector.median(sorting: &scratch)
        return abs(interval - median) <= Self.tolerance * median
    }
}
