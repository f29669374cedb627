public import BlueZ
public import Captures
import Foundation
public import GATT
public import SampleRing
public import SensorCore
import Synchronization

/// The producer side of a live recording: BlueZ notifications and link events become session
/// items, through the same decoders and `SampleExtractor` as a replay, stamped on arrival as
/// offsets from the session anchor.
///
/// Notifications, link losses and connections come from the D-Bus thread, in order, into one ring
/// (single producer); the link supervisor's events are only reported. `@unchecked Sendable`:
/// `extractors` and `samples` are touched on the D-Bus thread only; the trace file is behind its
/// own mutex.
public final class LiveSensorSource: @unchecked Sendable {
    public let anchor: ContinuousClock.Instant
    public let sensorIDs: [String: SensorID]
    private let notificationRing: SampleRing<SessionItem>
    private let control: RecordingControl
    /// The trace being written (`record --trace`): its path, and its file until it is committed or
    /// a write fails; `failed` once a write has failed (nothing more is written, so that the trace
    /// has no hole: it stops there).
    private let trace: Mutex<(path: String?, file: OutputFile?, failed: Bool)>
    /// Whether a trace is written at all: without one, a notification takes no lock.
    private let tracing: Bool
    private var decoder = NotificationDecoder()
    /// The latest notification time pushed: the ring's items never go back in time.
    private var latest = Duration.zero
    private let lost = Mutex<Set<String>>([])
    private let report: @Sendable (String) -> Void

    public init(
        anchor: ContinuousClock.Instant, sensorIDs: [String: SensorID], notificationRing: SampleRing<SessionItem>,
        control: RecordingControl, trace: OutputFile?,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.anchor = anchor
        self.sensorIDs = sensorIDs
        self.notificationRing = notificationRing
        self.control = control
        self.trace = Mutex((trace?.path, trace, false))
        tracing = trace != nil
        self.report = report
        control.started(at: anchor)
    }

    public func time(_ instant: ContinuousClock.Instant) -> Duration { instant - anchor }

