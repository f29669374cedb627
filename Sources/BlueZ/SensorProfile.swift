import DBus
import Foundation
import Synchronization

/// What happens to the sensors' auto-connect profile (`SensorProfile`), for the log.
public enum SensorProfileEvent: Sendable, Equatable {
    /// BlueZ took the profile on `adapter` (again, after it restarted or the adapter came back):
    /// the kernel reconnects the known sensors offering `services` whenever they advertise.
    case registered(adapter: String, services: [UInt16])
    /// The adapter offers no `GattManager1` (BlueZ before 5.40): no auto-connect there.
    case unavailable(adapter: String)
    /// BlueZ or the bus policy refused the registration (`reason`: its error).
    case refused(adapter: String, reason: String)
}

/// Asks BlueZ to reconnect the sensors by itself: a GATT application holding one
/// `org.bluez.GattProfile1` whose `UUIDs` are the services of the sensors being kept (Heart Rate
/// 180D, Cycling Power 1818, Cycling Speed and Cadence 1816), registered with each of their
/// adapters' `GattManager1.RegisterApplication`. bluetoothd has no heart-rate or power profile of
/// its own (removed in 5.43) and reconnects only devices an auto-connect profile matches; for such
/// a profile it makes each known (non-temporary) device offering one of the UUIDs auto-connect, so
/// the kernel connects it by passive scanning as soon as it advertises (src/gatt-database.c
/// `profile_add`, src/device.c `probe_service`; docs/bluez-behaviours.md §5).
///
/// A refused or absent registration is reported (`onEvent`) and is not an error: `SensorLinks`
/// reconnects lost sensors itself all the same, by discovery and `Connect`. Registered again
/// whenever BlueZ restarts or the adapter comes back; `stop` unregisters it. The objects are under
/// `root`, apart from the relay's (`GattRelay.root`), served on the client's bus connection.
public final class SensorProfile: Sendable {
    public static let root = "/org/sensorbridge/profile"
    public static let profilePath = root + "/sensors"
    static let interface = "org.bluez.GattProfile1"
    static let managerInterface = "org.bluez.GattManager1"

    public let client: BlueZClient
    /// The adapters of the sensors, by path.
    public let adapters: [String]
    /// The services asked for, as 16-bit numbers.
    public let services: [UInt16]
    private let onEvent: @Sendable (SensorProfileEvent) -> Void
    private let state = Mutex(State())
    private let listener = Mutex<Int?>(nil)

    private struct State {
        var exported = false
        var stopped = false
        /// The adapters the application is registered with.
        var registered: Set<String> = []
        /// Adapters with a registration under way; `again`: offered something meanwhile.
        var registering: Set<String> = []
        var again: Set<String> = []
        /// What was last said of each adapter, so that the same failure is said once.
        var said: [String: SensorProfileEvent] = [:]
    }

    /// The sensor services (`BlueZUUID.sensorServices`) the sensors offer, in that order.
    public static func services(of sensors: [SensorRequest]) -> [UInt16] {
        BlueZUUID.sensorServices.filter { service in sensors.contains { $0.device.services.contains(service) } }
    }

    public init(client: BlueZClient, sensors: [SensorRequest], onEvent: @escaping @Sendable (SensorProfileEvent) -> Void) {
        self.client = client
        self.adapters = Array(Set(sensors.map(\.adapter))).sorted()
        self.services = Self.services(of: sensors)
        self.onEvent = onEvent
    }

    /// Serves the objects and registers them with each adapter that offers `GattManager1`; the
    /// others when they do. Not on the D-Bus thread (the registration's reply comes on it).
    public func start() {
        guard !services.isEmpty, !adapters.isEmpty else { return }
        for path in [Self.root, Self.profilePath] {
            do {
                try client.bus.export(path) { [weak self] call in
                    self?.answer(call) ?? .failure(DBusError(.unknownMethod, "the profile has stopped"))
                }
            } catch {
                for adapter in adapters { say(.refused(adapter: adapter, reason: error.message)) }
                return
            }
        }
        state.withLock { $0.exported = true }
        let id = client.addListener { [weak self] change in self?.changed(change) }
        listener.withLock { $0 = id }
        for adapter in adapters { register(adapter) }
    }

    /// Unregisters the application from every adapter and stops serving it.
    public func stop() {
        let (registered, exported) = state.withLock { s in
            defer { (s.stopped, s.registered) = (true, []) }
            return (s.registered.sorted(), s.exported)
        }
        if let id = listener.withLock({ $0 }) { client.removeListener(id) }
        for adapter in registered { unregister(adapter) }
        if exported {
            for path in [Self.root, Self.profilePath] { client.bus.unexport(path) }
        }
    }

