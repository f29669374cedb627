import DBus
import Foundation
import Synchronization

/// A service the relay offers: the Heart Rate service (180D) or the Cycling Power service (1818).
public enum RelayedService: String, Sendable, CaseIterable {
    case heartRate = "heart-rate"
    case cyclingPower = "power"
}

/// What happens to the relay, for the log, the dashboard and the web page.
public enum GattRelayEvent: Sendable, Equatable {
    /// The GATT application is registered with BlueZ (again, after BlueZ restarted).
    case registered(adapter: String)
    /// BlueZ went away (stopped or restarting): nothing is offered until it returns.
    case bluezGone
    /// The adapter went away (unplugged): nothing is offered until it is back.
    case adapterGone(adapter: String)
    /// The advertisement is registered: centrals in range see the relay under its name.
    case advertising(name: String)
    /// A central subscribed to a characteristic's notifications, or left; `subscribers` now.
    case subscribers(uuid: UInt16, count: Int)
    /// A central connected to the adapter, or left (a device that is not a relayed sensor).
    case central(address: String, connected: Bool)
    /// Values BlueZ did not take (its socket full: it fell behind), so far: said at the first, and
    /// the total when the relay stops.
    case notRelayed(count: Int)
    /// Registering (again) failed; it is tried again when BlueZ restarts, or, for the
    /// advertisement, with the next value after `retryIn`.
    case failed(GattRelayError, retryIn: Duration? = nil)
}

/// Why the relay cannot offer the sensors, each with the fix.
public enum GattRelayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The adapter's `Roles` lack `peripheral`.
    case notPeripheral(adapter: String, roles: [String])
    /// `SupportedInstances` is 0: every advertising slot of the controller is taken.
    case noAdvertisingSlots(adapter: String)
    /// The adapter has no `GattManager1` or `LEAdvertisingManager1` (BlueZ before 5.48).
    case bluezTooOld(adapter: String, missing: String)
    /// The D-Bus policy does not let this user register an application or an advertisement.
    case permissionDenied(String)
    /// BlueZ refused the registration for another reason.
    case refused(what: String, String)

    public var description: String {
        switch self {
        case .notPeripheral(let adapter, let roles):
            "the Bluetooth adapter \(adapter) cannot be a peripheral (its roles: \(roles.joined(separator: ", "))), so it "
                + "cannot offer the sensors to other apps; plug in an adapter that can (most Bluetooth 4.1 and later ones) "
                + "and give it with --adapter"
        case .noAdvertisingSlots(let adapter):
            "the Bluetooth adapter \(adapter) has no advertising slot left (SupportedInstances is 0: other programs "
                + "advertise); stop them ('bluetoothctl advertise off'), or use another adapter with --adapter"
        case .bluezTooOld(let adapter, let missing):
            "BlueZ offers no \(missing) on \(adapter): it is too old to make this box a sensor (5.48 or later is needed; "
                + "'bluetoothctl --version' says which it is)"
        case .permissionDenied(let message):
            "the D-Bus policy does not let this user offer sensors through BlueZ (\(message)); install udev/sensorbridge-dbus.conf "
                + "to /etc/dbus-1/system.d/ (it allows the bluetooth group to register a GATT application and an advertisement)"
        case .refused(let what, let message):
            "BlueZ refused to register the relay's \(what) (\(message))"
        }
    }
}

