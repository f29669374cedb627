public import Foundation
public import SensorCore
public import Workouts
public import Zones

/// What a recording starts with: enough to finish it from its journal after a crash.
public struct RecordingStart: Sendable {
    /// The wall-clock time of `start`.
    public var startDate: Date
    /// The start, from the session anchor.
    public var start: Duration
    /// The first activity's type.
    public var activityType: WorkoutActivityType
    /// The zones the builder classifies with, by quantity type (with their sources).
    public var zoneConfigurations: [QuantityType: WorkoutZoneConfiguration]
    /// The zone rule's holds (defaults: 5 s heart rate, 3 s power).
    public var maximumHolds: [QuantityType: Duration]
    /// The session's names of its sensors.
    public var sensors: [SensorID: String]
    /// The profile and power-zone model the workout is recorded with (`WorkoutProfile(preferences)`
    /// of its state machine), kept for a recovered workout; nil: none is kept.
    public var profile: WorkoutProfile?
    /// The target zones of the workout, kept for a recovered workout.
    public var targets: [WorkoutTarget]
    /// The plan ridden (`record --plan`), kept for a recovered workout.
    public var plan: WorkoutPlan?
    /// The bridge recording it (`--bridge-id`, this box's host name by default).
    public var bridge: BridgeID
    /// The athlete it is recorded for (`--athlete`); nil for the box's own profile.
    public var athlete: AthleteName?

    public init(
        startDate: Date, start: Duration, activityType: WorkoutActivityType,
        zoneConfigurations: [QuantityType: WorkoutZoneConfiguration], maximumHolds: [QuantityType: Duration] = [:],
        sensors: [SensorID: String] = [:], profile: WorkoutProfile? = nil, targets: [WorkoutTarget] = [],
        plan: WorkoutPlan? = nil, bridge: BridgeID = .hostDefault, athlete: AthleteName? = nil
    ) {
        self.startDate = startDate
        self.start = start
        self.activityType = activityType
        self.zoneConfigurations = zoneConfigurations
        self.maximumHolds = maximumHolds
        self.sensors = sensors
        self.profile = profile
        self.targets = targets
        self.plan = plan
        self.bridge = bridge
        self.athlete = athlete
    }
}

/// Journals a workout while it records (DESIGN.md §3 "Storage"): samples and events reach the
/// database at least every `flushInterval` (half a second by default), each write one committed,
/// fsynced transaction, so a crash, a `kill -9` or a power cut loses at most about that much plus
/// the time one write takes. The next start finds the workout unfinished;
/// `WorkoutStore.recoverWorkout(_:)` finishes it from the journal, `finish(_:)` replaces the journal
/// with the finished workout.
///
/// The writes run on a thread of the recorder's own (`sb.journal`), never on the thread that
/// records: `record` only adds to what waits in memory (no I/O, and it never waits for a write in
/// progress), so a slow or stalled disk cannot hold up the session's consumer. While the disk is
/// stalled or full, what waits grows in memory with the recording; nothing is dropped.
///
/// It opens its own connection to the store and holds the workout's recording lock until it is
/// finished or discarded (or let go: then the journal stays, as after a crash, with what was
/// recorded written first). Safe to call from any thread; the session's consumer thread feeds it.
public final class WorkoutRecorder: Sendable {
    public let workoutID: WorkoutID
    /// The workout's UUID and the bridge recording it.
    public let identity: WorkoutIdentity
    /// The store's path.
    public let path: String
    /// How often the writer thread writes what waits (from the start of one write to the next; at
    /// least a millisecond apart).
    public let flushInterval: Duration
    private let holds: [QuantityType: Duration]
    private let writer: JournalWriter

    /// Creates the unfinished workout in the store at `path`, takes its recording lock and starts
    /// the writer thread.
    public convenience init(path: String, start: RecordingStart, flushInterval: Duration = .milliseconds(500))
        throws(WorkoutStoreError)
    {
        try self.init(path: path, start: start, flushInterval: flushInterval, beforeCommit: nil)
    }