    /// One registration with `adapter`, on the calling thread: said when taken, refused, or when
    /// the adapter has no `GattManager1`. A registration that completes after `stop` is undone.
    private func register(_ adapter: String) {
        guard client.properties(adapter, BlueZClient.adapterInterface) != nil else { return }  // said when it appears
        guard client.properties(adapter, Self.managerInterface) != nil else {
            say(.unavailable(adapter: adapter))
            return
        }
        do {
            try client.call(
                adapter, Self.managerInterface, "RegisterApplication", [.objectPath(Self.root), .properties([:])],
                timeout: .seconds(10))
        } catch .dbus(let error) where error.name == DBusError.Name("org.bluez.Error.AlreadyExists") {
            // Taken by an attempt whose reply was lost: it stands.
        } catch {
            say(.refused(adapter: adapter, reason: Self.reason(error)))
            return
        }
        let stopped = state.withLock { s in
            if !s.stopped { s.registered.insert(adapter) }
            return s.stopped
        }
        if stopped {
            unregister(adapter)
        } else {
            say(.registered(adapter: adapter, services: services))
        }
    }

    private func unregister(_ adapter: String) {
        _ = try? client.call(adapter, Self.managerInterface, "UnregisterApplication", [.objectPath(Self.root)], timeout: .seconds(5))
    }

    static func reason(_ error: BlueZError) -> String {
        switch error {
        case .permissionDenied(let error), .dbus(let error), .noBus(let error): error.message
        default: error.description
        }
    }

    /// Reports `event`, unless it is the failure last reported for its adapter.
    private func say(_ event: SensorProfileEvent) {
        let adapter: String
        switch event {
        case .registered(let path, _), .unavailable(let path), .refused(let path, _): adapter = path
        }
        let repeated = state.withLock { s in
            defer { s.said[adapter] = event }
            if case .registered = event { return false }
            return s.said[adapter] == event
        }
        if !repeated { onEvent(event) }
    }

    /// BlueZ restarted or an adapter came back: registered again there, on a thread of its own, one
    /// attempt at a time per adapter (again at once when something was added meanwhile).
    private func registerWhenOffered(_ adapter: String) {
        let start = state.withLock { s -> Bool in
            guard !s.stopped, !s.registered.contains(adapter) else { return false }
            guard !s.registering.contains(adapter) else {
                s.again.insert(adapter)
                return false
            }
            s.registering.insert(adapter)
            return true
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            while true {
                state.withLock { _ = $0.again.remove(adapter) }
                register(adapter)
                let retry = state.withLock { s -> Bool in
                    let retry = !s.stopped && !s.registered.contains(adapter) && s.again.contains(adapter)
                    if !retry { s.registering.remove(adapter) }
                    return retry
                }
                guard retry else { return }
            }
        }
    }

    /// On the D-Bus thread.
    private func changed(_ change: BlueZChange) {
        switch change {
        case .bluezRunning(false):
            // Its applications went with that bluetoothd.
            state.withLock { $0.registered.removeAll() }
        case .bluezRunning(true):
            for adapter in adapters { registerWhenOffered(adapter) }
        case .interfacesRemoved(let path) where adapters.contains(path):
            if client.properties(path, BlueZClient.adapterInterface) == nil {
                state.withLock { _ = $0.registered.remove(path) }
            }
        case .interfacesAdded(let path) where adapters.contains(path):
            registerWhenOffered(path)
        default:
            break
        }
    }

    // MARK: The objects

    /// Answers a call to one of the objects (on the D-Bus thread): bluetoothd reads the application
    /// through `GetManagedObjects` and calls `Release` when it drops the profile.
    func answer(_ call: DBusMethodCall) -> Result<[DBusValue], DBusError> {
        switch (call.path, call.interface, call.member) {
        case (Self.root, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"):
            return .success([managedObjects()])
        case (Self.profilePath, "org.freedesktop.DBus.Properties", "GetAll") where call.arguments.first?.string == Self.interface:
            return .success([.properties(properties)])
        case (Self.profilePath, "org.freedesktop.DBus.Properties", "Get"):
            guard call.arguments.count == 2, call.arguments[0].string == Self.interface,
                let value = call.arguments[1].string.flatMap({ properties[$0] })
            else { return .failure(DBusError(.invalidArgs, "no such property")) }
            return .success([.variant(value)])
        case (Self.profilePath, Self.interface, "Release"):
            // Nothing to undo: bluetoothd has dropped the profile already (when the adapter or BlueZ
            // goes, the changes above say so).
            return .success([])
        default:
            return .failure(DBusError(.unknownMethod, "\(call.interface).\(call.member) is not a method of \(call.path)"))
        }
    }

    var properties: [String: DBusValue] {
        ["UUIDs": .array(elementSignature: "s", services.map { .string(BlueZUUID.full($0)) })]
    }

    /// `GetManagedObjects`' answer: the one profile object.
    func managedObjects() -> DBusValue {
        .dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            [
                DBusValue.DictionaryEntry(
                    .objectPath(Self.profilePath),
                    .dictionary(
                        keySignature: "s", valueSignature: "a{sv}",
                        [DBusValue.DictionaryEntry(.string(Self.interface), .properties(properties))]))
            ])
    }
}
