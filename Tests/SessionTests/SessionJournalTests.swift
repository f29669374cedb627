import Foundation
import SampleRing
import SensorCore
import SensorTestSupport
import Synchronization
@testable import Session
import Testing
import Workouts
@testable import WorkoutStore
import Zones

/// The store journal of a session (`WorkoutStoreJournal` over a `WorkoutRecorder`) on a real
/// SQLite file, with a disk as slow as the test wants: the consumer never waits for it.
@Suite struct SessionJournalTests {
    /// The first journal commit stalls until the consumer has applied every item, the end
    /// included; then everything reaches the journal (samples, the controls as the workout's events,
    /// the malformed count) and the finished workout replaces it.
    @Test(.timeLimit(.minutes(10))) func theConsumerNeverWaitsForTheJournal() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("workouts.sqlite").path

        var machine = WorkoutStateMachine(activityType: .cycling)
        machine.sensors = [SensorID(1): "hr"]
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_793_620_800))
        let gate = CommitGate()
        let recorder = try WorkoutRecorder(
            path: path,
            start: RecordingStart(
                startDate: Date(timeIntervalSince1970: 1_793_620_800), start: .zero, activityType: .cycling,
                zoneConfigurations: [:], sensors: [SensorID(1): "hr"]),
            flushInterval: .milliseconds(10), beforeCommit: gate.beforeCommit)
        let session = WorkoutSession(
            builder: builder, journal: WorkoutStoreJournal(recorder: recorder, sensorNames: [SensorID(1): "hr"]))
        let ring = session.makeRing()
        let stalled = Mutex(false)
        let controls: [Int: SessionControl.Kind] = [
            300: .pause, 400: .resume, 500: .lap, 600: .disconnected, 700: .connected, 800: .malformed, 900: .malformed,
        ]
        let produce: @Sendable () -> Void = {
            for i in 0..<2_000 {
                if i == 100 {
                    // The writer has taken the first items and stalls in its commit.
                    let waited = gate.waitForCalls(1)
                    stalled.withLock { $0 = waited }
                }
                let time = Double(i) * 0.5
                if let kind = controls[i] { _ = ring.push(.control(SessionControl(kind, at: .seconds(time), sensor: SensorID(1)))) }
                _ = ring.push(SessionStreamTests.heartRate(110 + Double(i % 40), at: time))
            }
            _ = ring.push(.control(SessionControl(.end, at: .seconds(1000))))
        }
        let result = Mutex<Result<Workout, WorkoutBuilderError>?>(nil)
        let ran = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let workout = session.run(producers: [produce])
            result.withLock { $0 = workout }
            ran.signal()
        }
        // (Not a time measurement: a bound, so that a consumer that waits fails the test instead of hanging it.)
        let ranWhileStalled = ran.wait(timeout: .now() + 30) == .success
        #expect(ranWhileStalled, "the consumer waited for the commit in progress")
        #expect(stalled.withLock { $0 })
        // The consumer has applied everything, and the first commit is still in progress.
        #expect(recorder.savedUntil == .zero)
        #expect(gate.callers.count == 1 && gate.callers.first?.name == "sb.journal")

        gate.open()
        if !ranWhileStalled { ran.wait() }
        let workout = try #require(result.withLock { $0 }).get()
        #expect(workout.samples.count == 2_000)
        try recorder.flush()
        let store = try WorkoutStore(path: path)
        #expect(try store.samples(of: recorder.workoutID) == workout.samples)
        #expect(recorder.savedUntil == workout.samples.last!.time)
        let unfinished = try #require(try store.unfinishedWorkouts().first)
        #expect(unfinished.recordedUntil == workout.samples.last!.time)

        // What the journal holds, as a crash would leave it: the controls became the workout's events.
        let copy = folder.appendingPathComponent("copy.sqlite").path
        try store.connection.execute("VACUUM INTO '\(copy)'")
        let recovered = try WorkoutStore(path: copy).recoverWorkout(recorder.workoutID)
        #expect(recovered.samples == workout.samples)
        #expect(recovered.statistics.malformedNotifications == 2)
        let kinds = recovered.events.map { "\($0.name) \(Int($0.time.seconds))" }
        #expect(kinds.starts(with: ["pause 150", "resume 200", "lap 250"]), "\(kinds)")
        #expect(recovered.events.contains { $0.kind == .sensorLost("hr") && $0.time == .seconds(300) })
        #expect(recovered.events.contains { $0.kind == .sensorRegained("hr") && $0.time == .seconds(350) })

        #expect(try recorder.finish(workout) == recorder.workoutID)
        #expect(try store.workout(recorder.workoutID) == workout)
        #expect(try store.unfinishedWorkouts().isEmpty)
    }
}
