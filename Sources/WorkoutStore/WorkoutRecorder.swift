public import Foundation
public import SensorCore
import Synchronization
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

    public init(
        startDate: Date, start: Duration, activityType: WorkoutActivityType,
        zoneConfigurations: [QuantityType: WorkoutZoneConfiguration], maximumHolds: [QuantityType: Duration] = [:],
        sensors: [SensorID: String] = [:], profile: WorkoutProfile? = nil
    ) {
        self.startDate = startDate
        self.start = start
        self.activityType = activityType
        self.zoneConfigurations = zoneConfigurations
        self.maximumHolds = maximumHolds
        self.sensors = sensors
        self.profile = profile
    }
}

/// Journals a workout while it records (DESIGN.md §3 "Storage"): samples and events reach the
/// database at least every `flushInterval` (half a second by default), each write one committed,
/// fsynced transaction, so a crash, a `kill -9` or a power cut loses at most about that much. The
/// next start finds the workout unfinished; `WorkoutStore.recoverWorkout(_:)` finishes it from the
/// journal, `finish(_:)` replaces the journal with the finished workout.
///
/// It opens its own connection to the store and holds the workout's recording lock until it is
/// finished or discarded. Safe to call from any thread (one lock around the journal); the session's
/// consumer thread feeds it.
public final class WorkoutRecorder: Sendable {
    public let workoutID: WorkoutID
    /// The store's path.
    public let path: String
    public let flushInterval: Duration
    private let journal: Mutex<Journal>

    private struct Journal {
        let store: WorkoutStore
        var lock: RecordingLock?
        let workout: Int64
        let start: Duration
        let holds: [QuantityType: Duration]
        var samples: [Sample] = []
        var events: [WorkoutEvent] = []
        var malformedNotifications = 0
        var droppedSamples = 0
        var recordedUntil: Duration
        var written = (until: Duration.zero, malformed: 0, dropped: 0)
        var nextChunk: Int64 = 0
        var nextEvent: Int64 = 0
        var lastWrite: ContinuousClock.Instant
        var failure: WorkoutStoreError?
        var isClosed = false

        var hasNews: Bool {
            !samples.isEmpty || !events.isEmpty
                || written != (recordedUntil, malformedNotifications, droppedSamples)
        }

        /// Writes what is pending in one transaction; keeps it pending when that fails.
        mutating func write() throws(WorkoutStoreError) {
            guard !isClosed else { return }
            let workout = workout
            let (samples, events, start) = (samples, events, start)
            let (until, malformed, dropped) = (recordedUntil, malformedNotifications, droppedSamples)
            let (firstChunk, firstEvent) = (nextChunk, nextEvent)
            let store = store
            nextChunk = try store.performTransaction {
                let next = try SampleChunk.insert(
                    samples, start: start, workout: workout, firstPosition: firstChunk, into: store.connection)
                try store.insertEvents(events, workout: workout, firstPosition: firstEvent, start: start)
                try store.connection.statement(
                    """
                    UPDATE recordings SET recorded_until_ns = ?, malformed_notifications = ?, dropped_samples = ?
                    WHERE workout_id = ?
                    """
                ).run((until - start).nanoseconds, malformed, dropped, workout)
                guard store.connection.changes == 1 else { throw WorkoutStoreError.notFound(WorkoutID(workout)) }
                return next
            }
            nextEvent += Int64(events.count)
            self.samples.removeAll(keepingCapacity: true)
            self.events.removeAll(keepingCapacity: true)
            written = (until, malformed, dropped)
        }

        mutating func close() {
            if let lock {
                RecordingLock.remove(at: lock.path)
                self.lock = nil
            }
            isClosed = true
        }
    }

    /// Creates the unfinished workout in the store at `path` and takes its recording lock.
    public init(path: String, start: RecordingStart, flushInterval: Duration = .milliseconds(500)) throws(WorkoutStoreError) {
        let store = try WorkoutStore(path: path)
        // A flush must not stall the consumer thread for long: a busy store is tried again next time.
        store.connection.setBusyTimeout(milliseconds: 200)
        let holds = WorkoutStore.holds(start.maximumHolds)
        var lock: RecordingLock?
        let id = try store.performTransaction {
            try store.connection.statement(
                """
                INSERT INTO workouts (start_date, anchor_offset_ns, activity_type, heart_rate_hold_ns, power_hold_ns)
                VALUES (?, ?, ?, ?, ?)
                """
            ).run(
                start.startDate.timeIntervalSinceReferenceDate, start.start.nanoseconds, start.activityType.rawValue,
                holds[.heartRate]!.nanoseconds, holds[.cyclingPower]!.nanoseconds)
            let id = store.connection.lastInsertRowID
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
            // Locked before the workout is visible to others, so nobody takes it for an interrupted one.
            if let lockPath = store.recordingLockPath(WorkoutID(id)) { lock = try RecordingLock(path: lockPath) }
            return id
        }
        workoutID = WorkoutID(id)
        self.path = path
        self.flushInterval = flushInterval
        journal = Mutex(
            Journal(
                store: store, lock: lock, workout: id, start: start.start, holds: holds, recordedUntil: start.start,
                lastWrite: .now))
    }

