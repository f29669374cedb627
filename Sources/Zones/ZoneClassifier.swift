public import SensorCore

/// Sorts the samples of one quantity type into zones as they arrive and keeps exact time in zone
/// (DESIGN.md §3 "Zones"). A pure state machine: feed it samples, pauses, resumes, ticks and the
/// end in time order, then read `zoneGroup` and take the `ZoneUpdate`s it produced with `nextUpdate()`.
///
/// Time in zone is sample-and-hold with a bounded hold: a sample at `t[i]` credits
/// `[t[i], min(t[i+1], t[i] + maximumHold))` to its zone, intersected with active (not paused)
/// time and cut at the end. Time past a hold is a gap in no zone, so the durations never add up to
/// more than the active time. A sample that arrives while paused is still a sample: the part of
/// its hold after the resume counts. Durations are `Duration` sums, exact to the attosecond.
///
/// An update is produced only when the current zone changes: when a sample lands in another zone
/// than the current one, and when the hold of the latest sample expires (the sensor went stale;
/// noticed by `tick(at:)`, the next sample or `end(at:)`). Which of those notices a stale sensor
/// does not change the update, so the updates depend only on the samples, never on the ticks.
public struct ZoneClassifier: Sendable {
    private enum Phase: UInt8, Sendable {
        case collecting, paused, ended
    }

    /// The zones samples are sorted into.
    public let configuration: WorkoutZoneConfiguration
    /// How long a sample stands for its zone when no newer sample comes (positive).
    public let maximumHold: Duration
    /// The start of the workout, from the session anchor; no event may come before it.
    public let start: Duration

    // Times below are attoseconds from the session anchor (`Duration.attosecondCount`): exact, and
    // cheap to compare and add, which `Duration`'s own operators are not on Linux.

    /// `configuration.boundaryValues` padded to 8 with the greatest finite Double: classifying is 8
    /// independent subtractions, no loop and no branch to mispredict on a noisy power signal.
    private let boundaries: (Double, Double, Double, Double, Double, Double, Double, Double)
    /// The index of the last zone (the number of real boundaries).
    private let lastZone: Int
    /// `maximumHold` in attoseconds.
    private let hold: Int128
    /// Re-bucketing needs only the totals and skips building updates.
    private let reportsUpdates: Bool
    private var phase = Phase.collecting
    /// The latest sample, pause, resume or end time (ticks do not count): events before it are refused.
    private(set) var latestTime: Int128
    /// Time before this is credited (or was paused).
    private var creditedUntil: Int128
    /// The zone of the latest sample, 0 before the first one (when `holdEnd == start` credits nothing).
    private var heldZone = 0
    /// When the latest sample's hold expires.
    private var holdEnd: Int128
    /// The time of the latest sample (`start` before the first; read only by updates, which follow a sample).
    private var latestSampleTime: Int128
    /// The current zone as last reported, -1 for none.
    private var reportedZone = -1
    /// Time credited to `heldZone` since it last changed, not yet added to `committed`; keeps the
    /// common case (same zone as the sample before) free of array writes.
    private var run: Int128 = 0
    /// Time per zone, apart from `run`.
    private var committed: [Duration]
    /// Updates produced and not yet taken are `updates[updateHead..<updateTail]`; both go back to 0
    /// when all are taken, and the emptied slots are reused, so taking each update as it comes
    /// allocates no buffer per update.
    private var updates: [ZoneUpdate?] = []
    private var updateHead = 0
    private var updateTail = 0

    /// The hold the live builder uses unless told otherwise: 5 s for heart rate, 3 s for power.
    public static func defaultMaximumHold(for quantityType: QuantityType) -> Duration {
        quantityType == .heartRate ? .seconds(5) : .seconds(3)
    }

    /// - Parameters:
    ///   - configuration: the zones.
    ///   - maximumHold: how long a sample stands for its zone; must be positive. Nil for
    ///     `defaultMaximumHold(for:)` of the configuration's quantity type.
    ///   - start: when the workout starts collecting, from the session anchor.
    public init(configuration: WorkoutZoneConfiguration, maximumHold: Duration? = nil, start: Duration = .zero) {
        self.init(configuration: configuration, maximumHold: maximumHold, start: start, reportsUpdates: true)
    }

    init(configuration: WorkoutZoneConfiguration, maximumHold: Duration?, start: Duration, reportsUpdates: Bool) {
        let hold = maximumHold ?? Self.defaultMaximumHold(for: configuration.quantityType)
        precondition(hold > .zero, "the maximum hold of a zone classifier must be positive, not \(hold)")
        self.configuration = configuration
        self.maximumHold = hold
        self.hold = hold.attosecondCount
        self.start = start
        self.reportsUpdates = reportsUpdates
        let padded =
            configuration.boundaryValues
            + Array(repeating: .greatestFiniteMagnitude, count: 8 - configuration.boundaryValues.count)
        boundaries = (padded[0], padded[1], padded[2], padded[3], padded[4], padded[5], padded[6], padded[7])
        lastZone = configuration.zones.count - 1
        committed = Array(repeating: .zero, count: configuration.zones.count)
        latestTime = start.attosecondCount
        creditedUntil = latestTime
        holdEnd = latestTime
        latestSampleTime = latestTime
    }

