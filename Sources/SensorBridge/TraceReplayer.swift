import Foundation
public import Captures
import GATT
public import SampleRing
public import SensorCore
import Workouts

/// How fast a replay runs.
public enum ReplayPace: Sendable, Equatable {
    /// As fast as the pipeline goes.
    case fast
    /// `factor` × real time (1 is the recording's own pace).
    case speed(Double)

    /// Parses `fast`, `realtime` or a positive factor such as `4`.
    public init?(_ text: String) {
        switch text {
        case "fast": self = .fast
        case "realtime": self = .speed(1)
        default:
            guard let factor = Double(text), factor.isFinite, factor > 0 else { return nil }
            self = .speed(factor)
        }
    }
}

/// The producer side of a replay: decodes a trace's notifications into samples, as the BlueZ
/// layer does for live sensors, and pushes them with the trace's events into a ring.
public struct TraceReplayer: Sendable {
    public let trace: Trace
    /// Session sensor ids by the trace's device keys.
    public let sensorIDs: [String: SensorID]
    public let pace: ReplayPace

    public init(trace: Trace, pace: ReplayPace = .fast) {
        self.trace = trace
        self.pace = pace
        var keys = Set(trace.header.devices.keys)
        for record in trace.records {
            if case .notification(_, let device, _, _) = record { keys.insert(device) }
        }
        sensorIDs = Dictionary(uniqueKeysWithValues: keys.sorted().enumerated().map { ($1, SensorID(UInt16($0 + 1))) })
    }

    /// The session's names of the sensors (the trace's device keys), by id.
    public var sensorNames: [SensorID: String] {
        Dictionary(uniqueKeysWithValues: sensorIDs.map { ($1, $0) })
    }

    /// Pushes every record, then `end`, into `ring`, waiting for room rather than dropping (a
    /// replay has no reason to lose samples). With a `speed` pace, each record waits for its
    /// time; `started` is when t = 0 was on the monotonic clock.
    public func produce(into ring: SampleRing<SessionItem>, started: ContinuousClock.Instant) {
        var extractors: [String: SampleExtractor] = [:]
        var samples: [Sample] = []
        func push(_ item: SessionItem) {
            while !ring.hasRoom { Thread.sleep(forTimeInterval: 0.000_05) }
            ring.push(item)
        }
        let end = trace.end
        for record in trace.records where record.time <= end {
            if case .speed(let factor) = pace {
                let due = started + record.time / factor
                let wait = due - ContinuousClock.now
                if wait > .zero { Thread.sleep(forTimeInterval: wait.seconds) }
            }
            switch record {
            case .notification(let time, let device, let uuid, let bytes):
                let sensor = sensorIDs[device] ?? SensorID(0)
                do {
                    guard let value = try GATTValue.decode(uuid: uuid, bytes: bytes) else { continue }
                    samples.removeAll(keepingCapacity: true)
                    extractors[device, default: SampleExtractor(sensor: sensor)].extract(value, at: time, into: &samples)
                    for sample in samples { push(.sample(sample)) }
                } catch {
                    push(.control(SessionControl(.malformed, at: time, sensor: sensor)))
                }
            case .event(let time, let event):
                guard let control = control(for: event, at: time) else { continue }
                push(.control(control))
            }
        }
        push(.control(SessionControl(.end, at: end)))
    }

    func control(for event: TraceEvent, at time: Duration) -> SessionControl? {
        switch event {
        case .pause: SessionControl(.pause, at: time)
        case .resume: SessionControl(.resume, at: time)
        case .lap: SessionControl(.lap, at: time)
        case .activity(let type):
            SessionControl(.activity, at: time, activityType: WorkoutActivityType(name: type) ?? .other)
        case .disconnected(let device): SessionControl(.disconnected, at: time, sensor: sensorIDs[device] ?? SensorID(0))
        case .connected(let device): SessionControl(.connected, at: time, sensor: sensorIDs[device] ?? SensorID(0))
        case .end: nil  // pushed after the loop, at `trace.end`
        }
    }
}
