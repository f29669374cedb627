import Foundation
public import Captures
public import SampleRing
public import SensorCore
public import Workouts

/// How fast a replay runs.
public enum ReplayPace: Sendable, Equatable {
    /// As fast as the pipeline goes.
    case fast
    /// `factor` × real time (1 is the recording's own pace), `factor` within `factors`.
    case speed(Double)

    /// The factors a replay takes: the session's clock is real time × factor and each record waits
    /// until its time ÷ factor, and beyond these bounds that arithmetic overflows `Duration`.
    public static let factors: ClosedRange<Double> = 0.001...1_000_000

    /// `fast` or `realtime`, by name.
    public init?(named name: String) {
        switch name {
        case "fast": self = .fast
        case "realtime": self = .speed(1)
        default: return nil
        }
    }
}

/// The producer side of a replay: reads a trace (JSONL or btsnoop) as a stream, decodes its
/// notifications into samples as the BlueZ layer does for live sensors, and pushes them with the
/// trace's events into a ring.
///
/// `@unchecked Sendable`: it is created on one thread and then used by the producer thread only
/// (`produce` runs once); `failure` is read after the session has finished, which the session's
/// completion orders after the producer's last write.
public final class TraceReplayer: @unchecked Sendable {
    private let reader: any TraceRecordSource
    public let pace: ReplayPace
    /// Session sensor ids by the trace's device keys; devices missing from the header get ids as they appear.
    private var sensorIDs: [String: SensorID]
    /// Why the replay stopped early (a malformed line, a corrupt record), if it did.
    public private(set) var failure: (any Error)?
    /// Called on the producer thread with the trace time reached, once per whole second of it,
    /// with a paced replay only (a fast one has nothing to wait for).
    private let progress: (@Sendable (Duration) -> Void)?
    /// The one decode path of a session, shared with live notifications.
    private var decoder = NotificationDecoder()

    public init(reader: any TraceRecordSource, pace: ReplayPace = .fast, progress: (@Sendable (Duration) -> Void)? = nil) {
        self.reader = reader
        self.pace = pace
        self.progress = progress
        sensorIDs = SensorID.numbering(reader.header.devices.keys)
    }

    /// The session's names of the sensors the header lists (its device keys), by id.
    public var sensorNames: [SensorID: String] {
        Dictionary(uniqueKeysWithValues: sensorIDs.map { ($1, $0) })
    }

    private func sensorID(_ device: String) -> SensorID {
        if let id = sensorIDs[device] { return id }
        let id = SensorID(UInt16(truncatingIfNeeded: sensorIDs.count + 1))
        sensorIDs[device] = id
        return id
    }

    /// Pushes every record, then `end`, into `ring`, waiting for room rather than dropping (a
    /// replay has no reason to lose samples). With a `speed` pace, each record waits for its
    /// time; `started` is when t = 0 was on the monotonic clock. The workout ends at the `end`
    /// event, else at the last record; a malformed line or record ends it there and is kept in
    /// `failure`.
    public func produce(into ring: SampleRing<SessionItem>, started: ContinuousClock.Instant) {
        var items: [SessionItem] = []
        var last = Duration.zero
        var reported = Int64.min
        func push(_ item: SessionItem) {
            while !ring.hasRoom { Thread.sleep(forTimeInterval: 0.000_05) }
            ring.push(item)
        }
        while let record = nextRecord() {
            last = record.time
            if case .speed(let factor) = pace {
                let wait = started + record.time / factor - ContinuousClock.now
                if wait > .zero { Thread.sleep(forTimeInterval: wait.seconds) }
                if let progress, record.time.components.seconds != reported {
                    reported = record.time.components.seconds
                    progress(.seconds(reported))
                }
            }
            items.removeAll(keepingCapacity: true)
            translate(record, into: &items)
            for item in items { push(item) }
        }
        push(.control(SessionControl(.end, at: last)))
    }

    /// The same replay on the calling thread, without the ring and its threads (for the fuzz
    /// targets): each record's items go straight into `machine`, which has begun collecting, as
    /// `WorkoutSession`'s consumer applies them, with a tick after each record; then the end.
    /// Returns the impossible events skipped, as the session's warnings; `failure` as `produce`.
    public func replay(into machine: inout WorkoutStateMachine) -> [String] {
        var items: [SessionItem] = []
        var last = Duration.zero
        var warnings: [String] = []
        while let record = nextRecord() {
            last = record.time
            items.removeAll(keepingCapacity: true)
            translate(record, into: &items)
            for item in items {
                // An `end` event ends the workout.
                if WorkoutSession.apply(item, to: &machine, warnings: &warnings) { return warnings }
            }
            machine.tick(at: last)
        }
        _ = WorkoutSession.apply(.control(SessionControl(.end, at: last)), to: &machine, warnings: &warnings)
        return warnings
    }

    /// The next record; nil at the end or on a failure (kept in `failure`).
    private func nextRecord() -> TraceRecord? {
        do {
            return try reader.next()
        } catch {
            failure = error
            return nil
        }
    }

    /// A record's session items: a notification's, through the session's decode path; an event's control.
    private func translate(_ record: TraceRecord, into items: inout [SessionItem]) {
        switch record {
        case .notification(let time, let device, let uuid, let bytes):
            decoder.decode(bytes, uuid: uuid, from: sensorID(device), at: time) { items.append($0) }
        case .event(let time, let event):
            items.append(.control(control(for: event, at: time)))
        }
    }

    func control(for event: TraceEvent, at time: Duration) -> SessionControl {
        switch event {
        case .pause: SessionControl(.pause, at: time)
        case .resume: SessionControl(.resume, at: time)
        case .lap: SessionControl(.lap, at: time)
        case .activity(let type):
            SessionControl(.activity, at: time, activityType: WorkoutActivityType(name: type) ?? .other)
        case .disconnected(let device): SessionControl(.disconnected, at: time, sensor: sensorID(device))
        case .connected(let device): SessionControl(.connected, at: time, sensor: sensorID(device))
        case .end: SessionControl(.end, at: time)
        }
    }
}
