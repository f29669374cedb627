import DBus
import Foundation
import SensorCore
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

/// What happens to a sensor's link. `connected`, `lost` and `notifying` come on the D-Bus thread,
/// in order with the notifications; the others on the link supervisor's thread.
public enum SensorLinkEvent: Sendable {
    /// Connected, services resolved and notifications started (again, after a loss), or a value
    /// arrived from a sensor believed lost (BlueZ reconnected it and resumed its notifications).
    case connected(key: String, at: ContinuousClock.Instant)
    /// The link dropped (or BlueZ went away); reconnection follows, as soon as the sensor advertises.
    case lost(key: String, at: ContinuousClock.Instant)
    /// An attempt failed; the next comes after `retryIn` at the latest, sooner when the sensor
    /// advertises; nil: only when it advertises (its adapter discovers, and connecting to a sensor
    /// not seen would hold the kernel's one LE connection attempt for seconds).
    case attemptFailed(key: String, BlueZError, retryIn: Duration?)
    /// A characteristic read once after the first connection (battery, locations, CP feature).
    case value(key: String, uuid: UInt16, bytes: [UInt8])
    /// A measurement characteristic of a connected sensor sent nothing for `silentFor` (longer than
    /// `SensorLinks.staleness` allows): its notifications are subscribed to again, and again with
    /// backoff while it stays silent.
    case stale(key: String, uuid: UInt16, silentFor: Duration)
    /// A stale measurement characteristic sends values again.
    case notifying(key: String, uuid: UInt16)
    /// The `AcquireNotify` socket of a measurement characteristic closed while its sensor stayed
    /// connected: its values come through `StartNotify` from now on.
    case socketClosed(key: String, uuid: UInt16)
}

/// Keeps sensors connected for as long as it runs: connects them one at a time (BlueZ answers
/// `InProgress` to concurrent connects), waits for `ServicesResolved`, sets `Trusted` (unless it
/// is, or the bus policy refused it once: `udev/sensorbridge-dbus.conf` allows no setting), starts
/// notifications on the measurement characteristics, reads the read-once characteristics after
/// the first connection, and reconnects a lost sensor. Notifications are handed to
/// `onNotification` on the D-Bus thread, stamped on arrival.
///
/// With `autoConnect`, a `SensorProfile` asks BlueZ to reconnect the sensors while it runs: bluetoothd
/// reconnects no heart-rate, power or cadence sensor of its own accord, whatever its cache setting,
/// but with a `GattProfile1` naming their services registered the kernel connects a known sensor as
/// soon as it advertises (docs/bluez-behaviours.md §5). That outlives the profile: bluetoothd keeps
/// every known device offering those services auto-connect until it restarts, whoever it belongs
/// to, so it is asked for only on a box dedicated to its sensors. bluetoothd then restores the `StartNotify`
/// subscriptions, so their values resume without a call, but not the `AcquireNotify` sockets: on
/// `Connected` true the sensor is set up again, as after any connection, and a socket lost with
/// the link is acquired again even when a restored subscription's value announced the sensor
/// first. This type also reconnects them itself, and alone where the profile is refused (or there
/// is no `GattManager1`):
///
/// While a sensor is not connected, LE discovery runs on its adapter (`startSensorDiscovery`;
/// stopped once no sensor there waits any more, and by `stop`): BlueZ reports a device's `RSSI`,
/// `ManufacturerData` and `ServiceData` only while discovering. `Connect` is called only once the
/// sensor shows it advertises (one of those changes, or its device object appears again), at most
/// once every `advertisedAttemptInterval`, or when BlueZ reports it connected: a `Connect` to a
/// sensor out of range is answered only when the kernel's connection attempt times out, about 20 s
/// later, and holds this thread and the adapter's one LE connection attempt meanwhile
/// (docs/bluez-behaviours.md §4). So a sensor is connected as soon as it is in range, however long
/// it was gone, and one that is not never holds up the others. Where discovery cannot run (it
/// failed to start), attempts are timed instead: from 1 s doubling up to 30 s. Discovery is BlueZ's
/// per client: another program's is left alone.
///
/// Nothing a sensor sends is dropped because of what is believed about its link: a value from a
/// sensor believed lost (reconnected by the profile's auto-connect, its `StartNotify`
/// subscriptions restored by bluetoothd) is delivered, after a `connected` event. A measurement
/// characteristic that stays silent past `staleness(interval:)` is reported `stale` and
/// subscribed to again (`StopNotify` and `StartNotify`, or a new `AcquireNotify` socket), with
/// backoff from 5 s doubling up to 30 s while it stays silent: that mends a subscription BlueZ
/// answered with `InProgress` and one the sensor never honoured.
///
/// How values are read follows `notifyPath`. By default (`automatic`) a measurement characteristic
/// that offers it (a `NotifyAcquired` property and the `notify` flag) is read through
/// `AcquireNotify`'s socket (one value per packet, stamped with the kernel's receive time, read on
/// the D-Bus thread, no PropertiesChanged signal per value) where bluetoothd is 5.84 or later
/// (`BlueZClient.isAtLeast5_84`), and through `StartNotify` elsewhere: before 5.84 a link lost while
/// `AcquireNotify` subscribes leaves the characteristic refusing every subscription until
/// bluetoothd restarts, and a `StopNotify` there can crash it (docs/bluez-behaviours.md §1). With
/// `acquire` sockets are used on any release, with `start` never. A characteristic whose
/// `AcquireNotify` failed uses `StartNotify`, and is never sent `StopNotify` (`noSocket`); one whose
/// `AcquireNotify` got no answer and whose `StartNotify` is then refused is reported stuck
/// (`BlueZError.notifyStuck`). A socket that closes while its sensor stays connected is replaced by
/// `StartNotify` (`socketClosed`), for the rest of the recording.
public final class SensorLinks: Sendable {
    public let client: BlueZClient
    public let sensors: [SensorRequest]
    public let notifyPath: NotifyPath
    private let onNotification: @Sendable (BlueZNotification) -> Void
    private let onEvent: @Sendable (SensorLinkEvent) -> Void
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let listener = Mutex<Int?>(nil)
    /// The auto-connect profile of the sensors' services, registered while this runs (`autoConnect`).
    public let profile: SensorProfile?