/// The box as a Bluetooth LE heart-rate and power sensor for other apps (`sensorbridge relay`,
/// `record --relay`): a GATT application (`GattManager1.RegisterApplication`) with the Heart Rate
/// service (2A37 notify, 2A38 read) and the Cycling Power service (2A63 notify, 2A65 read, 2A5D
/// read), and an advertisement (`LEAdvertisingManager1.RegisterAdvertisement`) under a name of the
/// user's choosing. Objects under `root`, served on the client's bus connection.
///
/// `forward` hands on each measurement value. Where bluetoothd is 5.84 or later
/// (`BlueZClient.isAtLeast5_84`, by the adapter's devices when registering) the notify
/// characteristics offer `AcquireNotify` (their `NotifyAcquired` property says so), which bluetoothd
/// then uses: for each central subscribing it asks for a socket, and a value is one packet written
/// to each socket, passed straight to the radio. Elsewhere they do not: from 5.69 to 5.75
/// bluetoothd sends what any one socket carries to every subscribed central, so that each would get
/// each value once per central (src/gatt-database.c, `sock_io_read`; fixed by a08ec1a4e in 5.76),
/// and the bus shows no difference between 5.75 and 5.76. A central that subscribes through
/// `StartNotify` (then, or when `AcquireNotify` fails) gets the value as a `PropertiesChanged` of
/// the characteristic's `Value`, which bluetoothd sends once to each central in every release.
/// Nothing is sent while no central is subscribed, or for a sensor that sends nothing (lost).
/// Advertising starts with the first value forwarded. When BlueZ restarts the application and the
/// advertisement are registered again; `stop` unregisters both.
public final class GattRelay: Sendable {
    public static let root = "/org/sensorbridge/relay"
    static let characteristicInterface = "org.bluez.GattCharacteristic1"
    static let serviceInterface = "org.bluez.GattService1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let advertisementPath = root + "/advertisement0"

    let client: BlueZClient
    public let adapter: String
    public let name: String
    let services: [RelayedService]
    let onEvent: @Sendable (GattRelayEvent) -> Void
    private let state: Mutex<State>
    private let listener = Mutex<Int?>(nil)

    struct Characteristic: Sendable {
        let uuid: UInt16
        let path: String
        let service: String
        let notifies: Bool
        var value: [UInt8]
    }

    private struct State {
        var characteristics: [Characteristic]
        /// `StartNotify` calls since the last `StopNotify`, by characteristic path: bluetoothd calls
        /// StartNotify for each central subscribing and StopNotify when the last one has left.
        var subscribers: [String: Int] = [:]
        /// The sockets of `AcquireNotify` (this end), by characteristic path: one per central
        /// subscribed (one for all before BlueZ 5.69); bluetoothd closes it when the central leaves.
        var sockets: [String: [Int32]] = [:]
        /// Values for the sockets forwarded during the D-Bus thread's turn, by characteristic path
        /// (an entry stays once made, its array emptied with its capacity kept, so that staging
        /// allocates nothing in steady state): sent together when the turn ends (one `sendmmsg`
        /// per socket in a flood).
        var staged: [(path: String, values: [[UInt8]])] = []
        /// Values a socket did not take (its reader behind), all told.
        var notSent = 0
        var registered = false
        /// The characteristics offer `AcquireNotify` (decided when registering).
        var offersSockets = false
        /// A registration is under way (`registerWhenOffered`); `registerAgain`: something was
        /// added to the adapter meanwhile.
        var registering = false
        var registerAgain = false
        /// The advertisement is registered, or being registered.
        var advertising = false
        /// After a refused registration: not tried again before `retryAt`, and the wait doubles
        /// (1 s to a minute) until one is taken, so that a refusing BlueZ is not asked 4 times a
        /// second.
        var advertisingRetryAt: ContinuousClock.Instant?
        var advertisingRetryWait: Duration = .seconds(1)
        var stopped = false
        var exported = false
        /// Devices connected to the adapter that are not relayed sensors.
        var centrals: Set<String> = []

        /// How many are subscribed to the characteristic at `path`, as far as this side can tell.
        func subscriberCount(_ path: String) -> Int { subscribers[path, default: 0] + sockets[path, default: []].count }

        /// Keeps `value` for the sockets of the characteristic at `path` until `sendStaged`.
        mutating func stage(_ value: [UInt8], for path: String) {
            if let index = staged.firstIndex(where: { $0.path == path }) {
                staged[index].values.append(value)
            } else {
                staged.append((path, [value]))
            }
        }

        /// Sends what was staged on the characteristics' sockets (`send`) and empties it.
        mutating func sendStaged() -> Int? {
            defer { for index in staged.indices { staged[index].values.removeAll(keepingCapacity: true) } }
            return send(staged)
        }

