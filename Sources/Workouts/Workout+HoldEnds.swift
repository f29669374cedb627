public import SensorCore

extension Workout {
    /// The samples, in their order, with a hold end after the last sample of each quantity whose
    /// sensor's values stopped counting: a sample of that quantity and sensor whose value is NaN, at
    /// the time of the `noContact` or `invalid` state. Live, `WorkoutStateMachine.sensorValues` ends
    /// those holds at once (time in zone, energy, NP, RR runs); the figures worked out again from
    /// the stored samples (laps, activities, time at each value, re-bucketing) read these markers
    /// to end them at the same instants, so they agree with the live ones. The samples themselves
    /// when no sensor stopped counting.
    public var samplesWithHoldEnds: [Sample] {
        var cuts: [(key: String, time: Duration)] = []
        for event in events {
            guard case .sensorState(let key, let state) = event.kind, state == .noContact || state == .invalid else { continue }
            cuts.append((key, event.time))
        }
        guard !cuts.isEmpty else { return samples }
        var merged: [Sample] = []
        merged.reserveCapacity(samples.count + cuts.count)
        // The latest sample of each quantity so far, as the state machine keeps it; nil once its hold ended.
        var latest: [QuantityType: Sample] = [:]
        var next = samples.startIndex
        for cut in cuts {
            while next < samples.endIndex, samples[next].time <= cut.time {
                latest[samples[next].type] = samples[next]
                merged.append(samples[next])
                next += 1
            }
            for type in QuantityType.allCases {
                guard let sample = latest[type], sensors[sample.sensor] == cut.key else { continue }
                merged.append(Sample(sensor: sample.sensor, type: type, value: .nan, time: max(cut.time, sample.time)))
                latest[type] = nil
            }
        }
        merged.append(contentsOf: samples[next...])
        return merged
    }
}
