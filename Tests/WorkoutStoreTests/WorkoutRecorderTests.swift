import Foundation
import SensorCore
import SensorTestSupport
import Synchronization
import Testing
import Workouts
@testable import WorkoutStore
import Zones

@Suite struct WorkoutRecorderTests {
    /// A recording of `workout` (its zones, sensors and start), journaled up to `cut` from its start
    /// with writes as often as the writer thread can, each call adding one malformed notification;
    /// and the calls made.
    static func record(_ workout: Workout, upTo cut: Duration, path: String) throws -> (recorder: WorkoutRecorder, calls: Int) {
        let recorder = try WorkoutRecorder(
            path: path,
            start: RecordingStart(
                startDate: workout.startDate, start: workout.start, activityType: workout.activities[0].activityType,
                zoneConfigurations: workout.zoneGroupsByType.mapValues(\.configuration), sensors: workout.sensors,
                profile: workout.profile),
            flushInterval: .zero)
        let end = workout.start + cut
        var samples = workout.samples.filter { $0.time <= end }[...]
        var events = workout.events.filter { $0.time <= end }[...]
        // A second of samples and the events in it per call, as the session's consumer feeds it.
        var second = workout.start
        var calls = 0
        while !samples.isEmpty || !events.isEmpty {
            second += .seconds(1)
            let batch = samples.prefix { $0.time < second }
            let batchEvents = events.prefix { $0.time < second }
            samples = samples.dropFirst(batch.count)
            events = events.dropFirst(batchEvents.count)
            recorder.record(samples: batch, events: batchEvents, malformedNotifications: 1, droppedSamples: 2)
            calls += 1
            #expect(recorder.failure == nil)
        }
        return (recorder, calls)
    }

    @Test func anInterruptedRecordingIsFoundAndRecoveredFromItsJournal() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let full = try ride(minutes: 12, runAfter: 500)
        let cut = Duration.seconds(530)  // after the second activity began, the first pause and the dropout
        var (recorder, calls): (WorkoutRecorder?, Int) = try Self.record(full, upTo: cut, path: path)
        let id = try #require(recorder?.workoutID)