        /// Sends each batch's values on the sockets of the characteristic at its path, counting
        /// what a socket did not take; how many were not taken when those are the first, else nil.
        /// Under the lock: a socket is taken out of the list under it before it is closed.
        mutating func send(_ batches: [(path: String, values: [[UInt8]])]) -> Int? {
            let before = notSent
            for (path, values) in batches where !values.isEmpty {
                for fd in sockets[path, default: []] { notSent += values.count - DBusConnection.sendPackets(values, on: fd) }
            }
            return before == 0 && notSent > 0 ? notSent : nil
        }

        /// Forgets every socket, returning them to be closed.
        mutating func takeSockets() -> [Int32] {
            defer { sockets = [:] }
            return sockets.values.flatMap { $0 }
        }
    }

    /// The services and their characteristics, with the values a read gives until the sensor's
    /// own are known (`setReadValue`): body sensor location 1 (chest), no cycling power features,
    /// sensor location 0 (other).
    static func characteristics(_ services: [RelayedService]) -> [Characteristic] {
        services.enumerated().flatMap { index, service -> [Characteristic] in
            let path = "\(root)/service\(index)"
            let table: [(UInt16, Bool, [UInt8])] =
                service == .heartRate ? [(0x2A37, true, []), (0x2A38, false, [1])] : [(0x2A63, true, []), (0x2A65, false, [0, 0, 0, 0]), (0x2A5D, false, [0])]
            return table.enumerated().map { position, entry in
                Characteristic(uuid: entry.0, path: "\(path)/char\(position)", service: path, notifies: entry.1, value: entry.2)
            }
        }
    }

    public init(
        client: BlueZClient, adapter: String, name: String, services: [RelayedService],
        onEvent: @escaping @Sendable (GattRelayEvent) -> Void
    ) {
        self.client = client
        self.adapter = adapter
        self.name = name
        self.services = services
        self.onEvent = onEvent
        state = Mutex(State(characteristics: Self.characteristics(services)))
    }

    /// Checks the adapter, serves the objects and registers the application; the advertisement
    /// follows the first value. Not on the D-Bus thread.
    public func start() throws(GattRelayError) {
        // First, before the ring's publish wakes the consumer onto this CPU: the wake-up of
        // bluetoothd after that one let the consumer take the CPU from this thread mid-turn, a
        // third more runs of it per notification in the benchmark.
        client.bus.afterEachTurn(first: true) { [weak self] in self?.sendStaged() }
        // Listening first: a central may connect as soon as the application is registered (an app
        // reconnecting to a relay it knew), before `register` returns.
        let id = client.addListener { [weak self] change in self?.changed(change) }
        listener.withLock { $0 = id }
        do {
            try register()
        } catch {
            client.removeListener(id)
            listener.withLock { $0 = nil }
            throw error
        }
    }

    /// Sends what the D-Bus thread's turn staged for the sockets (after each turn).
    private func sendStaged() {
        let firstLoss = state.withLock { $0.sendStaged() }
        if let firstLoss { onEvent(.notRelayed(count: firstLoss)) }
    }

    private func register() throws(GattRelayError) {
        let adapterProperties = client.properties(adapter, "org.bluez.Adapter1") ?? [:]
        // BlueZ before 5.56 has no Roles: then registering says whether the adapter can.
        if let roles = adapterProperties["Roles"]?.array?.compactMap(\.string), !roles.contains("peripheral") {
            throw .notPeripheral(adapter: adapter, roles: roles)
        }
        guard client.properties(adapter, "org.bluez.GattManager1") != nil else {
            throw .bluezTooOld(adapter: adapter, missing: "GattManager1")
        }
        guard let advertising = client.properties(adapter, "org.bluez.LEAdvertisingManager1") else {
            throw .bluezTooOld(adapter: adapter, missing: "LEAdvertisingManager1")
        }
        if advertising["SupportedInstances"]?.integer == 0 { throw .noAdvertisingSlots(adapter: adapter) }
        let offersSockets = client.isAtLeast5_84(adapter: adapter)
        state.withLock { $0.offersSockets = offersSockets }
        try exportObjects()
        do {
            try client.call(adapter, "org.bluez.GattManager1", "RegisterApplication", [.objectPath(Self.root), .properties([:])])
        } catch {
            throw Self.registrationError(error, what: "GATT application")
        }
        state.withLock { s in
            s.registered = true
            s.advertising = false
        }
        onEvent(.registered(adapter: adapter))
    }