    public static let characteristicInterface = "org.bluez.GattCharacteristic1"
    public static let minimumBackoff = Duration.seconds(1)
    /// How long a closed `AcquireNotify` socket waits for its link's `Connected` false before it is
    /// taken as broken on a live link (`replaceClosedSockets`).
    public static let linkVerdict = Duration.seconds(1)
    public static let maximumBackoff = Duration.seconds(30)
    /// The shortest time between the end of one attempt on a sensor and an attempt its
    /// advertisements make due: a stream of `RSSI` changes does not hammer `Connect`.
    public static let advertisedAttemptInterval = Duration.seconds(1)
    /// How long after a failed `StartDiscovery` it is tried again; also how long a discovery
    /// session may seem gone (the adapter not `Discovering`) before it is started again.
    static let discoveryRetry = Duration.seconds(5)
    /// The `org.bluez.Device1` properties that change when the device advertises while the
    /// adapter discovers.
    static let advertisementProperties = ["RSSI", "ManufacturerData", "ServiceData"]
    /// The shortest silence after which a measurement characteristic counts as stale.
    public static let minimumStaleness = Duration.seconds(5)

    /// How long a measurement characteristic may stay silent before it counts as stale: three times
    /// its usual interval between values, at least `minimumStaleness` (heart-rate straps and power
    /// meters notify every 0.25 to 1 s) and at most `maximumBackoff`.
    public static func staleness(interval: Duration?) -> Duration {
        guard let interval else { return minimumStaleness }
        return min(max(interval * 3, minimumStaleness), maximumBackoff)
    }

    private struct Link {
        var connected = false
        /// Whether `connect` has set the sensor up once (its read-once characteristics read then). Not
        /// set by a value that announced the sensor first: that may come before `connect` is done.
        var everConnected = false
        /// Whether `connected` was announced (on the D-Bus thread) since the link was last lost.
        var announced = false
        var nextAttempt = ContinuousClock.now
        var backoff = SensorLinks.minimumBackoff
        /// Whether it advertised, or BlueZ reported it connected, since its latest attempt began.
        var heard = false

        /// Whether discovery should run for the sensor: it is not connected.
        var waitsForAdvertisements: Bool { !connected }
    }

    /// This client's discovery session on one adapter.
    private struct Discovery {
        /// Whether `StartDiscovery` succeeded (and the session was not seen to end since).
        var running: Bool
        /// When it was last started, or failed to start.
        var startedAt: ContinuousClock.Instant
    }

    /// A subscribed measurement characteristic: who it belongs to and when it last spoke.
    private struct Measurement {
        var path: String
        var key: String
        var uuid: UInt16
        /// When it was subscribed to, or its latest value arrived.
        var lastHeard: ContinuousClock.Instant
        /// The usual interval between its values (a moving average, in nanoseconds: cheaper than
        /// `Duration`'s 128-bit arithmetic, on the path of every value), once two have arrived.
        var intervalNanoseconds: Int64?
        var interval: Duration? { intervalNanoseconds.map { .nanoseconds($0) } }
        var receivedAny = false
        /// While it is stale: when it is subscribed to again next, and the wait after that.
        var retryAt: ContinuousClock.Instant?
        var retryBackoff = SensorLinks.minimumStaleness

