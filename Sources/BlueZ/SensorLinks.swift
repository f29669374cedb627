import DBus
import Foundation
import Synchronization

/// A sensor to keep connected: the session's key for it (`hr`, `power`) and its device.
public struct SensorRequest: Sendable {
    public var key: String
    public var device: DiscoveredSensor

    public init(key: String, device: DiscoveredSensor) {
        self.key = key
        self.device = device
    }
}

/// One characteristic value notified by a sensor, stamped on arrival.
public struct BlueZNotification: Sendable {
    public var key: String
    /// The characteristic's 16-bit UUID (2A37, 2A63, 2A5B).
    public var uuid: UInt16
    public var bytes: [UInt8]
    public var receivedAt: ContinuousClock.Instant
}

/// What happens to a sensor's link.
public enum SensorLinkEvent: Sendable {
    /// Connected, services resolved and notifications started (again, after a loss).
    case connected(key: String, at: ContinuousClock.Instant)
    /// The link dropped (or BlueZ went away); reconnection follows with backoff.
    case lost(key: String, at: ContinuousClock.Instant)
    /// An attempt failed; the next comes after `retryIn`.
    case attemptFailed(key: String, BlueZError, retryIn: Duration)
    /// A characteristic read once after the first connection (battery, locations, CP feature).
    case value(key: String, uuid: UInt16, bytes: [UInt8])
}

/// Keeps sensors connected for as long as it runs: connects them one at a time (BlueZ answers
/// `InProgress` to concurrent connects), waits for `ServicesResolved`, sets `Trusted` (unless it
/// is, or the bus policy refused it once: `udev/sensorbridge-dbus.conf` allows no setting), starts
/// notifications on the measurement characteristics, reads the read-once characteristics after
/// the first connection, and reconnects a lost sensor with backoff from 1 s doubling up to 30 s.
/// Notifications are handed to `onNotification` on the D-Bus thread, stamped on arrival.
///
/// With `acquireNotify`, a measurement characteristic that offers it (a `NotifyAcquired` property
/// and the `notify` flag) is read through `AcquireNotify`'s socket instead (one value per packet,
/// on the D-Bus thread's poll, no PropertiesChanged signal per value); the others, and any whose
/// `AcquireNotify` fails, use `StartNotify`.
public final class SensorLinks: Sendable {
    public let client: BlueZClient
    public let sensors: [SensorRequest]
    public let acquireNotify: Bool
    private let onNotification: @Sendable (BlueZNotification) -> Void
    private let onEvent: @Sendable (SensorLinkEvent) -> Void
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let listener = Mutex<Int?>(nil)

    public static let characteristicInterface = "org.bluez.GattCharacteristic1"
    public static let minimumBackoff = Duration.seconds(1)
    public static let maximumBackoff = Duration.seconds(30)

    private struct Link {
        var connected = false
        var everConnected = false
        var nextAttempt = ContinuousClock.now
        var backoff = SensorLinks.minimumBackoff
    }

    private struct State {
        var links: [String: Link] = [:]
        /// Measurement characteristic paths → (sensor key, 16-bit UUID).
        var characteristics: [String: (key: String, uuid: UInt16)] = [:]
        /// Characteristic paths read through an `AcquireNotify` socket → its descriptor.
        var acquired: [String: Int32] = [:]
        /// Measurement characteristic paths whose `Value` signals the bus reads for us
        /// (`watchByteProperty`), kept from the first connection to `stop`.
        var watches: [String: DBusMatchToken] = [:]
        var stopped = false
        /// The bus policy refused setting `Trusted`: not asked again.
        var trustRefused = false
    }

    public init(
        client: BlueZClient, sensors: [SensorRequest], acquireNotify: Bool = false,
        onNotification: @escaping @Sendable (BlueZNotification) -> Void,
        onEvent: @escaping @Sendable (SensorLinkEvent) -> Void
    ) {
        self.client = client
        self.sensors = sensors
        self.acquireNotify = acquireNotify
        self.onNotification = onNotification
        self.onEvent = onEvent
        state.withLock { s in for sensor in sensors { s.links[sensor.key] = Link() } }
    }

    /// Starts connecting, on a thread of its own.
    public func start() {
        let id = client.addListener { [weak self] in self?.changed($0) }
        listener.withLock { $0 = id }
        let thread = Thread { [self] in
            // Set on the thread itself: that is when Foundation names the system thread (15 bytes at most).
            Thread.current.name = "sb.links"
            supervise()
            finished.signal()
        }
        thread.start()
    }