    static func registrationError(_ error: BlueZError, what: String) -> GattRelayError {
        switch error {
        case .permissionDenied(let error): .permissionDenied(error.message)
        case .dbus(let error) where error.name == .accessDenied: .permissionDenied(error.message)
        default: .refused(what: what, "\(error)")
        }
    }

    /// Unregisters the advertisement and the application and stops serving them.
    public func stop() {
        sendStaged()
        let (wasRegistered, wasAdvertising, sockets, notSent) = state.withLock { s in
            defer { (s.stopped, s.registered, s.advertising) = (true, false, false) }
            return (s.registered, s.advertising, s.takeSockets(), s.notSent)
        }
        if notSent > 0 { onEvent(.notRelayed(count: notSent)) }
        if let id = listener.withLock({ $0 }) { client.removeListener(id) }
        for fd in sockets { client.bus.stopReading(fd) }
        if wasAdvertising {
            _ = try? client.call(
                adapter, "org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", [.objectPath(Self.advertisementPath)],
                timeout: .seconds(5))
        }
        if wasRegistered {
            _ = try? client.call(adapter, "org.bluez.GattManager1", "UnregisterApplication", [.objectPath(Self.root)], timeout: .seconds(5))
        }
        for path in exportedPaths { client.bus.unexport(path) }
    }

    /// Hands on a measurement value (2A37, 2A63) as its sensor sent it; others are ignored. The
    /// first value starts advertising. On the D-Bus thread (a notification handler) the values for
    /// the sockets are sent when its turn ends, together; elsewhere at once. A socket whose reader
    /// is behind (its buffer, some hundred kilobytes, full) misses the value, as a central out of
    /// range would.
    public func forward(uuid: UInt16, bytes: [UInt8]) {
        let staging = client.bus.onDispatchThread
        let found = state.withLock { s -> (path: String, notify: Bool, advertise: Bool, firstLoss: Int?)? in
            guard s.registered, !s.stopped, let index = s.characteristics.firstIndex(where: { $0.uuid == uuid && $0.notifies })
            else { return nil }
            let path = s.characteristics[index].path
            var firstLoss: Int?
            if s.sockets[path] != nil {
                if staging { s.stage(bytes, for: path) } else { firstLoss = s.send([(path, [bytes])]) }
            }
            let advertise = !s.advertising && s.advertisingRetryAt.map { $0 <= .now } ?? true
            if advertise { s.advertising = true }
            return (path, s.subscribers[path, default: 0] > 0, advertise, firstLoss)
        }
        guard let found else { return }
        if let firstLoss = found.firstLoss { onEvent(.notRelayed(count: firstLoss)) }
        if found.notify {
            client.bus.emit(
                path: found.path, interface: Self.propertiesInterface, member: "PropertiesChanged",
                arguments: [.string(Self.characteristicInterface), .properties(["Value": .bytes(bytes)]), .array(elementSignature: "s", [])])
        }
        if found.advertise { registerAdvertisement() }
    }

    /// What a read of `uuid` (2A38, 2A65, 2A5D) gives: the relayed sensor's own value, read once
    /// after it connected.
    public func setReadValue(uuid: UInt16, bytes: [UInt8]) {
        state.withLock { s in
            if let index = s.characteristics.firstIndex(where: { $0.uuid == uuid && !$0.notifies }) { s.characteristics[index].value = bytes }
        }
    }