        /// A value arrived at `now`: the interval's moving average, heard, not stale. Returns
        /// whether it was stale.
        mutating func note(valueAt now: ContinuousClock.Instant) -> Bool {
            if receivedAny {
                let gap = (now - lastHeard).clampedNanoseconds
                if gap < Self.maximumGap {
                    intervalNanoseconds = intervalNanoseconds.map { $0 / 8 * 7 + gap / 8 } ?? gap
                }
            }
            let resumed = retryAt != nil
            (lastHeard, receivedAny, retryAt, retryBackoff) = (now, true, nil, SensorLinks.minimumStaleness)
            return resumed
        }

        /// Gaps this long or longer (a pause of the sensor) do not count toward the interval.
        static let maximumGap = SensorLinks.maximumBackoff.clampedNanoseconds
    }

    private struct State {
        var links: [String: Link] = [:]
        /// The measurement characteristics, from a sensor's first connection to `stop`: never
        /// removed, so that a characteristic's handlers find it by its index, without hashing its
        /// path for every value.
        var measurements: [Measurement] = []
        /// The index in `measurements` of each characteristic path.
        var measurementIndex: [String: Int] = [:]

        func measurement(_ path: String) -> Measurement? { measurementIndex[path].map { measurements[$0] } }

        /// Whether `sensor`'s next attempt waits for it to advertise: it is not connected, its
        /// adapter discovers, and it has not advertised (nor been reported connected by BlueZ)
        /// since its latest attempt. A `Connect` to a sensor out of range holds the kernel's one LE
        /// connection attempt (others wait behind it, or fail) until its timeout, about 20 s
        /// (docs/bluez-behaviours.md §4).
        func awaitsAdvertisement(_ sensor: SensorRequest) -> Bool {
            guard let link = links[sensor.key] else { return false }
            return link.waitsForAdvertisements && !link.heard && discovery[sensor.adapter]?.running == true
        }
        /// Characteristic paths read through an `AcquireNotify` socket → its descriptor.
        var acquired: [String: Int32] = [:]
        /// Characteristic paths whose socket closed, and when: if their sensor is still connected
        /// `linkVerdict` later, the supervisor's `StartNotify` replaces the socket for good.
        var socketsClosed: [String: ContinuousClock.Instant] = [:]
        var startNotifyOnly: Set<String> = []
        /// Characteristic paths with this client's `StartNotify` session (it succeeded, or BlueZ
        /// answered `InProgress`: one stands already); the ones `StopNotify` may end.
        var started: Set<String> = []
        /// Characteristic paths whose `AcquireNotify` gave no socket in this bluetoothd's life, and
        /// whether it went unanswered: never sent `StopNotify`, which before 5.84 frees what a
        /// failed `AcquireNotify` left behind and can crash bluetoothd (src/gatt-client.c,
        /// `notify_io_destroy`; fixed by 476ae809a).
        var noSocket: [String: Bool] = [:]
        /// Characteristic paths whose `AcquireNotify` socket went with their link: bluetoothd does
        /// not restore sockets on reconnection (it does `StartNotify` sessions), so each is
        /// acquired again once its sensor is connected (`connect`, or `reacquireLostSockets` when a
        /// restored subscription's value announced the sensor first).
        var socketsLost: Set<String> = []
        /// Measurement characteristic paths whose `Value` signals the bus reads for us
        /// (`watchByteProperty`), kept from the first connection to `stop`.
        var watches: [String: DBusMatchToken] = [:]
        /// The adapters whose discovery this client started or tried to start, by path.
        var discovery: [String: Discovery] = [:]
        /// When each sensor's latest attempt ended: its advertisements make the next one due
        /// `advertisedAttemptInterval` after that at the earliest. Kept across losses.
        var attemptEnded: [String: ContinuousClock.Instant] = [:]
        var stopped = false
        /// The bus policy refused setting `Trusted`: not asked again.
        var trustRefused = false
        /// The devices whose link this run made (`Connect` called while they were not connected):
        /// disconnected when it stops. bluetoothd keeps a link up after the program that asked
        /// for it has gone (src/device.c), and a strap holds only one or two links: left up, it
        /// keeps the rider's watch or phone from reaching it.
        var linked: Set<String> = []
    }

    /// With `autoConnect`, a `SensorProfile` is registered while this runs; `onProfile` hears what
    /// became of it.
    public init(
        client: BlueZClient, sensors: [SensorRequest], notifyPath: NotifyPath = .automatic, autoConnect: Bool = false,
        onNotification: @escaping @Sendable (BlueZNotification) -> Void,
        onEvent: @escaping @Sendable (SensorLinkEvent) -> Void,
        onProfile: @escaping @Sendable (SensorProfileEvent) -> Void = { _ in }
    ) {
        self.client = client
        self.sensors = sensors
        self.notifyPath = notifyPath
        self.onNotification = onNotification
        self.onEvent = onEvent
        profile = autoConnect ? SensorProfile(client: client, sensors: sensors, onEvent: onProfile) : nil
        state.withLock { s in for sensor in sensors { s.links[sensor.key] = Link() } }
    }

