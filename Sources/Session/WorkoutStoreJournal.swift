public import SensorCore
import Workouts
public import WorkoutStore

/// The session journal of a saved recording: what the consumer applied goes to the workout store
/// through a `WorkoutRecorder`, controls turned into the workout's own events (with the session's
/// sensor names, as the builder names them). The recorder writes at least every half second; when
/// a write fails (a full disk) and when writing works again, `report` says so at once.
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

    public func consumerApplied(_ items: ArraySlice<SessionItem>, droppedSamples: Int) {
        var samples: [Sample] = []
        var events: [WorkoutEvent] = []
        var malformed = 0
        for item in items {
            switch item {
            case .sample(let sample):
                samples.append(sample)
            case .control(let control):
                let name = sensorNames[control.sensor] ?? control.sensor.description
                switch control.kind {
                case .pause: events.append(WorkoutEvent(time: control.time, kind: .pause))
                case .resume: events.append(WorkoutEvent(time: control.time, kind: .resume))
                case .lap: events.append(WorkoutEvent(time: control.time, kind: .lap))
                case .activity: events.append(WorkoutEvent(time: control.time, kind: .activity(control.activityType)))
                case .disconnected: events.append(WorkoutEvent(time: control.time, kind: .sensorLost(name)))
                case .connected: events.append(WorkoutEvent(time: control.time, kind: .sensorRegained(name)))
                case .malformed: malformed += 1
                case .noContact: events.append(WorkoutEvent(time: control.time, kind: .sensorState(name, .noContact)))
                case .invalidValues: events.append(WorkoutEvent(time: control.time, kind: .sensorState(name, .invalid)))
                case .end: break  // the finished workout replaces the journal
                }
            }
        }
        let change = recorder.record(
            samples: samples, events: events, malformedNotifications: malformed, droppedSamples: droppedSamples)
        if let change { report(Self.describe(change, recorder: recorder)) }
    }
}