    private func registerAdvertisement() {
        client.bus.call(
            destination: BlueZClient.service, path: adapter, interface: "org.bluez.LEAdvertisingManager1",
            member: "RegisterAdvertisement", arguments: [.objectPath(Self.advertisementPath), .properties([:])]
        ) { [self] result in
            switch result {
            case .success:
                state.withLock { s in (s.advertisingRetryAt, s.advertisingRetryWait) = (nil, .seconds(1)) }
                onEvent(.advertising(name: name))
            case .failure(let error):
                let wait = state.withLock { s in
                    s.advertising = false
                    s.advertisingRetryAt = .now + s.advertisingRetryWait
                    defer { s.advertisingRetryWait = min(s.advertisingRetryWait * 2, .seconds(60)) }
                    return s.advertisingRetryWait
                }
                onEvent(.failed(Self.registrationError(BlueZError(error), what: "advertisement"), retryIn: wait))
            }
        }
    }

    /// BlueZ or the adapter went away: nothing is registered any more, and the sockets are gone.
    private func forgetRegistration() {
        let sockets = state.withLock { s in
            (s.registered, s.advertising, s.subscribers, s.centrals) = (false, false, [:], [])
            return s.takeSockets()
        }
        for fd in sockets { client.bus.stopReading(fd) }
    }

    /// Registers again once the adapter offers what the relay needs. bluetoothd takes its bus name
    /// before it adds the adapter (src/main.c, src/adapter.c), and adds `LEAdvertisingManager1`
    /// only once the controller has told its advertising features (src/advertising.c), so BlueZ
    /// running, and each interface the adapter gains, is a chance: tried on a thread of its own
    /// (the calls' replies come on the D-Bus thread), once at a time, again at once when something
    /// was added meanwhile. Only when the adapter stays without them for `offerGrace` is BlueZ
    /// said to be too old.
    private func registerWhenOffered() {
        let start = state.withLock { s -> Bool in
            guard !s.stopped, !s.registered else { return false }
            guard !s.registering else {
                s.registerAgain = true
                return false
            }
            s.registering = true
            return true
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            let deadline = ContinuousClock.now + Self.offerGrace
            while true {
                state.withLock { $0.registerAgain = false }
                var failure: GattRelayError?
                do throws(GattRelayError) { try register() } catch { failure = error }
                var waiting = false
                if case .bluezTooOld = failure { waiting = ContinuousClock.now < deadline }
                let retry = state.withLock { s -> Bool in
                    let retry = failure != nil && !s.stopped && (s.registerAgain || waiting)
                    if !retry { s.registering = false }
                    return retry
                }
                guard retry else {
                    if let failure, !state.withLock({ $0.stopped }) { onEvent(.failed(failure)) }
                    return
                }
                if !state.withLock({ $0.registerAgain }) { Thread.sleep(forTimeInterval: 0.25) }
            }
        }
    }

    /// How long an adapter may lack `GattManager1` or `LEAdvertisingManager1` after BlueZ started
    /// or the adapter appeared before BlueZ is said to be too old.
    static let offerGrace: Duration = .seconds(10)

    /// BlueZ or the adapter went or came back (`registerWhenOffered`), or a device connected or left.
    private func changed(_ change: BlueZChange) {
        switch change {
        case .bluezRunning(false):
            forgetRegistration()
            onEvent(.bluezGone)
        case .interfacesRemoved(let path) where path == adapter:
            forgetRegistration()
            onEvent(.adapterGone(adapter: adapter))
        case .bluezRunning(true):
            registerWhenOffered()
        case .interfacesAdded(let path) where path == adapter:
            registerWhenOffered()
        case .propertiesChanged(let path, "org.bluez.Device1", let changed):
            guard path.hasPrefix(adapter + "/"), let connected = changed["Connected"]?.bool,
                let address = client.properties(path, "org.bluez.Device1")?["Address"]?.string
            else { return }
            let isCentral = connected ? !isSensor(path) : state.withLock { $0.centrals.contains(address) }
            guard isCentral else { return }
            state.withLock { s in
                if connected { s.centrals.insert(address) } else { s.centrals.remove(address) }
            }
            onEvent(.central(address: address, connected: connected))
        default: break
        }
    }

