import SensorCore
import Zones

extension Workout {
    /// How long a heart rate must be held to raise the maximum, as the class systems hold it.
    public static let sustainedMaximumSpan = Duration.seconds(30)

    /// The highest heart rate held for `span` of active time without a break (each sample within
    /// the zone rule's 5 s hold of the one before, no pause between): the most, over every such
    /// stretch, of its lowest value. Nil when no stretch lasts `span`. What `--raise-max-hr` makes
    /// the new maximum when it is above the profile's. Pure.
    public func sustainedHeartRate(for span: Duration = sustainedMaximumSpan) -> Double? {
        let hold = ZoneClassifier.defaultMaximumHold(for: .heartRate)
        let rates = samplesWithHoldEnds.filter { $0.type == .heartRate && !isPaused(at: $0.time) }
        // Runs of samples, each held until the next.
        var runs: [[Sample]] = []
        for sample in rates {
            if let last = runs.last?.last, !sample.value.isNaN, !last.value.isNaN, sample.time - last.time < hold,
                !pauses.contains(where: { $0.lowerBound > last.time && $0.lowerBound <= sample.time })
            {
                runs[runs.count - 1].append(sample)
            } else if !sample.value.isNaN {
                runs.append([sample])
            }
        }
        var best: Double?
        for run in runs {
            var end = 0
            for start in run.indices {
                // The shortest stretch from `start` that lasts `span`.
                end = max(end, start)
                while end < run.count, run[end].time - run[start].time < span { end += 1 }
                guard end < run.count else { break }
                let lowest = run[start...end].map(\.value).min()!
                best = max(best ?? lowest, lowest)
            }
        }
        return best
    }

    private func isPaused(at time: Duration) -> Bool { pauses.contains { $0.contains(time) } }
}