    /// Stops notifications and reconnection; after it returns no callback runs any more.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        finished.wait()
        let (started, acquired, watches) = state.withLock { s in
            (s.characteristics.keys.filter { s.acquired[$0] == nil }, Array(s.acquired.values), Array(s.watches.values))
        }
        for watch in watches { client.bus.unwatch(watch) }
        // Its round trip over the bus also waits for the unwatching above.
        if let id = listener.withLock({ $0 }) { client.removeListener(id) }
        // Closing an acquired socket releases it (BlueZ: "the notification stops").
        for fd in acquired { client.bus.stopReading(fd) }
        for path in started {
            _ = try? client.call(path, Self.characteristicInterface, "StopNotify", timeout: .seconds(2))
        }
    }

    /// Runs on the D-Bus thread.
    private func changed(_ change: BlueZChange) {
        switch change {
        case .propertiesChanged(let path, Self.characteristicInterface, let changed):
            guard case .bytes(let bytes)? = changed["Value"] else { return }
            deliver(path, bytes)
        case .propertiesChanged(let path, BlueZClient.deviceInterface, let changed):
            guard changed["Connected"]?.bool == false, let sensor = sensors.first(where: { $0.device.path == path }) else {
                return
            }
            lose([sensor.key])
        case .bluezRunning(false):
            lose(sensors.map(\.key))
        case .interfacesRemoved:
            // A sensor forgotten, or its adapter unplugged: its device object is gone.
            lose(sensors.filter { client.properties($0.device.path, BlueZClient.deviceInterface) == nil }.map(\.key))
            wake.signal()
        case .bluezRunning(true), .interfacesAdded:
            wake.signal()
        default:
            break
        }
    }

    /// A value of the measurement characteristic at `path`, on the D-Bus thread.
    private func deliver(_ path: String, _ bytes: [UInt8]) {
        let now = ContinuousClock.now
        guard let target = state.withLock({ $0.stopped ? nil : $0.characteristics[path] }) else { return }
        onNotification(BlueZNotification(key: target.key, uuid: target.uuid, bytes: bytes, receivedAt: now))
    }

    /// On the D-Bus thread.
    private func lose(_ keys: [String]) {
        // Values a sensor sent before its link dropped may still wait in its AcquireNotify socket
        // (a signal is in order with the others; a socket is not): they are delivered first.
        let sockets = state.withLock { s in
            s.acquired.filter { path, _ in s.characteristics[path].map { keys.contains($0.key) } ?? false }.values
        }
        for fd in sockets { client.bus.readWaitingPackets(fd) }
        let now = ContinuousClock.now
        let lost = state.withLock { s in
            keys.filter { key in
                guard !s.stopped, s.links[key]?.connected == true else { return false }
                s.links[key] = Link(connected: false, everConnected: true, nextAttempt: now + Self.minimumBackoff)
                for (path, target) in s.characteristics where target.key == key {
                    s.characteristics[path] = nil
                    if let fd = s.acquired.removeValue(forKey: path) { client.bus.stopReading(fd) }
                }
                return true
            }
        }
        for key in lost { onEvent(.lost(key: key, at: now)) }
        wake.signal()
    }

    private func supervise() {
        while true {
            let now = ContinuousClock.now
            let (stopped, due, next) = state.withLock { s in
                let waiting = s.links.filter { !$0.value.connected }
                let due = sensors.first { waiting[$0.key].map { $0.nextAttempt <= now } ?? false }
                return (s.stopped, due, waiting.values.map(\.nextAttempt).min())
            }
            if stopped { return }
            guard let sensor = due else {
                let wait = next.map { min($0 - now, .milliseconds(500)) } ?? .milliseconds(500)
                _ = self.wake.wait(timeout: .now() + max(Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18, 0.001))
                continue
            }
            do {
                try connect(sensor)
            } catch {
                let retry = state.withLock { s in
                    let backoff = s.links[sensor.key]!.backoff
                    s.links[sensor.key]!.nextAttempt = .now + backoff
                    s.links[sensor.key]!.backoff = min(backoff * 2, Self.maximumBackoff)
                    return backoff
                }
                onEvent(.attemptFailed(key: sensor.key, error, retryIn: retry))
            }
        }
    }

    private func connect(_ sensor: SensorRequest) throws(BlueZError) {
        let path = sensor.device.path
        let name = sensor.device.name ?? sensor.device.address
        guard let device = client.properties(path, BlueZClient.deviceInterface) else {
            throw .deviceNotFound(sensor.device.address)
        }
        if device["Connected"]?.bool != true {
            var attempt = 0
            while true {
                do {
                    try client.call(path, BlueZClient.deviceInterface, "Connect", timeout: .seconds(30))
                    break
                } catch .dbus(let error) where error.name == .bluezAlreadyConnected {
                    break
                } catch .dbus(let error) where error.name == .bluezInProgress && attempt < 10 {
                    attempt += 1
                    Thread.sleep(forTimeInterval: 0.5)
                } catch .dbus(let error) {
                    throw .connectFailed(device: name, error)
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while client.properties(path, BlueZClient.deviceInterface)?["ServicesResolved"]?.bool != true {
            if ContinuousClock.now > deadline || state.withLock({ $0.stopped }) {
                throw .connectFailed(device: name, DBusError(.timeout, "services were not resolved in 20 s"))
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        if client.properties(path, BlueZClient.deviceInterface)?["Trusted"]?.bool != true,
            !state.withLock({ $0.trustRefused })
        {
            do {
                try client.set(path, BlueZClient.deviceInterface, "Trusted", .bool(true))
            } catch .permissionDenied {
                state.withLock { $0.trustRefused = true }
            } catch {}
        }
        var measurements: [(path: String, uuid: UInt16)] = []
        var readOnce: [(path: String, uuid: UInt16)] = []
        for characteristic in client.paths(with: Self.characteristicInterface, under: path) {
            guard let text = client.properties(characteristic, Self.characteristicInterface)?["UUID"]?.string,
                let uuid = BlueZUUID.short(text)
            else { continue }
            if BlueZUUID.measurements.contains(uuid) { measurements.append((characteristic, uuid)) }
            if BlueZUUID.readOnce.contains(uuid) { readOnce.append((characteristic, uuid)) }
        }
        state.withLock { s in
            for m in measurements {
                s.characteristics[m.path] = (sensor.key, m.uuid)
                // Before StartNotify, so that no value goes the slow way. Values that do (with
                // other properties changed at once) still arrive through `changed`.
                if s.watches[m.path] == nil {
                    s.watches[m.path] = client.bus.watchByteProperty(
                        path: m.path, interface: Self.characteristicInterface, property: "Value"
                    ) { [weak self] bytes in self?.deliver(m.path, bytes) }
                }
            }
        }
        for m in measurements {
            if acquireNotify, let fd = acquire(m.path) {
                state.withLock { $0.acquired[m.path] = fd }
                client.bus.readPackets(from: fd) { [weak self] packet in
                    guard let self else { return }
                    guard let packet else {
                        // BlueZ closed it (the link dropped): the loss comes as Connected false.
                        state.withLock { s in if s.acquired[m.path] == fd { s.acquired[m.path] = nil } }
                        return
                    }
                    deliver(m.path, packet)
                }
                continue
            }
            do {
                try client.call(m.path, Self.characteristicInterface, "StartNotify", timeout: .seconds(10))
            } catch .dbus(let error) where error.name == .bluezInProgress {
                continue
            } catch .dbus(let error) {
                throw .connectFailed(device: name, error)
            }
        }
        let now = ContinuousClock.now
        let first = state.withLock { s in
            let first = !s.links[sensor.key]!.everConnected
            s.links[sensor.key] = Link(connected: true, everConnected: true)
            return first
        }
        onEvent(.connected(key: sensor.key, at: now))
        // A link that dropped while this connect was under way (a sensor that leaves right after
        // StartNotify) came to `lose` before the link was marked connected, which ignored it. Look
        // again on the D-Bus thread, where losses are handled, or it would count as connected and
        // never be reconnected.
        client.bus.perform { [weak self] in
            guard let self, client.properties(path, BlueZClient.deviceInterface)?["Connected"]?.bool != true else { return }
            lose([sensor.key])
        }
        if first {
            for r in readOnce {
                if let bytes = try? client.call(r.path, Self.characteristicInterface, "ReadValue", [.properties([:])]).first?.bytes {
                    onEvent(.value(key: sensor.key, uuid: r.uuid, bytes: bytes))
                }
            }
        }
    }

    /// `AcquireNotify` on a characteristic that offers it: the socket's descriptor (ours to close),
    /// or nil to fall back to `StartNotify`.
    private func acquire(_ path: String) -> Int32? {
        guard let properties = client.properties(path, Self.characteristicInterface), properties["NotifyAcquired"] != nil,
            properties["Flags"]?.array?.contains(where: { $0.string == "notify" }) == true,
            let reply = try? client.call(path, Self.characteristicInterface, "AcquireNotify", [.properties([:])], timeout: .seconds(10)),
            case .unixFD(let fd)? = reply.first
        else { return nil }
        return fd
    }
}