    /// Whether the device at `path` offers a measurement this box relays (so it is a sensor, not a
    /// central).
    private func isSensor(_ path: String) -> Bool {
        let uuids = (client.properties(path, "org.bluez.Device1")?["UUIDs"]?.array ?? []).compactMap(\.string).map { $0.lowercased() }
        return uuids.contains(BlueZUUID.full(0x180D)) || uuids.contains(BlueZUUID.full(0x1818))
    }

    // MARK: The objects

    private var exportedPaths: [String] {
        let characteristics = state.withLock { $0.characteristics }
        return [Self.root, Self.advertisementPath] + Set(characteristics.map(\.service)).sorted() + characteristics.map(\.path)
    }

    private func exportObjects() throws(GattRelayError) {
        guard !state.withLock({ $0.exported }) else { return }
        for path in exportedPaths {
            do {
                try client.bus.export(path) { [weak self] call in
                    self?.answer(call) ?? .failure(DBusError(.unknownMethod, "the relay has stopped"))
                }
            } catch {
                throw .refused(what: "objects", error.message)
            }
        }
        state.withLock { $0.exported = true }
    }

    /// Answers a call to one of the relay's objects (on the D-Bus thread).
    func answer(_ call: DBusMethodCall) -> Result<[DBusValue], DBusError> {
        switch (call.path, call.interface, call.member) {
        case (Self.root, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"):
            return .success([managedObjects()])
        case (_, Self.propertiesInterface, "GetAll"):
            guard let interface = call.arguments.first?.string, let properties = properties(of: call.path, interface) else {
                return .failure(DBusError(.invalidArgs, "no such interface"))
            }
            return .success([.properties(properties)])
        case (_, Self.propertiesInterface, "Get"):
            guard call.arguments.count == 2, let interface = call.arguments[0].string, let property = call.arguments[1].string,
                let value = properties(of: call.path, interface)?[property]
            else { return .failure(DBusError(.invalidArgs, "no such property")) }
            return .success([.variant(value)])
        case (Self.advertisementPath, Self.advertisementInterface, "Release"):
            state.withLock { $0.advertising = false }
            return .success([])
        case (_, Self.characteristicInterface, "ReadValue"):
            guard let value = state.withLock({ s in s.characteristics.first { $0.path == call.path }?.value }) else {
                return .failure(DBusError(DBusError.Name("org.bluez.Error.NotPermitted"), "not readable"))
            }
            return .success([.bytes(value)])
        case (_, Self.characteristicInterface, "StartNotify"), (_, Self.characteristicInterface, "StopNotify"):
            let starting = call.member == "StartNotify"
            let result = state.withLock { s -> (UInt16, Int)? in
                guard let characteristic = s.characteristics.first(where: { $0.path == call.path && $0.notifies }) else { return nil }
                s.subscribers[call.path] = starting ? s.subscribers[call.path, default: 0] + 1 : 0
                return (characteristic.uuid, s.subscriberCount(call.path))
            }
            guard let (uuid, count) = result else { return .failure(Self.doesNotNotify) }
            onEvent(.subscribers(uuid: uuid, count: count))
            return .success([])
        case (_, Self.characteristicInterface, "AcquireNotify"):
            return acquireNotify(call)
        default:
            return .failure(DBusError(.unknownMethod, "\(call.interface).\(call.member) is not a method of \(call.path)"))
        }
    }

    static let doesNotNotify = DBusError(DBusError.Name("org.bluez.Error.NotSupported"), "this characteristic does not notify")

    /// `AcquireNotify` (bluetoothd, for a central subscribing): a socket pair, one end kept to send
    /// each value on, the other returned with the MTU bluetoothd gave (23, the least, without one).
    /// The socket is read only to learn when bluetoothd closes it (the central left).
    private func acquireNotify(_ call: DBusMethodCall) -> Result<[DBusValue], DBusError> {
        guard let uuid = state.withLock({ s in s.characteristics.first { $0.path == call.path && $0.notifies }?.uuid }) else {
            return .failure(Self.doesNotNotify)
        }
        guard let pair = DBusConnection.packetSocketPair() else {
            return .failure(DBusError(DBusError.Name("org.bluez.Error.Failed"), "no socket: \(String(cString: strerror(errno)))"))
        }
        let path = call.path
        let count = state.withLock { s in
            s.sockets[path, default: []].append(pair.ours)
            return s.subscriberCount(path)
        }
        client.bus.readPackets(from: pair.ours) { [weak self] event in
            if case .closed = event { self?.released(path, pair.ours) }
        }
        onEvent(.subscribers(uuid: uuid, count: count))
        let mtu = call.arguments.first?.dictionary?["mtu"]?.integer.flatMap(UInt16.init(exactly:)) ?? 23
        return .success([.unixFD(pair.theirs), .uint16(mtu)])
    }

    /// bluetoothd closed an `AcquireNotify` socket: its central left (or BlueZ went away).
    private func released(_ path: String, _ fd: Int32) {
        let result = state.withLock { s -> (UInt16, Int)? in
            guard let index = s.sockets[path]?.firstIndex(of: fd) else { return nil }
            s.sockets[path]?.remove(at: index)
            return s.characteristics.first { $0.path == path }.map { ($0.uuid, s.subscriberCount(path)) }
        }
        if let (uuid, count) = result { onEvent(.subscribers(uuid: uuid, count: count)) }
    }

    /// `GetManagedObjects`' answer: the services and characteristics (the advertisement is not
    /// part of the application).
    func managedObjects() -> DBusValue {
        let characteristics = state.withLock { $0.characteristics }
        let paths = Set(characteristics.map(\.service)).sorted() + characteristics.map(\.path)
        return .dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            paths.map { path in
                let interface = path.contains("/char") ? Self.characteristicInterface : Self.serviceInterface
                return DBusValue.DictionaryEntry(
                    .objectPath(path),
                    .dictionary(
                        keySignature: "s", valueSignature: "a{sv}",
                        [DBusValue.DictionaryEntry(.string(interface), .properties(properties(of: path, interface) ?? [:]))]))
            })
    }

