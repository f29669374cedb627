import BlueZ
import Captures
import Foundation
import GATT
import SampleRing
import SensorCore
import Synchronization

/// The producer side of a live recording: BlueZ notifications and link events become session
/// items, through the same decoders and `SampleExtractor` as a replay, stamped on arrival as
/// offsets from the session anchor.
///
/// Notifications, link losses and connections come from the D-Bus thread, in order, into one ring
/// (single producer); the link supervisor's events are only reported. `@unchecked Sendable`:
/// `extractors` and `samples` are touched on the D-Bus thread only; the trace file is behind its
/// own mutex.
final class LiveSensorSource: @unchecked Sendable {
    let anchor: ContinuousClock.Instant
    let sensorIDs: [String: SensorID]
    private let notificationRing: SampleRing<SessionItem>
    private let control: RecordingControl
    /// The trace being written (`record --trace`): its path, and its file until it is committed or
    /// a write fails; `failed` once a write has failed (nothing more is written, so that the trace
    /// has no hole: it stops there).
    private let trace: Mutex<(path: String?, file: OutputFile?, failed: Bool)>
    private var extractors: [String: SampleExtractor] = [:]
    private var samples: [Sample] = []
    private let lost = Mutex<Set<String>>([])
    private let report: @Sendable (String) -> Void
    /// Sees every decoded sample on the D-Bus thread (the terminal dashboard).
    private let observe: (@Sendable (Sample) -> Void)?

    init(
        anchor: ContinuousClock.Instant, sensorIDs: [String: SensorID], notificationRing: SampleRing<SessionItem>,
        control: RecordingControl, trace: OutputFile?,
        report: @escaping @Sendable (String) -> Void, observe: (@Sendable (Sample) -> Void)? = nil
    ) {
        self.anchor = anchor
        self.sensorIDs = sensorIDs
        self.notificationRing = notificationRing
        self.control = control
        self.trace = Mutex((trace?.path, trace, false))
        self.report = report
        self.observe = observe
        samples.reserveCapacity(8)
        control.started(at: anchor)
    }

    func time(_ instant: ContinuousClock.Instant) -> Duration { instant - anchor }

    private func write(_ record: TraceRecord) {
        let failure = trace.withLock { trace -> String? in
            guard let file = trace.file, !trace.failed else { return nil }
            do {
                try file.write(Array((TraceWriter.line(record) + "\n").utf8))
                return nil
            } catch {
                trace.failed = true
                return "cannot write the trace \(file.path): \(error); it stops at \(record.time.clockText)"
            }
        }
        if let failure { report(failure) }
    }

    /// The trace's path when it holds everything received (no write failed), else nil.
    var completeTrace: String? { trace.withLock { $0.failed ? nil : $0.path } }

    /// D-Bus thread.
    func received(_ notification: BlueZNotification) {
        control.countNotification()
        let time = time(notification.receivedAt)
        let uuid = BluetoothUUID(UInt32(notification.uuid))
        write(.notification(time: time, device: notification.key, uuid: uuid, bytes: notification.bytes))
        guard let sensor = sensorIDs[notification.key] else { return }
        do {
            guard let value = try GATTValue.decode(uuid: uuid, bytes: notification.bytes) else { return }
            samples.removeAll(keepingCapacity: true)
            extractors[notification.key, default: SampleExtractor(sensor: sensor)].extract(value, at: time, into: &samples)
            control.latencyProbe?.received(notification.bytes, samples: samples.count)
            for sample in samples {
                notificationRing.push(.sample(sample))
                observe?(sample)
            }
        } catch {
            notificationRing.push(.control(SessionControl(.malformed, at: time, sensor: sensor)))
        }
    }

    /// The D-Bus thread for `lost`, `connected` and `notifying`, the link supervisor for the others.
    func linkEvent(_ event: SensorLinkEvent, names: [String: String]) {
        switch event {
        case .lost(let key, let at):
            lost.withLock { _ = $0.insert(key) }
            write(.event(time: time(at), .disconnected(device: key)))
            notificationRing.push(.control(SessionControl(.disconnected, at: time(at), sensor: sensorIDs[key]!)))
            report("\(names[key] ?? key) lost; reconnecting")
        case .connected(let key, let at):
            let regained = lost.withLock { $0.remove(key) != nil }
            if regained {
                write(.event(time: time(at), .connected(device: key)))
                notificationRing.push(.control(SessionControl(.connected, at: time(at), sensor: sensorIDs[key]!)))
            }
            report("\(names[key] ?? key) \(regained ? "reconnected" : "connected")")
        case .attemptFailed(let key, let error, let retryIn):
            report("\(names[key] ?? key): \(error); trying again in \(retryIn.components.seconds) s")
        case .value(let key, let uuid, let bytes):
            if let text = Self.describe(uuid: uuid, bytes: bytes) { report("\(names[key] ?? key): \(text)") }
        case .stale, .notifying:
            report(Self.describe(event, names: names)!)
        }
    }

    /// A stale or notifying-again measurement in words, for every command that reports them.
    static func describe(_ event: SensorLinkEvent, names: [String: String]) -> String? {
        switch event {
        case .stale(let key, let uuid, let silentFor):
            "\(names[key] ?? key): no \(BlueZUUID.name(uuid)) for \(silentFor.components.seconds) s (stale); subscribing again"
        case .notifying(let key, let uuid):
            "\(names[key] ?? key): \(BlueZUUID.name(uuid)) values again"
        default: nil
        }
    }

    /// A read-once characteristic in words (battery 87 %, location chest).
    static func describe(uuid: UInt16, bytes: [UInt8]) -> String? {
        switch try? GATTValue.decode(uuid: BluetoothUUID(UInt32(uuid)), bytes: bytes) {
        case .batteryLevel(let battery)?: "battery \(battery.percent) %"
        case .bodySensorLocation(let location)?: "worn on the \(location.location)"
        case .sensorLocation(let location)?: "mounted at \(location.location)"
        default: nil
        }
    }

    /// The end of the recording: written to the trace, and pushed by the controller thread.
    func writeEnd(at time: Duration) {
        write(.event(time: time, .end))
        trace.withLock { trace in
            try? trace.file?.commit()
            trace.file = nil
        }
    }
}