        let store = try WorkoutStore(path: path)
        #expect(try store.unfinishedWorkouts().map(\.isRecording) == [true])
        #expect(throws: WorkoutStoreError.recordingInProgress(id)) { try store.recoverWorkout(id) }
        #expect(throws: WorkoutStoreError.recordingInProgress(id)) { try store.deleteWorkout(id) }
        #expect(throws: WorkoutStoreError.recording(id, bridge: BridgeID.hostDefault.rawValue, processID: getpid())) {
            try store.workout(id)
        }
        #expect(try store.workouts().map(\.isFinished) == [false])
        #expect(try store.workouts().map(\.recording) == [RecordingProcess(processID: getpid())])

        recorder = nil  // the process ends without finishing: its lock goes, its journal stays
        let unfinished = try #require(try store.unfinishedWorkouts().first)
        #expect(!unfinished.isRecording)
        #expect(throws: WorkoutStoreError.unfinished(id)) { try store.workout(id) }
        #expect(try store.workouts().map(\.recording) == [nil])
        let saved = full.samples.filter { $0.time <= full.start + cut }
        #expect(unfinished.recordedUntil == saved.last!.time - full.start)

        // Today's profile is another one: the recovered workout keeps the recording's.
        try store.savePreferences(ZonePreferences(profile: AthleteProfile(age: 25, functionalThresholdPower: 320)))
        let recovered = try store.recoverWorkout(id)
        #expect(try store.workout(id) == recovered)
        #expect(try store.unfinishedWorkouts().isEmpty)
        #expect(recovered.profile != nil && recovered.profile == full.profile)
        #expect(recovered.samples == saved)
        #expect(recovered.events == full.events.filter { $0.time <= full.start + cut })
        #expect(recovered.end == saved.last!.time)
        #expect(recovered.activities.map(\.activityType) == [.cycling, .running])
        #expect(recovered.statistics.malformedNotifications == calls)
        #expect(recovered.statistics.droppedSamples == 2)
        // The zone groups are the re-bucketing of the saved samples, in the recording's zones.
        for (type, group) in full.zoneGroupsByType {
            let recoveredGroup = try #require(recovered.zoneGroupsByType[type])
            #expect(recoveredGroup.configuration == group.configuration)
            #expect(recoveredGroup == (try rebucketed(recovered, into: group.configuration)))
        }
        #expect(throws: WorkoutStoreError.alreadyFinished(id)) { try store.recoverWorkout(id) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("recording") }.isEmpty)
    }

    @Test func finishingReplacesTheJournalWithTheWorkout() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 6)
        let recorder = try Self.record(workout, upTo: .seconds(200), path: path).recorder
        #expect(try recorder.finish(workout) == recorder.workoutID)
        let store = try WorkoutStore(path: path)
        #expect(try store.workout(recorder.workoutID) == workout)
        #expect(try store.unfinishedWorkouts().isEmpty)
        #expect(try store.count("recordings") == 0 && store.count("recording_zone_configurations") == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("recording") }.isEmpty)
    }

    @Test func aDiscardedRecordingLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let recorder = try Self.record(try ride(minutes: 2), upTo: .seconds(60), path: path).recorder
        try recorder.discard()
        let store = try WorkoutStore(path: path)
        #expect(try store.workouts().isEmpty)
        #expect(try WorkoutRoundTripTests.tables.map { try store.count($0) }.allSatisfy { $0 == 0 })
    }

    @Test func theJournalWaitsForItsFlushInterval() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 1)
        let recorder = try WorkoutRecorder(
            path: path,
            start: RecordingStart(startDate: workout.startDate, start: workout.start, activityType: .cycling, zoneConfigurations: [:]),
            flushInterval: .seconds(3600))
        recorder.record(samples: workout.samples.prefix(10), events: [])
        let store = try WorkoutStore(path: path)
        #expect(try store.samples(of: recorder.workoutID).isEmpty)
        try recorder.flush()
        #expect(try store.samples(of: recorder.workoutID) == Array(workout.samples.prefix(10)))
        recorder.record(samples: workout.samples.dropFirst(10), events: [])
        try recorder.flush()
        #expect(try store.samples(of: recorder.workoutID) == workout.samples)
        try recorder.discard()
    }

    static func recorder(
        for workout: Workout, path: String, flushInterval: Duration = .milliseconds(10), gate: CommitGate
    ) throws -> WorkoutRecorder {
        try WorkoutRecorder(
            path: path,
            start: RecordingStart(
                startDate: workout.startDate, start: workout.start, activityType: workout.activities[0].activityType,
                zoneConfigurations: workout.zoneGroupsByType.mapValues(\.configuration), sensors: workout.sensors,
                profile: workout.profile),
            flushInterval: flushInterval, beforeCommit: gate.beforeCommit)
    }

    /// A disk whose commit takes as long as the test wants: `record` never waits for it. Every
    /// sample is recorded, one call each, while the writer thread is known to be inside a commit;
    /// then everything reaches the journal, in order, and the finished workout replaces it.
    @Test(.timeLimit(.minutes(10))) func recordNeverWaitsForACommitInProgress() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 10)
        let gate = CommitGate()
        let recorder = try Self.recorder(for: workout, path: path, gate: gate)
        let stalled = Mutex(false)
        let recorded = DispatchSemaphore(value: 0)
        // The consumer's part, on a thread of its own.
        Thread.detachNewThread {
            recorder.record(samples: workout.samples.prefix(100), events: [])
            // The writer takes them and stalls in the commit.
            let waited = gate.waitForCalls(1)
            stalled.withLock { $0 = waited }
            for sample in workout.samples.dropFirst(100) { recorder.record(samples: CollectionOfOne(sample), events: []) }
            recorder.record(samples: [], events: workout.events)
            recorded.signal()
        }
        // (Not a time measurement: a bound, so that a record that waits fails the test instead of hanging it.)
        let recordedWhileStalled = recorded.wait(timeout: .now() + 30) == .success
        #expect(recordedWhileStalled, "record waited for the commit in progress")
        #expect(stalled.withLock { $0 })
        // All of it went in while the first commit was still in progress: it has not ended, and no
        // other one began.
        #expect(recorder.savedUntil == .zero)
        #expect(gate.callers.count == 1)
        #expect(gate.callers.first?.name == "sb.journal")

        gate.open()
        if !recordedWhileStalled { recorded.wait() }
        let writer = try #require(gate.callers.first)
        try recorder.flush()
        let store = try WorkoutStore(path: path)
        #expect(try store.samples(of: recorder.workoutID) == workout.samples)
        #expect(recorder.savedUntil == (workout.samples.map(\.time) + workout.events.map(\.time)).max()! - workout.start)
        #expect(try recorder.finish(workout) == recorder.workoutID)
        #expect(try store.workout(recorder.workoutID) == workout)
        #expect(writer.waitUntilEnded())
    }

    /// A write that fails (another process holds the store's write lock past the busy timeout)
    /// keeps what it held; the failure and the recovery are each returned once, by the first
    /// `record` after the write that saw them, and nothing is lost.
    @Test(.timeLimit(.minutes(10))) func failingAndRecoveredWritesAreReportedOnceEach() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 2)
        let gate = CommitGate(open: true)
        let recorder = try Self.recorder(for: workout, path: path, gate: gate)
        let other = try WorkoutStore(path: path)
        try other.connection.execute("BEGIN IMMEDIATE")
        #expect(recorder.record(samples: workout.samples.prefix(100), events: []) == nil)
        // The second commit begins once the first has failed.
        try #require(gate.waitForCalls(2))
        #expect(recorder.record(samples: workout.samples.dropFirst(100).prefix(100), events: []) == .failing(.busy(path: path)))
        #expect(recorder.record(samples: [], events: []) == nil)
        #expect(recorder.failure == .busy(path: path))
        #expect(recorder.savedUntil == .zero)
        #expect(throws: WorkoutStoreError.busy(path: path)) { try recorder.flush() }
        #expect(recorder.record(samples: [], events: []) == nil)

        try other.connection.execute("COMMIT")
        try recorder.flush()
        #expect(recorder.record(samples: [], events: []) == .recovered)
        #expect(recorder.record(samples: [], events: []) == nil)
        #expect(recorder.failure == nil)
        #expect(recorder.savedUntil == workout.samples[199].time - workout.start)
        #expect(try other.samples(of: recorder.workoutID) == Array(workout.samples.prefix(200)))
        try recorder.discard()
    }

    /// Finishing waits out another process's write lock held far longer than a journal write
    /// would wait (many recordings ending at once on one store), and saves the workout whole.
    @Test(.timeLimit(.minutes(10))) func finishingWaitsForAnotherWriterInsteadOfFailing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 2)
        let recorder = try Self.recorder(for: workout, path: path, gate: CommitGate(open: true))
        #expect(recorder.record(samples: workout.samples, events: workout.events) == nil)
        let other = try WorkoutStore(path: path)
        try other.connection.execute("BEGIN IMMEDIATE")
        let finished = DispatchSemaphore(value: 0)
        let result = Mutex<Result<WorkoutID, WorkoutStoreError>?>(nil)
        Thread {
            let outcome = Result { () throws(WorkoutStoreError) in try recorder.finish(workout) }
            result.withLock { $0 = outcome }
            finished.signal()
        }.start()
        Thread.sleep(forTimeInterval: 1.5)  // well past the journal's 200 ms
        #expect(result.withLock { $0 } == nil, "finishing gave up before the other writer was done")
        try other.connection.execute("COMMIT")
        finished.wait()
        #expect(result.withLock { $0 } == .success(recorder.workoutID))
        #expect(try other.workout(recorder.workoutID) == workout)
    }

    /// A recorder let go unfinished writes what it was given, ends its thread and closes its
    /// connection before it is gone (a process that exits right after leaves no WAL behind), as
    /// does one discarded; neither leaves the writer thread behind.
    @Test(.timeLimit(.minutes(10))) func theWriterThreadEndsWithTheRecorder() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        let workout = try ride(minutes: 2)
        let gate = CommitGate(open: true)
        var recorder: WorkoutRecorder? = try Self.recorder(for: workout, path: path, flushInterval: .seconds(3600), gate: gate)
        let id = try #require(recorder?.workoutID)
        recorder?.record(samples: workout.samples, events: workout.events)
        recorder = nil
        // Its connection, the store's only one, was closed: that deleted the WAL.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // Its last write ran on the writer thread, which ended.
        let writer = try #require(gate.callers.first)
        #expect(gate.callers.count == 1 && writer.name == "sb.journal", "\(gate.callers)")
        #expect(writer.waitUntilEnded())
        let store = try WorkoutStore(path: path)
        #expect(try store.unfinishedWorkouts().map(\.isRecording) == [false])
        #expect(try store.samples(of: id) == workout.samples)

        let discarded = try Self.recorder(for: workout, path: path, gate: gate)
        discarded.record(samples: workout.samples.prefix(10), events: [])
        try #require(gate.waitForCalls(2))
        let second = try #require(gate.callers.last)
        #expect(second.name == "sb.journal" && second != writer)
        try discarded.discard()
        #expect(second.waitUntilEnded())
        #expect(try store.workouts().map(\.id) == [id])
    }

    /// A recording begun without a profile (as by a build from before migration 5) is recovered
    /// with none: nothing is made up from today's profile.
    @Test func aRecordingWithoutAProfileIsRecoveredWithNone() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("workouts.sqlite")
        var workout = try ride(minutes: 2)
        workout.profile = nil
        var recorder: WorkoutRecorder? = try Self.record(workout, upTo: .seconds(60), path: path).recorder
        let id = try #require(recorder?.workoutID)
        recorder = nil
        let store = try WorkoutStore(path: path)
        try store.savePreferences(ZonePreferences(profile: AthleteProfile(age: 40, functionalThresholdPower: 250)))
        #expect(try store.recoverWorkout(id).profile == nil)
        #expect(try store.workout(id).profile == nil)
    }
}