    /// The properties of the object at `path` for `interface`; nil when it has not that interface.
    func properties(of path: String, _ interface: String) -> [String: DBusValue]? {
        let (characteristics, subscribers, sockets, offersSockets) = state.withLock {
            ($0.characteristics, $0.subscribers, $0.sockets, $0.offersSockets)
        }
        switch interface {
        case Self.serviceInterface:
            guard let index = services.indices.first(where: { path == "\(Self.root)/service\($0)" }) else { return nil }
            return ["UUID": .string(BlueZUUID.full(services[index] == .heartRate ? 0x180D : 0x1818)), "Primary": .bool(true)]
        case Self.characteristicInterface:
            guard let characteristic = characteristics.first(where: { $0.path == path }) else { return nil }
            var properties: [String: DBusValue] = [
                "UUID": .string(BlueZUUID.full(characteristic.uuid)), "Service": .objectPath(characteristic.service),
                "Flags": .array(elementSignature: "s", [.string(characteristic.notifies ? "notify" : "read")]),
            ]
            if characteristic.notifies {
                properties["Notifying"] = .bool(subscribers[path, default: 0] > 0)
                // Its presence tells bluetoothd that AcquireNotify is offered.
                if offersSockets { properties["NotifyAcquired"] = .bool(!sockets[path, default: []].isEmpty) }
            }
            return properties
        case Self.advertisementInterface where path == Self.advertisementPath:
            return [
                // Discoverable: phones and watches list only a general-discoverable advertiser, and
                // bluetoothd flags it so only while the adapter is discoverable unless asked here.
                "Type": .string("peripheral"), "LocalName": .string(name), "Discoverable": .bool(true),
                "ServiceUUIDs": .array(
                    elementSignature: "s", services.map { .string(BlueZUUID.full($0 == .heartRate ? 0x180D : 0x1818)) }),
            ]
        default:
            return nil
        }
    }
}