    /// How journal writes went, when that changed: the first write that failed after one that
    /// succeeded (the disk filled, say), and the first that succeeded after failures.
    public enum WriteChange: Sendable, Equatable {
        /// A write failed; what it held stays in memory and is tried again at every flush.
        case failing(WorkoutStoreError)
        /// A write succeeded again: everything recorded so far is saved.
        case recovered
    }

    /// Adds what the session applied since the last call, and writes the journal when
    /// `flushInterval` has passed since the last write. Samples before the start are ignored, as the
    /// builder ignores them. Call it at least every few hundred milliseconds, with nothing new too,
    /// so that a quiet moment still writes what is pending.
    ///
    /// A write that fails keeps what it held in memory, to be written by the next one; the change
    /// from writing to failing and back is returned, for the person to be told at once.
    ///
    /// - Parameters:
    ///   - malformedNotifications: notifications that did not decode since the last call.
    ///   - droppedSamples: samples refused by full rings since the session began (a running total).
    @discardableResult
    public func record(
        samples: some Sequence<Sample>, events: some Sequence<WorkoutEvent>, malformedNotifications: Int = 0,
        droppedSamples: Int? = nil, now: ContinuousClock.Instant = .now
    ) -> WriteChange? {
        journal.withLock { journal -> WriteChange? in
            guard !journal.isClosed else { return nil }
            for sample in samples where sample.time >= journal.start {
                journal.samples.append(sample)
                journal.recordedUntil = max(journal.recordedUntil, sample.time)
            }
            for event in events {
                journal.events.append(event)
                journal.recordedUntil = max(journal.recordedUntil, event.time)
            }
            journal.malformedNotifications += malformedNotifications
            if let droppedSamples { journal.droppedSamples = droppedSamples }
            guard now - journal.lastWrite >= flushInterval, journal.hasNews else { return nil }
            journal.lastWrite = now
            let wasFailing = journal.failure != nil
            do throws(WorkoutStoreError) {
                try journal.write()
                journal.failure = nil
                return wasFailing ? .recovered : nil
            } catch {
                journal.failure = error
                return wasFailing ? nil : .failing(error)
            }
        }
    }

    /// Writes what is pending now.
    public func flush() throws(WorkoutStoreError) {
        try journal.withLock { (journal) throws(WorkoutStoreError) in
            guard journal.hasNews else { return }
            journal.lastWrite = .now
            try journal.write()
            journal.failure = nil
        }
    }

    /// The error of the latest journal write, nil when it succeeded (the data stays pending and is
    /// tried again).
    public var failure: WorkoutStoreError? { journal.withLock { $0.failure } }

    /// How far the journal in the store reaches: the time of the latest sample or event written,
    /// from the workout's start; what came after is only in memory.
    public var savedUntil: Duration { journal.withLock { max($0.written.until - $0.start, .zero) } }

    /// Replaces the journal with the finished `workout`, in one transaction, and releases the
    /// recording lock; returns the workout's id.
    @discardableResult
    public func finish(_ workout: Workout) throws(WorkoutStoreError) -> WorkoutID {
        try journal.withLock { (journal) throws(WorkoutStoreError) in
            guard !journal.isClosed else { throw .notFound(workoutID) }
            let (store, holds, id) = (journal.store, journal.holds, workoutID)
            try store.performTransaction {
                try store.connection.statement("DELETE FROM workouts WHERE id = ?").run(id.rawValue)
                _ = try store.insert(workout, maximumHolds: holds, id: id)
            }
            journal.close()
            return id
        }
    }

    /// Deletes the unfinished workout and releases the recording lock.
    public func discard() throws(WorkoutStoreError) {
        try journal.withLock { (journal) throws(WorkoutStoreError) in
            guard !journal.isClosed else { return }
            let (store, id) = (journal.store, workoutID)
            try store.performTransaction { try store.connection.statement("DELETE FROM workouts WHERE id = ?").run(id.rawValue) }
            journal.close()
        }
    }
}
