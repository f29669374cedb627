/// Summary statistics of a workout (DESIGN 3; issue 5). Samples that arrive while the workout is
/// paused count for none of them except `energyExpended`, which is the strap's own counter.
public struct WorkoutStatistics: Sendable, Hashable {
    /// Heart rate in bpm: arithmetic mean, minimum and maximum of the samples received while active.
    public struct HeartRate: Sendable, Hashable {
        public var average: Double
        public var minimum: Double
        public var maximum: Double
        public var count: Int
        /// Active time a heart-rate value held (the zone rule's 5 s hold), and the held values'
        /// mean over it: what calories from heart rate count (`HeartRateCalories`). Zero and nil
        /// for a workout stored before they were kept (store migration 17).
        public var heldDuration: Duration
        public var heldAverage: Double?

        public init(
            average: Double, minimum: Double, maximum: Double, count: Int, heldDuration: Duration = .zero, heldAverage: Double? = nil
        ) {
            self.average = average
            self.minimum = minimum
            self.maximum = maximum
            self.count = count
            self.heldDuration = heldDuration
            self.heldAverage = heldAverage
        }
    }

    /// Cycling power in W.
    public struct Power: Sendable, Hashable {
        /// Arithmetic mean of the samples received while active (zeros included).
        public var average: Double
        public var maximum: Double
        /// Normalized power: the fourth root of the mean fourth power of the 30 s rolling
        /// average of the power held at each whole second of covered active time; nil for
        /// fewer than 30 such seconds.
        public var normalized: Double?
        /// Work in kJ: each sample's power times the active time it stands for (the zone rule's
        /// bounded hold, 3 s).
        public var energy: Double
        public var count: Int

        public init(average: Double, maximum: Double, normalized: Double?, energy: Double, count: Int) {
            self.average = average
            self.maximum = maximum
            self.normalized = normalized
            self.energy = energy
            self.count = count
        }
    }

    /// Crank cadence in rpm while pedalling: mean and maximum of the non-zero cadence samples
    /// received while active; `count` counts those.
    public struct Cadence: Sendable, Hashable {
        public var average: Double
        public var maximum: Double
        public var count: Int

        public init(average: Double, maximum: Double, count: Int) {
            self.average = average
            self.maximum = maximum
            self.count = count
        }
    }

    public var heartRate: HeartRate?
    public var cyclingPower: Power?
    public var cadence: Cadence?
    /// Energy expended reported by the heart-rate strap over the workout, kJ (the sum of its
    /// counter's increments, across the counter's uint16 wrap).
    public var energyExpended: Double?
    /// RMSSD of the RR intervals received while active, in milliseconds: the root mean square of
    /// successive differences of normal intervals, after `RRArtefactFilter` removed the
    /// artefacts (outside 0.25-2.5 s, or more than 20 % from the median of their neighbours), not
    /// pairing across pauses or artefacts.
    public var rmssd: Double?
    /// Successive RR differences behind `rmssd`.
    public var rrPairCount: Int
    /// RR intervals judged by the artefact filter (received while active).
    public var rrIntervalCount: Int
    /// Of those, the artefacts removed before `rmssd`.
    public var rrArtefactCount: Int
    /// The share of RR intervals removed as artefacts, 0...1; nil without intervals.
    public var rrArtefactShare: Double? {
        rrIntervalCount > 0 ? Double(rrArtefactCount) / Double(rrIntervalCount) : nil
    }
    /// Samples refused by a full sample ring (the consumer fell behind).
    public var droppedSamples: Int
    /// Notifications that did not decode and were skipped.
    public var malformedNotifications: Int

    public init(
        heartRate: HeartRate? = nil, cyclingPower: Power? = nil, cadence: Cadence? = nil, energyExpended: Double? = nil,
        rmssd: Double? = nil, rrPairCount: Int = 0, rrIntervalCount: Int = 0, rrArtefactCount: Int = 0,
        droppedSamples: Int = 0, malformedNotifications: Int = 0
    ) {
        self.heartRate = heartRate
        self.cyclingPower = cyclingPower
        self.cadence = cadence
        self.energyExpended = energyExpended
        self.rmssd = rmssd
        self.rrPairCount = rrPairCount
        self.rrIntervalCount = rrIntervalCount
        self.rrArtefactCount = rrArtefactCount
        self.droppedSamples = droppedSamples
        self.malformedNotifications = malformedNotifications
    }
}


