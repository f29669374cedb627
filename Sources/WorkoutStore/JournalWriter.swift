import Foundation
import SensorCore
import Synchronization
import Workouts

/// The journal of one recording and the thread that writes it (`sb.journal`), behind
/// `WorkoutRecorder` (DESIGN.md §3 "Storage").
///
/// Two locks, so that whoever records never waits for the disk: `pending` holds what was recorded
/// and not yet taken, and what the writes reported; it is held only to add to it, to swap it out
/// and to read a report, never during I/O. `journal` holds the store's connection and the batch
/// being written (or whose write failed), and is held for a whole transaction: by the writer
/// thread, and by `flush`, `finish` and `discard` on their callers' threads, which therefore come
/// after any write in progress and after everything recorded before them.
///
/// Double buffering: the writer swaps the pending arrays with its own empty ones (whose capacity
/// they keep), so in steady state nothing is copied or allocated. A failed write keeps its batch;
/// later additions are appended to it and the whole is tried again at the next write.
final class JournalWriter: Sendable {
    let pending: Mutex<Pending>
    private let journal: Mutex<Journal>
    /// The recording's start, from the session anchor.
    let start: Duration
    /// How long the writer waits between the starts of two writes (at least a millisecond).
    private let period: Duration
    /// Test hook: runs before each journal transaction, on the thread that writes it.
    private let beforeCommit: (@Sendable () -> Void)?
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// The totals a write brings the recording's row to.
    struct Totals: Equatable {
        var until: Duration
        var malformed = 0
        var dropped = 0
    }

    struct Pending {
        var batch: WorkoutRecorder.Batch
        /// What the store holds (the totals of the latest write that succeeded).
        var written: Totals
        /// The error of the latest write; nil when it succeeded.
        var failure: WorkoutStoreError?
        /// Changes between failing and working that `record` has not returned yet, oldest first.
        var changes: [WorkoutRecorder.WriteChange] = []
        /// Finished or discarded: nothing more is recorded.
        var isClosed = false
        /// The writer thread was asked to end (or has ended).
        var isStopping = false

        var totals: Totals {
            Totals(until: batch.recordedUntil, malformed: batch.malformedNotifications, dropped: batch.droppedSamples)
        }
    }

    struct Journal {
        /// The recorder's own connection; nil once closed, so that it is closed then, on that
        /// thread (closing the last connection checkpoints the WAL and deletes it).
        var store: WorkoutStore?
        var lock: RecordingLock?
        let workout: Int64
        let start: Duration
        /// Taken from `pending`, being written or kept after a failed write.
        var samples: [Sample] = []
        var events: [WorkoutEvent] = []
        var nextChunk: Int64 = 0
        var nextEvent: Int64 = 0
        var isClosed = false

        /// Writes the batch and `totals` in one transaction; keeps the batch when that fails.
        mutating func write(_ totals: Totals, to store: WorkoutStore) throws(WorkoutStoreError) {
            // No copies of the arrays outlive the transaction: emptied, they keep their buffers.
            let next = try store.performTransaction {
                let next = try SampleChunk.insert(
                    samples, start: start, workout: workout, firstPosition: nextChunk, into: store.connection)
                try store.insertEvents(events, workout: workout, firstPosition: nextEvent, start: start)
                try store.connection.statement(
                    """
                    UPDATE recordings SET recorded_until_ns = ?, malformed_notifications = ?, dropped_samples = ?
                    WHERE workout_id = ?
                    """
                ).run((totals.until - start).nanoseconds, totals.malformed, totals.dropped, workout)
                guard store.connection.changes == 1 else { throw WorkoutStoreError.notFound(WorkoutID(workout)) }
                return next
            }
            nextChunk = next
            nextEvent += Int64(events.count)
            samples.removeAll(keepingCapacity: true)
            events.removeAll(keepingCapacity: true)
        }

        /// Finished or discarded: the lock file goes, nothing more is written.
        mutating func close() {
            if let lock { RecordingLock.remove(at: lock.path) }
            end()
        }

        /// Nothing more is written; the lock is released (its file stays, as after a crash, when
        /// the workout was not finished or discarded) and the connection closed.
        mutating func end() {
            lock = nil
            store = nil
            samples = []
            events = []
            isClosed = true
        }
    }

    /// How long a journal write waits for another process's write lock before it keeps its batch
    /// for the next turn (milliseconds).
    static let writeBusyTimeout: Int32 = 200
    /// How long finishing or discarding the recording waits for it.
    static let closeBusyTimeout: Int32 = 10_000