    // MARK: - State

    /// The current zone as of the latest event or tick; nil before the first sample and while the sensor is stale.
    public var currentZoneIndex: Int? { reportedZone >= 0 ? reportedZone : nil }

    /// Whether the workout is paused.
    public var isPaused: Bool { phase == .paused }

    /// Whether `end(at:)` was called.
    public var hasEnded: Bool { phase == .ended }

    /// Running totals credited up to the latest sample, pause, resume or end.
    public var zoneGroup: WorkoutZoneGroup { zoneGroup(atAttoseconds: latestTime) }

    /// Running totals credited up to `time`, counting the latest sample's hold up to `time` (for
    /// the boundary of an activity). `time` should not be before the latest event; if it is, the
    /// totals are those of the latest event.
    public func zoneGroup(at time: Duration) -> WorkoutZoneGroup {
        zoneGroup(atAttoseconds: time.attosecondCount)
    }

    private func zoneGroup(atAttoseconds time: Int128) -> WorkoutZoneGroup {
        var durations = committed
        durations[heldZone] = Duration(
            attosecondCount: committed[heldZone].attosecondCount + run + pendingCredit(until: time))
        return WorkoutZoneGroup(configuration: configuration, checkedDurations: durations)
    }

    /// Whether `nextUpdate()` has an update to give: a cheap test to make after every event.
    public var hasPendingUpdates: Bool { updateHead < updateTail }

    /// The oldest update not yet taken, or nil when there is none. Take them after each event:
    /// `while let update = classifier.nextUpdate() { ... }`.
    public mutating func nextUpdate() -> ZoneUpdate? {
        guard updateHead < updateTail else { return nil }
        let update = updates[updateHead].take()  // moved out: no reference counting
        updateHead += 1
        if updateHead == updateTail {
            updateHead = 0
            updateTail = 0
        }
        return update
    }

    // MARK: - Events

    /// Adds one sample of the configuration's quantity type.
    public mutating func add(_ sample: Sample) throws(ZoneClassifierError) {
        guard sample.type == configuration.quantityType else {
            throw .wrongQuantityType(sample.type, expected: configuration.quantityType)
        }
        try add(sample.value, at: sample.time)
    }

    /// Adds one value in the configuration's unit (count/min or W) measured at `time` (from the session anchor).
    ///
    /// - Throws: `.ended`, `.outOfOrder` when `time` is before the latest sample, pause, resume or
    ///   the start, `.notANumber` for NaN. The classifier is unchanged then.
    public mutating func add(_ value: Double, at time: Duration) throws(ZoneClassifierError) {
        guard phase != .ended else { throw .ended(time: time) }
        let attoseconds = time.attosecondCount
        guard attoseconds >= latestTime else { throw outOfOrder(time) }
        guard !value.isNaN else { throw .notANumber(time: time) }
        apply(zone: zoneIndex(value), at: attoseconds)
    }

    /// Pauses at `time`: the latest sample's hold stops counting.
    ///
    /// - Throws: `.alreadyPaused`, `.ended` or `.outOfOrder`; the classifier is unchanged then.
    public mutating func pause(at time: Duration) throws(ZoneClassifierError) {
        switch phase {
        case .collecting: break
        case .paused: throw .alreadyPaused(time: time)
        case .ended: throw .ended(time: time)
        }
        guard time.attosecondCount >= latestTime else { throw outOfOrder(time) }
        applyPause(at: time.attosecondCount)
    }

    /// Resumes at `time`: what is left of the latest sample's hold counts again.
    ///
    /// - Throws: `.notPaused`, `.ended` or `.outOfOrder`; the classifier is unchanged then.
    public mutating func resume(at time: Duration) throws(ZoneClassifierError) {
        switch phase {
        case .paused: break
        case .collecting: throw .notPaused(time: time)
        case .ended: throw .ended(time: time)
        }
        guard time.attosecondCount >= latestTime else { throw outOfOrder(time) }
        applyResume(at: time.attosecondCount)
    }

    /// Ends the latest sample's hold at `time` (its sensor's values stopped counting: no contact, an
    /// invalid value): nothing more is credited until the next sample, and the current zone
    /// becomes none at once. Nothing happens when the hold had already run out.
    ///
    /// - Throws: `.ended` or `.outOfOrder`; the classifier is unchanged then.
    public mutating func endHold(at time: Duration) throws(ZoneClassifierError) {
        guard phase != .ended else { throw .ended(time: time) }
        guard time.attosecondCount >= latestTime else { throw outOfOrder(time) }
        applyEndHold(at: time.attosecondCount)
    }