    private func write(_ record: TraceRecord) {
        guard tracing else { return }
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
    public var completeTrace: String? { trace.withLock { $0.failed ? nil : $0.path } }

    /// The session time of `instant` for the ring, on the D-Bus thread. Times from the kernel (a
    /// socket's packets) and from the D-Bus thread (signals, link events) interleave by
    /// microseconds, and a batch of packets may have arrived before a signal already handled; the
    /// ring's order is time order, so such an item takes the latest time pushed.
    private func ringTime(_ instant: ContinuousClock.Instant) -> Duration {
        latest = max(time(instant), latest)
        return latest
    }

    /// D-Bus thread. The samples are staged in the ring; `publish()` shows them to the consumer.
    /// `parsed` is the value `GATTValue.decode` gave whoever looked at it first (serve's
    /// schedule), so that it is parsed once.
    public func received(_ notification: BlueZNotification, parsed: Result<GATTValue?, any Error>? = nil) {
        control.countNotification()
        let time = ringTime(notification.receivedAt)
        let uuid = BluetoothUUID(UInt32(notification.uuid))
        // The raw value goes into the trace, whether it counts or not.
        write(.notification(time: time, device: notification.key, uuid: uuid, bytes: notification.bytes))
        guard let sensor = sensorIDs[notification.key] else { return }
        let parsed = parsed ?? Result { try GATTValue.decode(uuid: uuid, bytes: notification.bytes) }
        let samples = decoder.decode(parsed, from: sensor, at: time) { notificationRing.stage($0) }
        control.latencyProbe?.received(notification.bytes, samples: samples.count)
    }

    /// Shows the consumer what `received` staged: once per turn of the D-Bus thread
    /// (`DBusConnection.afterEachTurn`), so that the notifications one read brought cost one
    /// publication and at most one wake-up. D-Bus thread.
    public func publish() {
        notificationRing.publish()
    }

    /// The D-Bus thread for `lost`, `connected` and `notifying`, the link supervisor for the others.
    public func linkEvent(_ event: SensorLinkEvent, names: [String: String]) {
        switch event {
        case .lost(let key, let at):
            lost.withLock { _ = $0.insert(key) }
            let time = ringTime(at)
            write(.event(time: time, .disconnected(device: key)))
            notificationRing.push(.control(SessionControl(.disconnected, at: time, sensor: sensorIDs[key]!)))
            report("\(names[key] ?? key) lost; reconnecting")
        case .connected(let key, let at):
            let regained = lost.withLock { $0.remove(key) != nil }
            if regained {
                let time = ringTime(at)
                write(.event(time: time, .connected(device: key)))
                notificationRing.push(.control(SessionControl(.connected, at: time, sensor: sensorIDs[key]!)))
            }
            report("\(names[key] ?? key) \(regained ? "reconnected" : "connected")")
        case .attemptFailed(let key, let error, let retryIn):
            report("\(names[key] ?? key): \(error); " + (retryIn.map { "trying again in \($0.components.seconds) s" } ?? "trying again once it is seen advertising"))
        case .value(let key, let uuid, let bytes):
            if let text = Self.describe(uuid: uuid, bytes: bytes) { report("\(names[key] ?? key): \(text)") }
        case .stale, .notifying, .socketClosed:
            report(Self.describe(event, names: names)!)
        }
    }

    /// A stale or notifying-again measurement in words, for every command that reports them.
    public static func describe(_ event: SensorLinkEvent, names: [String: String]) -> String? {
        switch event {
        case .stale(let key, let uuid, let silentFor):
            "\(names[key] ?? key): no \(BlueZUUID.name(uuid)) for \(silentFor.components.seconds) s (stale); subscribing again"
        case .notifying(let key, let uuid):
            "\(names[key] ?? key): \(BlueZUUID.name(uuid)) values again"
        case .socketClosed(let key, let uuid):
            "\(names[key] ?? key): the AcquireNotify socket of \(BlueZUUID.name(uuid)) closed; reading it through StartNotify"
        default: nil
        }
    }

    /// What became of the sensors' auto-connect profile, in words, for every command that keeps sensors.
    public static func describe(_ event: SensorProfileEvent) -> String {
        let adapter = { (path: String) in path.split(separator: "/").last.map(String.init) ?? path }
        let fallback = "a lost sensor is reconnected when it is seen advertising"
        switch event {
        case .registered(let path, let services):
            return "BlueZ reconnects the sensors by itself on \(adapter(path)) (auto-connect for "
                + "\(services.map(BlueZUUID.number).joined(separator: ", ")))"
        case .unavailable(let path):
            return "\(adapter(path)) offers no GattManager1 (BlueZ before 5.40), so BlueZ does not reconnect the sensors; \(fallback)"
        case .refused(let path, let reason):
            return "BlueZ refused the sensors' auto-connect on \(adapter(path)) (\(reason)); \(fallback)"
        }
    }

    /// A read-once characteristic in words (battery 87 %, location chest).
    public static func describe(uuid: UInt16, bytes: [UInt8]) -> String? {
        switch try? GATTValue.decode(uuid: BluetoothUUID(UInt32(uuid)), bytes: bytes) {
        case .batteryLevel(let battery)?: "battery \(battery.percent) %"
        case .bodySensorLocation(let location)?: "worn on the \(location.location)"
        case .sensorLocation(let location)?: "mounted at \(location.location)"
        default: nil
        }
    }

    /// A pause, resume, lap or new activity the person made (`SessionControls`), written to the trace so that a
    /// replay makes it too.
    public func write(_ control: SessionControl) {
        switch control.kind {
        case .pause: write(.event(time: control.time, .pause))
        case .resume: write(.event(time: control.time, .resume))
        case .lap: write(.event(time: control.time, .lap))
        case .activity: write(.event(time: control.time, .activity(type: control.activityType.rawValue)))
        default: break
        }
    }

    /// The end of the recording: written to the trace, and pushed by the controller thread.
    public func writeEnd(at time: Duration) {
        write(.event(time: time, .end))
        trace.withLock { trace in
            try? trace.file?.commit()
            trace.file = nil
        }
    }
}