    /// Registers the profile (`autoConnect`) and starts connecting, on a thread of its own.
    public func start() {
        let id = client.addListener { [weak self] in self?.changed($0) }
        listener.withLock { $0 = id }
        // A sensor already connected (by another program, or a run that ended without
        // disconnecting) does not advertise: it is set up at once.
        let connected = sensors.filter { client.properties($0.device.path, BlueZClient.deviceInterface)?["Connected"]?.bool == true }
        state.withLock { s in for sensor in connected { s.links[sensor.key]?.heard = true } }
        let thread = Thread { [self] in
            // Named on the thread itself, for the kernel too (`Thread.nameCurrent`).
            Thread.nameCurrent("sb.links")
            // First, so that a sensor this run connects for the first time is made auto-connect by it.
            profile?.start()
            supervise()
            finished.signal()
        }
        thread.start()
    }

    /// Stops notifications, reconnection and discovery; after it returns no callback runs any more.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        finished.wait()
        // Before the links are taken down: no auto-connect brings them back.
        profile?.stop()
        let (started, acquired, watches, discovering, linked) = state.withLock { s in
            (
                s.started.subtracting(s.noSocket.keys).sorted(), Array(s.acquired.values), Array(s.watches.values),
                s.discovery.filter(\.value.running).keys.sorted(), s.linked.sorted()
            )
        }
        for adapter in discovering { _ = try? client.stopDiscovery(adapter: adapter) }
        for watch in watches { client.bus.unwatch(watch) }
        // Its round trip over the bus also waits for the unwatching above.
        if let id = listener.withLock({ $0 }) { client.removeListener(id) }
        // Closing an acquired socket releases it (BlueZ: "the notification stops").
        for fd in acquired { client.bus.stopReading(fd) }
        for path in started {
            _ = try? client.call(path, Self.characteristicInterface, "StopNotify", timeout: .seconds(2))
        }
        for path in linked where client.properties(path, BlueZClient.deviceInterface)?["Connected"]?.bool == true {
            _ = try? client.call(path, BlueZClient.deviceInterface, "Disconnect", timeout: .seconds(5))
        }
    }

    /// Runs on the D-Bus thread.
    private func changed(_ change: BlueZChange) {
        switch change {
        case .propertiesChanged(let path, Self.characteristicInterface, let changed):
            guard case .bytes(let bytes)? = changed["Value"], let index = state.withLock({ $0.measurementIndex[path] }) else {
                return
            }
            deliver(index, bytes, at: .now)
        case .propertiesChanged(let path, BlueZClient.deviceInterface, let changed):
            guard let sensor = sensors.first(where: { $0.device.path == path }) else { return }
            if let connected = changed["Connected"]?.bool {
                // Connected again (auto-connect, or another program's Connect): set it up now.
                if connected { attemptNow(sensor.key, advertised: false) } else { lose([sensor.key]) }
            } else if changed.keys.contains(where: Self.advertisementProperties.contains) {
                attemptNow(sensor.key, advertised: true)
            }
        case .bluezRunning(false):
            // The discovery sessions and the subscriptions ended with that bluetoothd, and so did
            // what a failed AcquireNotify left in it.
            state.withLock { s in
                s.discovery.removeAll()
                s.started.removeAll()
                s.noSocket.removeAll()
            }
            lose(sensors.map(\.key))
        case .interfacesRemoved:
            // A sensor forgotten, or its adapter unplugged: its device object is gone (and an
            // unplugged adapter's discovery with it).
            let gone = state.withLock { Array($0.discovery.keys) }.filter {
                client.properties($0, BlueZClient.adapterInterface) == nil
            }
            state.withLock { s in for adapter in gone { s.discovery[adapter] = nil } }
            lose(sensors.filter { client.properties($0.device.path, BlueZClient.deviceInterface) == nil }.map(\.key))
            wake.signal()
        case .interfacesAdded(let path):
            // A lost sensor's device object appears again: it was found advertising.
            if let sensor = sensors.first(where: { $0.device.path == path }) { attemptNow(sensor.key, advertised: true) }
            wake.signal()
        case .bluezRunning(true):
            wake.signal()
        default:
            break
        }
    }

    /// Makes the next attempt on a sensor that waits to be reconnected due now (BlueZ connected
    /// it), or, when it `advertised`, now but not sooner than `advertisedAttemptInterval` after its
    /// latest attempt ended; on the D-Bus thread.
    private func attemptNow(_ key: String, advertised: Bool) {
        let now = ContinuousClock.now
        let woken = state.withLock { s in
            guard !s.stopped, let link = s.links[key], !link.connected else { return false }
            var due = now
            if advertised {
                guard link.waitsForAdvertisements else { return false }
                if let ended = s.attemptEnded[key] { due = max(due, ended + Self.advertisedAttemptInterval) }
            }
            s.links[key]!.heard = true
            if due < link.nextAttempt { s.links[key]!.nextAttempt = due }
            return true
        }
        if woken { wake.signal() }
    }

    /// A value of the measurement characteristic `measurements[index]`, on the D-Bus thread. It is
    /// delivered whatever the link was believed to be: a value from a sensor believed lost
    /// announces it connected first.
    private func deliver(_ index: Int, _ bytes: [UInt8], at now: ContinuousClock.Instant) {
        let heard = state.withLock { s -> (key: String, uuid: UInt16, regained: Bool, resumed: Bool)? in
            guard !s.stopped else { return nil }
            // In place: no copy of the entry.
            let resumed = s.measurements[index].note(valueAt: now)
            let (key, uuid) = (s.measurements[index].key, s.measurements[index].uuid)
            let regained = s.links[key]?.announced == false
            if regained { s.links[key] = Link(connected: true, everConnected: s.links[key]?.everConnected ?? false, announced: true) }
            return (key, uuid, regained, resumed)
        }
        guard let m = heard else { return }
        if m.regained {
            onEvent(.connected(key: m.key, at: now))
            wake.signal()  // its discovery may stop
        }
        if m.resumed { onEvent(.notifying(key: m.key, uuid: m.uuid)) }
        onNotification(BlueZNotification(key: m.key, uuid: m.uuid, bytes: bytes, receivedAt: now))
    }

    /// Announces a connection the supervisor made, on the D-Bus thread, unless a value announced it
    /// already; then looks whether the link dropped while it was being made. A loss that came before
    /// the link was marked connected was ignored by `lose`, so without this look a sensor that
    /// leaves right after `StartNotify` would count as connected and never be reconnected.
    private func announceConnected(_ sensor: SensorRequest, at time: ContinuousClock.Instant) {
        client.bus.perform { [weak self] in
            guard let self else { return }
            let announce = state.withLock { s in
                guard !s.stopped, s.links[sensor.key]?.connected == true, s.links[sensor.key]?.announced == false else {
                    return false
                }
                s.links[sensor.key]!.announced = true
                return true
            }
            if announce { onEvent(.connected(key: sensor.key, at: time)) }
            if client.properties(sensor.device.path, BlueZClient.deviceInterface)?["Connected"]?.bool != true {
                lose([sensor.key])
            }
        }
    }

    /// On the D-Bus thread.
    private func lose(_ keys: [String]) {
        // Values a sensor sent before its link dropped may still wait in its AcquireNotify socket
        // (a signal is in order with the others; a socket is not): they are delivered first.
        let sockets = state.withLock { s in
            s.acquired.filter { path, _ in s.measurement(path).map { keys.contains($0.key) } ?? false }.values
        }
        for fd in sockets { client.bus.readWaitingPackets(fd) }
        let now = ContinuousClock.now
        let lost = state.withLock { s in
            keys.filter { key in
                guard !s.stopped, s.links[key]?.connected == true else { return false }
                s.links[key] = Link(connected: false, everConnected: s.links[key]!.everConnected, nextAttempt: now + Self.minimumBackoff)
                // The characteristics stay known: bluetoothd restores their StartNotify sessions when
                // the link is back, and the values resume by themselves; the sockets it does not.
                for index in s.measurements.indices where s.measurements[index].key == key {
                    s.measurements[index].retryAt = nil
                    let path = s.measurements[index].path
                    if let fd = s.acquired.removeValue(forKey: path) {
                        client.bus.stopReading(fd)
                        s.socketsLost.insert(path)
                    }
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
            // First: a sensor is connected only once it is seen advertising where discovery runs.
            updateDiscovery(now: now)
            let (stopped, due, next) = state.withLock { s in
                let waiting = sensors.filter { s.links[$0.key]?.connected == false && !s.awaitsAdvertisement($0) }
                let due = waiting.first { s.links[$0.key]!.nextAttempt <= now }
                if let due { s.links[due.key]!.heard = false }
                return (s.stopped, due, waiting.map { s.links[$0.key]!.nextAttempt }.min())
            }
            if stopped { return }
            reacquireLostSockets(now: now)
            resubscribeStale(now: now)
            replaceClosedSockets()
            guard let sensor = due else {
                let wait = next.map { min($0 - now, .milliseconds(500)) } ?? .milliseconds(500)
                _ = self.wake.wait(timeout: .now() + max(Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18, 0.001))
                continue
            }
            do {
                try connect(sensor)
                state.withLock { $0.attemptEnded[sensor.key] = .now }
            } catch {
                let retry = state.withLock { s -> Duration? in
                    let now = ContinuousClock.now
                    let backoff = s.links[sensor.key]!.backoff
                    s.links[sensor.key]!.nextAttempt = now + backoff
                    s.links[sensor.key]!.backoff = min(backoff * 2, Self.maximumBackoff)
                    s.attemptEnded[sensor.key] = now
                    // Discovery starts for it now, unless it failed to start on its adapter before.
                    return s.discovery[sensor.adapter].map(\.running) ?? true ? nil : backoff
                }
                onEvent(.attemptFailed(key: sensor.key, error, retryIn: retry))
            }
        }
    }

    /// Starts this client's discovery on the adapters of sensors that wait for advertisements,
    /// and stops it on the others; on the supervisor. A session that failed to start is tried again
    /// `discoveryRetry` later, and so is one BlueZ seems to have ended (its adapter not `Discovering`
    /// that long after it started: no client discovers there, so neither do we; a session that
    /// still runs answers `InProgress`).
    private func updateDiscovery(now: ContinuousClock.Instant) {
        let (start, stop) = state.withLock { s -> ([String], [String]) in
            let wanted = Set(sensors.filter { s.links[$0.key]?.waitsForAdvertisements == true }.map(\.adapter))
            let stop = s.discovery.filter { !wanted.contains($0.key) && $0.value.running }.map(\.key)
            let start = wanted.filter { adapter in
                guard let discovery = s.discovery[adapter] else { return true }
                return now - discovery.startedAt >= Self.discoveryRetry
                    && (!discovery.running
                        || client.properties(adapter, BlueZClient.adapterInterface)?["Discovering"]?.bool == false)
            }
            for adapter in s.discovery.keys where !wanted.contains(adapter) { s.discovery[adapter] = nil }
            return (start.sorted(), stop.sorted())
        }
        for adapter in stop { _ = try? client.stopDiscovery(adapter: adapter) }
        for adapter in start where client.properties(adapter, BlueZClient.adapterInterface) != nil {
            let running: Bool
            do {
                try client.startSensorDiscovery(adapter: adapter)
                running = true
            } catch {
                running = false
            }
            state.withLock { $0.discovery[adapter] = Discovery(running: running, startedAt: .now) }
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
                    try client.call(path, BlueZClient.deviceInterface, "Connect", timeout: .seconds(45))
                    state.withLock { _ = $0.linked.insert(path) }
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
        if measurements.isEmpty {
            // bluetoothd sets ServicesResolved even when its service discovery failed (src/device.c,
            // docs/bluez-behaviours.md §6): a link with nothing to subscribe to is a failed attempt.
            // A link this run made is taken down, so that the next attempt discovers again.
            if state.withLock({ $0.linked.contains(path) }) {
                _ = try? client.call(path, BlueZClient.deviceInterface, "Disconnect", timeout: .seconds(5))
            }
            throw .connectFailed(
                device: name, DBusError(.bluezFailed, "connected, but BlueZ found none of its measurement characteristics"))
        }
        let subscribed = ContinuousClock.now
        state.withLock { s in
            for m in measurements {
                let index: Int
                if let known = s.measurementIndex[m.path] {
                    index = known
                    s.measurements[index].lastHeard = subscribed
                } else {
                    index = s.measurements.count
                    s.measurements.append(Measurement(path: m.path, key: sensor.key, uuid: m.uuid, lastHeard: subscribed))
                    s.measurementIndex[m.path] = index
                }
                // Before StartNotify, so that no value goes the slow way. Values that do (with
                // other properties changed at once) still arrive through `changed`.
                if s.watches[m.path] == nil {
                    s.watches[m.path] = client.bus.watchByteProperty(
                        path: m.path, interface: Self.characteristicInterface, property: "Value"
                    ) { [weak self] bytes in self?.deliver(index, bytes, at: .now) }
                }
            }
        }
        for m in measurements { try subscribe(m.path, uuid: m.uuid, device: name) }
        let now = ContinuousClock.now
        let first = state.withLock { s in
            let first = !s.links[sensor.key]!.everConnected
            s.links[sensor.key]!.connected = true
            s.links[sensor.key]!.everConnected = true
            s.links[sensor.key]!.backoff = Self.minimumBackoff
            return first
        }
        announceConnected(sensor, at: now)
        if first {
            for r in readOnce {
                if let bytes = try? client.call(r.path, Self.characteristicInterface, "ReadValue", [.properties([:])]).first?.bytes {
                    onEvent(.value(key: sensor.key, uuid: r.uuid, bytes: bytes))
                }
            }
        }
    }

    /// Starts the notifications of the measurement characteristic at `path`: through an
    /// `AcquireNotify` socket where `readsSocket` says so and it is offered, else `StartNotify`.
    /// `InProgress` counts as started (BlueZ answers it to a client whose earlier subscription still
    /// stands); if no value follows, the characteristic turns stale and is subscribed to again.
    private func subscribe(_ path: String, uuid: UInt16, device name: String) throws(BlueZError) {
        // Subscribed once the characteristic is known (`connect`): its index is there.
        guard let index = state.withLock({ s in
            s.socketsLost.remove(path)
            return s.measurementIndex[path]
        }) else { return }
        if readsSocket(index) {
            switch acquire(path) {
            case .socket(let fd):
                read(fd, of: path, index: index)
                return
            case .failed(let unanswered):
                let key = state.withLock { s in
                    s.noSocket[path] = (s.noSocket[path] ?? false) || unanswered
                    return s.measurements[index].key
                }
                // The link dropped meanwhile: the next connection acquires again (StartNotify now
                // would keep a session that then bars AcquireNotify).
                if let device = sensors.first(where: { $0.key == key })?.device.path,
                    client.properties(device, BlueZClient.deviceInterface)?["Connected"]?.bool != true
                {
                    throw .notifyFailed(
                        device: name, characteristic: BlueZUUID.name(uuid),
                        DBusError(.bluezNotConnected, "the link dropped while AcquireNotify subscribed"))
                }
            case .notOffered:
                break
            }
        }
        do {
            try client.call(path, Self.characteristicInterface, "StartNotify", timeout: .seconds(10))
        } catch .dbus(let error) where error.name == .bluezInProgress {
        } catch .dbus(let error) {
            if error.name == .bluezNotPermitted, state.withLock({ $0.noSocket[path] == true }) {
                throw .notifyStuck(device: name, characteristic: BlueZUUID.name(uuid))
            }
            throw .notifyFailed(device: name, characteristic: BlueZUUID.name(uuid), error)
        }
        state.withLock { _ = $0.started.insert(path) }
    }

    /// Whether the measurement `measurements[index]` is to be read through an `AcquireNotify`
    /// socket: as `notifyPath` says, by its device's bluetoothd release when `automatic`; never
    /// once a socket of its broke.
    private func readsSocket(_ index: Int) -> Bool {
        let (key, broke) = state.withLock { ($0.measurements[index].key, $0.startNotifyOnly.contains($0.measurements[index].path)) }
        if broke { return false }
        switch notifyPath {
        case .start: return false
        case .acquire: return true
        case .automatic: return sensors.first { $0.key == key }.map { client.isAtLeast5_84(device: $0.device.path) } ?? false
        }
    }

    /// Reads the `AcquireNotify` socket `fd` of the measurement at `path` on the D-Bus thread.
    private func read(_ fd: Int32, of path: String, index: Int) {
        state.withLock { $0.acquired[path] = fd }
        client.bus.readPackets(from: fd) { [weak self] event in
            guard let self else { return }
            switch event {
            case .packet(let bytes, let receivedAt):
                deliver(index, bytes, at: receivedAt)
            case .closed:
                // BlueZ closed it: the link dropped (the loss comes as Connected false, and the
                // next connection acquires again), or the socket broke while the sensor stays
                // connected: then the supervisor starts notifications the other way.
                let broke = state.withLock { s -> Bool in
                    guard s.acquired[path] == fd else { return false }
                    s.acquired[path] = nil
                    guard s.socketsClosed[path] == nil else { return false }
                    s.socketsClosed[path] = .now
                    return true
                }
                if broke { wake.signal() }
            }
        }
    }

    /// `StartNotify` for each measurement characteristic whose `AcquireNotify` socket closed while
    /// its sensor stayed connected `linkVerdict` later; on the supervisor. One whose sensor was lost
    /// meanwhile is left to its reconnection, which acquires a socket again: bluetoothd sends the
    /// socket's hang-up and the link's `Connected` false from separate paths, in either order
    /// (docs/bluez-behaviours.md §3), so a socket that closes is judged by what the link says next.
    private func replaceClosedSockets() {
        let now = ContinuousClock.now
        let closed = state.withLock { s -> [(path: String, m: Measurement)] in
            let judged = s.socketsClosed.filter { now - $0.value >= Self.linkVerdict }.keys.sorted()
            for path in judged { s.socketsClosed[path] = nil }
            return judged.compactMap { path in
                guard !s.stopped, let m = s.measurement(path), s.links[m.key]?.connected == true else { return nil }
                s.startNotifyOnly.insert(path)
                return (path, m)
            }
        }
        for (path, m) in closed {
            onEvent(.socketClosed(key: m.key, uuid: m.uuid))
            do throws(BlueZError) {
                try subscribe(path, uuid: m.uuid, device: sensors.first { $0.key == m.key }?.device.name ?? m.key)
            } catch {
                // Stale detection tries again while it stays silent.
                onEvent(.attemptFailed(key: m.key, error, retryIn: Self.minimumStaleness))
            }
        }
    }

    /// Acquires again, on the supervisor, the sockets lost with a link of a sensor that is connected
    /// again without `connect` (a value of a restored `StartNotify` subscription announced it).
    /// Before stale detection, which would otherwise count the time without a socket as silence.
    private func reacquireLostSockets(now: ContinuousClock.Instant) {
        let due = state.withLock { s -> [Measurement] in
            let due = s.socketsLost.compactMap { path in
                s.measurement(path).flatMap { !s.stopped && s.links[$0.key]?.connected == true ? $0 : nil }
            }
            for m in due {
                s.socketsLost.remove(m.path)
                if let index = s.measurementIndex[m.path] { s.measurements[index].lastHeard = now }
            }
            return due.sorted { $0.path < $1.path }
        }
        for m in due {
            let name = sensors.first { $0.key == m.key }.map { $0.device.name ?? $0.device.address } ?? m.key
            do throws(BlueZError) {
                try subscribe(m.path, uuid: m.uuid, device: name)
            } catch {
                // Stale detection tries again while it stays silent.
                onEvent(.attemptFailed(key: m.key, error, retryIn: Self.minimumStaleness))
            }
        }
    }

    /// Subscribes again to the measurement characteristics of connected sensors that have been
    /// silent past their staleness, reporting each as `stale` the first time; on the supervisor.
    private func resubscribeStale(now: ContinuousClock.Instant) {
        let due = state.withLock { s -> [(path: String, m: Measurement, silentFor: Duration)] in
            var due: [(path: String, m: Measurement, silentFor: Duration)] = []
            for (index, m) in s.measurements.enumerated() where s.links[m.key]?.connected == true {
                let silence = now - m.lastHeard
                guard silence >= Self.staleness(interval: m.interval), m.retryAt.map({ now >= $0 }) ?? true else { continue }
                s.measurements[index].retryAt = now + m.retryBackoff
                s.measurements[index].retryBackoff = min(m.retryBackoff * 2, Self.maximumBackoff)
                due.append((m.path, m, silence))
            }
            return due
        }
        for (path, m, silentFor) in due {
            if m.retryAt == nil { onEvent(.stale(key: m.key, uuid: m.uuid, silentFor: silentFor)) }
            let (fd, started) = state.withLock { s in
                (s.acquired.removeValue(forKey: path), s.noSocket[path] == nil ? s.started.remove(path) != nil : false)
            }
            if let fd {
                client.bus.stopReading(fd)
            } else if started {
                _ = try? client.call(path, Self.characteristicInterface, "StopNotify", timeout: .seconds(5))
            }
            let name = sensors.first { $0.key == m.key }.map { $0.device.name ?? $0.device.address } ?? m.key
            do throws(BlueZError) {
                try subscribe(path, uuid: m.uuid, device: name)
            } catch {
                onEvent(.attemptFailed(key: m.key, error, retryIn: state.withLock { s in
                    s.measurement(path).flatMap { $0.retryAt.map { $0 - now } } ?? Self.minimumStaleness
                }))
            }
        }
    }

    /// What `AcquireNotify` gave.
    private enum Acquired {
        /// The socket's descriptor, ours to close.
        case socket(Int32)
        /// The characteristic does not offer it.
        case notOffered
        /// BlueZ refused it, or did not answer in `acquireTimeout` (`unanswered`: what bluetoothd
        /// before 5.84 does when the link drops while it subscribes).
        case failed(unanswered: Bool)
    }

    /// How long `AcquireNotify` may take: a CCC write, which a slow link makes last a few seconds.
    static let acquireTimeout = Duration.seconds(10)

    /// `AcquireNotify` on the characteristic at `path`, if it offers it.
    private func acquire(_ path: String) -> Acquired {
        guard let properties = client.properties(path, Self.characteristicInterface), properties["NotifyAcquired"] != nil,
            properties["Flags"]?.array?.contains(where: { $0.string == "notify" }) == true
        else { return .notOffered }
        do {
            let reply = try client.call(
                path, Self.characteristicInterface, "AcquireNotify", [.properties([:])], timeout: Self.acquireTimeout)
            guard case .unixFD(let fd)? = reply.first else { return .failed(unanswered: false) }
            return .socket(fd)
        } catch .dbus(let error) where error.name == .noReply || error.name == .timeout {
            return .failed(unanswered: true)
        } catch {
            return .failed(unanswered: false)
        }
    }
}

extension SensorRequest {
    /// The path of the adapter that knows the sensor: its device path's parent.
    var adapter: String { String(device.path[..<(device.path.lastIndex(of: "/") ?? device.path.endIndex)]) }
}