    init(_ journal: sending Journal, flushInterval: Duration, beforeCommit: (@Sendable () -> Void)?) {
        let start = journal.start
        self.journal = Mutex(journal)
        pending = Mutex(Pending(batch: WorkoutRecorder.Batch(start: start), written: Totals(until: start)))
        self.start = start
        period = max(flushInterval, .milliseconds(1))
        self.beforeCommit = beforeCommit
    }

    /// Starts the writer thread.
    func startThread() {
        let thread = Thread { [self] in
            // Named on the thread itself, for the kernel too (`Thread.nameCurrent`).
            Thread.nameCurrent("sb.journal")
            run()
            finished.signal()
        }
        thread.start()
    }

    /// The writer thread: a write every `period` (from the start of one to the next; at once when a
    /// write took longer), then, when stopped, a last one of what waits unless the recording was
    /// finished or discarded, and the recording lock goes.
    private func run() {
        var next = ContinuousClock.now + period
        while true {
            let wait = next - .now
            if wait > .zero { _ = wake.wait(timeout: .now() + wait.seconds) }
            if pending.withLock({ $0.isStopping }) { break }
            guard ContinuousClock.now >= next else { continue }
            next = .now + period
            _ = commit()
        }
        _ = commit()
        // As if the process ended: the lock and the connection go before `stop` returns (an
        // unfinished workout stays, for recovery).
        journal.withLock { $0.end() }
    }

    /// Ends the writer thread and waits for it (after its last write); at most once.
    func stop() {
        let first = pending.withLock { pending in
            defer { pending.isStopping = true }
            return !pending.isStopping
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    /// Writes what waits (what `pending` holds and what a failed write kept) in one transaction,
    /// after any write in progress; nil when that worked or there was nothing to write. Records the
    /// outcome in `pending` for `record`, `failure` and `savedUntil`.
    func commit() -> WorkoutStoreError? {
        journal.withLock { journal -> WorkoutStoreError? in
            guard !journal.isClosed, let store = journal.store else { return nil }
            let totals = pending.withLock { pending -> Totals? in
                let totals = pending.totals
                guard !pending.batch.samples.isEmpty || !pending.batch.events.isEmpty || !journal.samples.isEmpty
                    || !journal.events.isEmpty || totals != pending.written
                else { return nil }
                Self.take(&pending.batch.samples, into: &journal.samples)
                Self.take(&pending.batch.events, into: &journal.events)
                return totals
            }
            guard let totals else { return nil }
            beforeCommit?()
            let failure: WorkoutStoreError?
            do throws(WorkoutStoreError) {
                try journal.write(totals, to: store)
                failure = nil
            } catch {
                failure = error
            }
            pending.withLock { pending in
                switch (pending.failure, failure) {
                case (nil, let error?): pending.changes.append(.failing(error))
                case (_?, nil): pending.changes.append(.recovered)
                default: break
                }
                pending.failure = failure
                if failure == nil { pending.written = totals }
            }
            return failure
        }
    }

    /// Moves `pending` to the end of `kept`: a swap when `kept` is empty (the last write worked),
    /// so each keeps the other's capacity and nothing is copied.
    private static func take<Element>(_ pending: inout [Element], into kept: inout [Element]) {
        if kept.isEmpty {
            swap(&pending, &kept)
        } else {
            kept.append(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Runs `body` on the open journal after any write in progress, then closes it (the lock file
    /// goes, nothing more is recorded or written) and stops the writer thread; nil when the journal
    /// was closed already. Nothing of it changes when `body` throws.
    func close<T: Sendable>(_ body: (WorkoutStore) throws(WorkoutStoreError) -> T) throws(WorkoutStoreError) -> T? {
        let value = try journal.withLock { (journal) throws(WorkoutStoreError) -> T? in
            guard !journal.isClosed, let store = journal.store else { return nil }
            // The end of a recording is in no hurry: another process's write (another recording
            // finishing, a class of riders at once) is waited out as long as it takes, within
            // reason, where a journal write gives up after `writeBusyTimeout` and tries again.
            store.sqlite?.setBusyTimeout(milliseconds: Self.closeBusyTimeout)
            defer { store.sqlite?.setBusyTimeout(milliseconds: Self.writeBusyTimeout) }
            let value = try body(store)
            journal.close()
            pending.withLock { pending in
                pending.isClosed = true
                pending.batch.removeAll()
                pending.changes = []
            }
            return value
        }
        stop()
        return value
    }
}
