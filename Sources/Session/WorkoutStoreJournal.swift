public import SensorCore
import Workouts
public import WorkoutStore

/// The session journal of a saved recording: what the consumer applied goes to the workout store
/// through a `WorkoutRecorder`, controls turned into the workout's own events (with the session's
/// sensor names, as the builder names them). The recorder writes at least every half second, on
/// its own thread; when a write fails (a full disk) and when writing works again, `report` says so
/// on the consumer's next call (within its tick interval).
public struct WorkoutStoreJournal: WorkoutSessionJournal {
    public let recorder: WorkoutRecorder
    /// The session's names of its sensors, by id.
    public let sensorNames: [SensorID: String]
    private let report: @Sendable (String) -> Void

    public init(recorder: WorkoutRecorder, sensorNames: [SensorID: String], report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.recorder = recorder
        self.sensorNames = sensorNames
        self.report = report
    }

    /// What the person is told when journal writes start failing or work again.
    static func describe(_ change: WorkoutRecorder.WriteChange, recorder: WorkoutRecorder) -> String {
        switch change {
        case .failing(let error):
            "cannot save workout \(recorder.workoutID): \(error.reason); recording goes on in memory, saved up to "
                + "\(recorder.savedUntil.clockText). Free some space: the rest is saved as soon as it can be"
        case .recovered:
            "saving workout \(recorder.workoutID) again; everything recorded so far is saved"
        }
    }

    /// Adds the items to the recorder's waiting batch in place, in one pass: no array is built, so
    /// a batch costs no allocation once the recorder's buffers have grown. The recorder writes on a
    /// thread of its own; this never waits for the disk.
    public func consumerApplied(_ items: ArraySlice<SessionItem>, droppedSamples: Int) {
        let change = recorder.record(droppedSamples: droppedSamples) { batch in
            for item in items {
                switch item {
                case .sample(let sample): batch.append(sample)
                case .control(let control):
                    if control.kind == .malformed {
                        batch.countMalformedNotifications()
                    } else if let event = event(for: control) {
                        batch.append(event)
                    }
                }
            }
        }
        if let change { report(Self.describe(change, recorder: recorder)) }
    }

    /// The workout's event for `control`; nil for the end (the finished workout replaces the
    /// journal) and for a malformed notification (counted, not an event).
    private func event(for control: SessionControl) -> WorkoutEvent? {
        var name: String { sensorNames[control.sensor] ?? control.sensor.description }
        return switch control.kind {
        case .pause: WorkoutEvent(time: control.time, kind: .pause)
        case .resume: WorkoutEvent(time: control.time, kind: .resume)
        case .lap: WorkoutEvent(time: control.time, kind: .lap)
        case .activity: WorkoutEvent(time: control.time, kind: .activity(control.activityType))
        case .disconnected: WorkoutEvent(time: control.time, kind: .sensorLost(name))
        case .connected: WorkoutEvent(time: control.time, kind: .sensorRegained(name))
        case .noContact: WorkoutEvent(time: control.time, kind: .sensorState(name, .noContact))
        case .invalidValues: WorkoutEvent(time: control.time, kind: .sensorState(name, .invalid))
        case .malformed, .end: nil
        }
    }
}
