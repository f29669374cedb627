import Foundation
import SensorCore
import SensorTestSupport
import Testing
import Workouts
@testable import WorkoutStore
import Zones

@Suite struct WorkoutRecorderTests {
    /// A recording of `workout` (its zones, sensors and start), journaled up to `cut` from its start
    /// with a write on every call, each call adding one malformed notification; and the calls made.
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
        #expect(throws: WorkoutStoreError.unfinished(id)) { try store.workout(id) }
        #expect(try store.workouts().map(\.isFinished) == [false])

        recorder = nil  // the process ends without finishing: its lock goes, its journal stays
        let unfinished = try #require(try store.unfinishedWorkouts().first)
        #expect(!unfinished.isRecording)
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
        let later = ContinuousClock.now + .seconds(3600)
        recorder.record(samples: workout.samples.prefix(10), events: [])
        let store = try WorkoutStore(path: path)
        #expect(try store.samples(of: recorder.workoutID).isEmpty)
        recorder.record(samples: workout.samples.dropFirst(10).prefix(5), events: [], now: later)
        #expect(try store.samples(of: recorder.workoutID) == Array(workout.samples.prefix(15)))
        recorder.record(samples: workout.samples.dropFirst(15), events: [])
        try recorder.flush()
        #expect(try store.samples(of: recorder.workoutID) == workout.samples)
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