    /// Ends the workout at `time` (paused or not): the latest hold is cut there, and a sensor that
    /// went stale before it produces its update.
    ///
    /// - Throws: `.ended` or `.outOfOrder`; the classifier is unchanged then.
    public mutating func end(at time: Duration) throws(ZoneClassifierError) {
        guard phase != .ended else { throw .ended(time: time) }
        guard time.attosecondCount >= latestTime else { throw outOfOrder(time) }
        applyEnd(at: time.attosecondCount)
    }

    /// Notices a stale sensor: when the latest sample's hold expired before `now`, the current zone
    /// becomes none (one update, dated at the expiry). Call it periodically, with a `now` up to which
    /// every sample has been added; a `now` behind the latest event is harmless. No-op after the end.
    public mutating func tick(at now: Duration) {
        if phase != .ended, reportedZone >= 0, holdEnd < now.attosecondCount { report(zone: -1, at: holdEnd) }
    }

    private func outOfOrder(_ time: Duration) -> ZoneClassifierError {
        .outOfOrder(time: time, latest: Duration(attosecondCount: latestTime))
    }

    // MARK: - Unchecked transitions (callers have checked phase and order)

    /// The zone of a value that is not NaN: the number of boundaries `<= value`.
    ///
    /// `value - boundary` is negative exactly when `value < boundary` (IEEE subtraction is
    /// correctly rounded and gradual underflow keeps distinct values apart; equal values give +0),
    /// so its sign bit counts the boundaries above the value without a comparison the compiler
    /// could turn into a branch. Padding counts only for values of at least the greatest finite
    /// Double, which the `min` puts back in the last zone.
    @inline(__always)
    private func zoneIndex(_ value: Double) -> Int {
        let b = boundaries
        var above = (value - b.0).bitPattern >> 63
        above &+= (value - b.1).bitPattern >> 63
        above &+= (value - b.2).bitPattern >> 63
        above &+= (value - b.3).bitPattern >> 63
        above &+= (value - b.4).bitPattern >> 63
        above &+= (value - b.5).bitPattern >> 63
        above &+= (value - b.6).bitPattern >> 63
        above &+= (value - b.7).bitPattern >> 63
        return min(8 &- Int(truncatingIfNeeded: above), lastZone)
    }

    /// A sample at `time >= latestTime`, before the end.
    @inline(__always)
    mutating func apply(value: Double, at time: Int128) {
        apply(zone: zoneIndex(value), at: time)
    }

    @inline(__always)
    private mutating func apply(zone: Int, at time: Int128) {
        latestTime = time
        if phase == .collecting { credit(until: time) }
        if reportedZone >= 0, holdEnd < time { report(zone: -1, at: holdEnd) }
        if zone != heldZone {
            commitRun()
            heldZone = zone
        }
        holdEnd = time + hold
        latestSampleTime = time
        if zone != reportedZone { report(zone: zone, at: time) }
    }

    mutating func applyPause(at time: Int128) {
        latestTime = time
        credit(until: time)
        phase = .paused
    }

    mutating func applyResume(at time: Int128) {
        latestTime = time
        creditedUntil = time
        phase = .collecting
    }

    mutating func applyEndHold(at time: Int128) {
        latestTime = time
        if phase == .collecting { credit(until: time) }
        if reportedZone >= 0, holdEnd < time { report(zone: -1, at: holdEnd) }
        holdEnd = min(holdEnd, time)
        if reportedZone >= 0 { report(zone: -1, at: time) }
    }

    mutating func applyEnd(at time: Int128) {
        latestTime = time
        if phase == .collecting { credit(until: time) }
        if reportedZone >= 0, holdEnd < time { report(zone: -1, at: holdEnd) }
        commitRun()
        phase = .ended
    }

    /// Moves `run` into `committed`.
    private mutating func commitRun() {
        committed[heldZone] = Duration(attosecondCount: committed[heldZone].attosecondCount + run)
        run = 0
    }

    /// The latest sample's hold between `creditedUntil` and `time`, while collecting.
    @inline(__always)
    private func pendingCredit(until time: Int128) -> Int128 {
        guard phase == .collecting else { return 0 }
        let stop = min(time, holdEnd)
        return stop > creditedUntil ? stop - creditedUntil : 0
    }

    /// Credits the latest sample's hold up to `time` (while collecting, `time >= creditedUntil`).
    @inline(__always)
    private mutating func credit(until time: Int128) {
        run += pendingCredit(until: time)
        creditedUntil = time
    }

    /// Records the change of the current zone to `zone` (-1 for none) at `time`.
    private mutating func report(zone: Int, at time: Int128) {
        let previous = reportedZone
        reportedZone = zone
        guard reportsUpdates else { return }
        let update = ZoneUpdate(
            time: Duration(attosecondCount: time),
            previousZoneIndex: previous >= 0 ? previous : nil,
            currentZoneIndex: zone >= 0 ? zone : nil,
            zoneGroup: zoneGroup(atAttoseconds: time),
            lastSampleTime: Duration(attosecondCount: latestSampleTime))
        if updateTail < updates.count { updates[updateTail] = update } else { updates.append(update) }
        updateTail += 1
    }
}