    /// `beforeCommit` runs before each journal transaction, on the thread that writes it (tests
    /// make the disk slow with it).
    init(path: String, start: RecordingStart, flushInterval: Duration, beforeCommit: (@Sendable () -> Void)?)
        throws(WorkoutStoreError)
    {
        let store = try WorkoutStore(path: path)
        // Another process's write is waited out this long (by the writer thread: the consumer never
        // waits for it); a store busy for longer is tried again at the next write.
        store.sqlite?.setBusyTimeout(milliseconds: JournalWriter.writeBusyTimeout)
        let holds = WorkoutStore.holds(start.maximumHolds)
        let identity = WorkoutIdentity(bridge: start.bridge, athlete: start.athlete)
        var lock: RecordingLock?
        let id = try store.performTransaction {
            let id = try store.insertWorkoutRow(
                [
                    ("id", try store.newWorkoutID()), ("start_date", start.startDate.timeIntervalSinceReferenceDate),
                    ("anchor_offset_ns", start.start.nanoseconds), ("activity_type", start.activityType.rawValue),
                    ("heart_rate_hold_ns", holds[.heartRate]!.nanoseconds), ("power_hold_ns", holds[.cyclingPower]!.nanoseconds),
                ], identity: identity)
            try store.connection.statement(
                """
                INSERT INTO recordings (workout_id, recorded_until_ns, malformed_notifications, dropped_samples)
                VALUES (?, 0, 0, 0)
                """
            ).run(id)
            for (type, configuration) in start.zoneConfigurations.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                try store.connection.statement(
                    "INSERT INTO recording_zone_configurations (workout_id, quantity_type, configuration_id) VALUES (?, ?, ?)"
                ).run(id, Int64(type.rawValue), try store.configurationID(configuration))
            }
            try store.insertSensors(start.sensors, workout: id)
            if let profile = start.profile { try store.insertProfile(profile, workout: id) }
            try store.insertTargets(start.targets, workout: id)
            try store.insertPlan(start.plan, workout: id)
            // Locked before the workout is visible to others, so nobody takes it for an interrupted one.
            if let lockPath = store.recordingLockPath(WorkoutID(id)) { lock = try RecordingLock(path: lockPath) }
            return id
        }
        workoutID = WorkoutID(id)
        self.identity = identity
        self.path = path
        self.flushInterval = flushInterval
        self.holds = holds
        writer = JournalWriter(
            JournalWriter.Journal(store: store, lock: lock, workout: id, start: start.start), flushInterval: flushInterval,
            beforeCommit: beforeCommit)
        writer.startThread()
    }

    /// Lets the writer thread finish the write in progress and write what waits, ends it, and
    /// releases the recording lock; the unfinished workout stays in the store, for recovery.
    deinit { writer.stop() }

    /// How journal writes went, when that changed: the first write that failed after one that
    /// succeeded (the disk filled, say), and the first that succeeded after failures.
    public enum WriteChange: Sendable, Equatable {
        /// A write failed; what it held stays in memory and is tried again at every write.
        case failing(WorkoutStoreError)
        /// A write succeeded again: everything recorded up to it is saved.
        case recovered
    }

    /// What waits in memory for the next journal write; `record(droppedSamples:_:)` lends it out to
    /// add to in place.
    public struct Batch {
        var samples: [Sample] = []
        var events: [WorkoutEvent] = []
        /// The recording's start: earlier samples are not kept.
        let start: Duration
        /// The time of the latest sample or event recorded.
        var recordedUntil: Duration
        /// Notifications that did not decode, since the start.
        var malformedNotifications = 0
        /// Samples refused by full rings, since the start.
        var droppedSamples = 0

        init(start: Duration) {
            self.start = start
            recordedUntil = start
        }

        /// Adds `sample`; one from before the start is ignored, as the builder ignores it.
        public mutating func append(_ sample: Sample) {
            guard sample.time >= start else { return }
            samples.append(sample)
            recordedUntil = max(recordedUntil, sample.time)
        }

        /// Adds `event`.
        public mutating func append(_ event: WorkoutEvent) {
            events.append(event)
            recordedUntil = max(recordedUntil, event.time)
        }

        /// Counts `count` notifications that did not decode.
        public mutating func countMalformedNotifications(_ count: Int = 1) {
            malformedNotifications += count
        }

        mutating func removeAll() {
            samples = []
            events = []
        }
    }

    /// Adds what the session applied since the last call, for the writer thread to write at its
    /// next turn (at least every `flushInterval`). It does no I/O and never waits for a write in
    /// progress. Samples before the start are ignored, as the builder ignores them.
    ///
    /// A write that fails keeps what it held in memory, to be written by the next one. The change
    /// from writing to failing and back is returned by the first call after the write that saw it
    /// (once each), for the person to be told: call it at least every few hundred milliseconds,
    /// with nothing new too.
    ///
    /// - Parameters:
    ///   - malformedNotifications: notifications that did not decode since the last call.
    ///   - droppedSamples: samples refused by full rings since the session began (a running total).
    @discardableResult
    public func record(
        samples: some Sequence<Sample>, events: some Sequence<WorkoutEvent>, malformedNotifications: Int = 0,
        droppedSamples: Int? = nil
    ) -> WriteChange? {
        record(droppedSamples: droppedSamples) { batch in
            for sample in samples { batch.append(sample) }
            for event in events { batch.append(event) }
            batch.countMalformedNotifications(malformedNotifications)
        }
    }

    /// `record(samples:events:malformedNotifications:droppedSamples:)` adding in place: `add` gets
    /// the waiting batch, under a lock the writer takes only to swap the batch out (so keep it
    /// short, and call nothing of the recorder in it). Nothing is copied or allocated once the
    /// batch's buffers have grown to what one write takes.
    @discardableResult
    public func record(droppedSamples: Int? = nil, _ add: (inout Batch) -> Void) -> WriteChange? {
        writer.pending.withLock { pending -> WriteChange? in
            guard !pending.isClosed else { return nil }
            add(&pending.batch)
            if let droppedSamples { pending.batch.droppedSamples = droppedSamples }
            return pending.changes.isEmpty ? nil : pending.changes.removeFirst()
        }
    }

    /// Writes what waits now, after any write in progress, on the calling thread.
    public func flush() throws(WorkoutStoreError) {
        if let error = writer.commit() { throw error }
    }

    /// The error of the latest journal write, nil when it succeeded (the data stays pending and is
    /// tried again).
    public var failure: WorkoutStoreError? { writer.pending.withLock { $0.failure } }

    /// How far the journal in the store reaches: the time of the latest sample or event written,
    /// from the workout's start; what came after is only in memory.
    public var savedUntil: Duration { max(writer.pending.withLock { $0.written.until } - writer.start, .zero) }

    /// Replaces the journal with the finished `workout`, in one transaction after any journal write
    /// in progress, releases the recording lock and ends the writer thread; returns the workout's
    /// id. When it throws, the journal stays as it was, and is still written.
    @discardableResult
    public func finish(_ workout: Workout) throws(WorkoutStoreError) -> WorkoutID {
        let (id, holds, identity) = (workoutID, holds, identity)
        let finished = try writer.close { (store) throws(WorkoutStoreError) in
            try store.performTransaction {
                try store.connection.statement("DELETE FROM workouts WHERE id = ?").run(id.rawValue)
                return try store.insert(workout, maximumHolds: holds, id: id, identity: identity)
            }
        }
        guard let finished else { throw .notFound(id) }
        return finished
    }

    /// Deletes the unfinished workout, releases the recording lock and ends the writer thread.
    public func discard() throws(WorkoutStoreError) {
        let id = workoutID
        _ = try writer.close { (store) throws(WorkoutStoreError) in
            try store.performTransaction { try store.connection.statement("DELETE FROM workouts WHERE id = ?").run(id.rawValue) }
        }
    }
}
