import SensorCore

/// A workout's samples and pauses indexed once, so that each span of it (a lap) finds its own in
/// time that grows with what it holds, not with the whole workout (`WorkoutSpanSummary.summaries`).
///
/// A recording keeps each quantity type's samples in time order (`WorkoutStateMachine` never lets
/// one go back), though types interleave; the samples of a span are then one run of each type's,
/// found by binary search and merged back into the workout's order. A workout whose samples of a
/// type or whose pauses are out of order is searched whole, as before: the answers are the same.
struct WorkoutSpanIndex {
    private let workout: Workout
    /// The workout's samples with their hold ends (`Workout.samplesWithHoldEnds`).
    private let allSamples: [Sample]
    /// Each type's samples as positions in `allSamples`; nil when a type's times go back.
    private let positionsByType: [QuantityType: [Int]]?
    private let pausesInOrder: Bool

    init(_ workout: Workout) {
        self.workout = workout
        allSamples = workout.samplesWithHoldEnds
        var positions: [QuantityType: [Int]] = [:]
        var inOrder = true
        for (position, sample) in allSamples.enumerated() {
            if let last = positions[sample.type]?.last, allSamples[last].time > sample.time { inOrder = false }
            positions[sample.type, default: []].append(position)
        }
        positionsByType = inOrder ? positions : nil
        pausesInOrder = zip(workout.pauses, workout.pauses.dropFirst()).allSatisfy { $0.upperBound <= $1.lowerBound }
    }

    /// The pauses that reach into `range` or touch it, in order (all of them when out of order).
    func pauses(overlapping range: Range<Duration>) -> ArraySlice<Range<Duration>> {
        let pauses = workout.pauses
        guard pausesInOrder else { return pauses[...] }
        let first = Self.partition(pauses.indices) { pauses[$0].upperBound < range.lowerBound }
        let end = Self.partition(first..<pauses.endIndex) { pauses[$0].lowerBound <= range.upperBound }
        return pauses[first..<end]
    }

    /// The samples whose time is in `range`, in the workout's order.
    func samples(in range: Range<Duration>) -> [Sample] {
        guard let positionsByType else { return allSamples.filter { range.contains($0.time) } }
        var runs = positionsByType.values.map { $0[self.run(of: $0, in: range)] }.filter { !$0.isEmpty }
        var samples: [Sample] = []
        samples.reserveCapacity(runs.reduce(0) { $0 + $1.count })
        // Merges the runs by position: a few types, so the smallest head is found by looking at each.
        while !runs.isEmpty {
            var smallest = 0
            for run in runs.indices where runs[run].first! < runs[smallest].first! { smallest = run }
            samples.append(allSamples[runs[smallest].removeFirst()])
            if runs[smallest].isEmpty { runs.remove(at: smallest) }
        }
        return samples
    }

    /// The last sample of `type` in the workout's order whose time is before `time`.
    func lastSample(of type: QuantityType, before time: Duration) -> Sample? {
        guard let positionsByType else { return allSamples.last { $0.type == type && $0.time < time } }
        guard let positions = positionsByType[type] else { return nil }
        let start = run(of: positions, in: time..<time).lowerBound
        return start > 0 ? allSamples[positions[start - 1]] : nil
    }

    /// The positions in `positions` (of one type, in time order) whose samples are in `range`.
    private func run(of positions: [Int], in range: Range<Duration>) -> Range<Int> {
        let start = Self.partition(positions.indices) { allSamples[positions[$0]].time < range.lowerBound }
        let end = Self.partition(start..<positions.endIndex) { allSamples[positions[$0]].time < range.upperBound }
        return start..<end
    }

    /// The first index of `indices` for which `isBefore` is false (it is true of a prefix).
    private static func partition(_ indices: Range<Int>, _ isBefore: (Int) -> Bool) -> Int {
        var (low, high) = (indices.lowerBound, indices.upperBound)
        while low < high {
            let middle = low + (high - low) / 2
            if isBefore(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
