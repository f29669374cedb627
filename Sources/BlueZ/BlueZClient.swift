public import DBus
import Foundation
import Synchronization

/// A change in BlueZ's object tree, delivered to listeners on the D-Bus thread after the mirror
/// has applied it.
public enum BlueZChange: Sendable {
    case propertiesChanged(path: String, interface: String, changed: [String: DBusValue])
    case interfacesAdded(path: String)
    case interfacesRemoved(path: String)
    /// `org.bluez` got an owner (BlueZ started, the mirror is reloaded) or lost it.
    case bluezRunning(Bool)
}

/// The mirror of `org.bluez`'s objects: loaded with `GetManagedObjects`, kept current by
/// `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged`, and rebuilt when the
/// `org.bluez` name changes owner (BlueZ restarted).
public final class BlueZClient: Sendable {
    public typealias Properties = [String: DBusValue]
    public typealias Interfaces = [String: Properties]

    public static let service = "org.bluez"
    public let bus: DBusConnection
    private let objects = Mutex<[String: Interfaces]>([:])
    private let listeners = Mutex<[Int: @Sendable (BlueZChange) -> Void]>([:])
    private let nextListener = Atomic<Int>(0)

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` in `environment` when set) and loads the mirror.
    public convenience init(environment: [String: String]) throws(BlueZError) {
        let bus: DBusConnection
        do {
            bus = try DBusConnection.system(environment: environment)
        } catch {
            throw error.name == .accessDenied ? .permissionDenied(error) : .noBus(error)
        }
        try self.init(bus: bus)
    }

    public init(bus: DBusConnection) throws(BlueZError) {
        self.bus = bus
        bus.addMatch(DBusMatchRule(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded")) {
            [weak self] in self?.interfacesAdded($0)
        }
        bus.addMatch(DBusMatchRule(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved")) {
            [weak self] in self?.interfacesRemoved($0)
        }
        bus.addMatch(
            DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", pathPrefix: "/org/bluez")
        ) { [weak self] in self?.propertiesChanged($0) }
        bus.addMatch(
            DBusMatchRule(interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: Self.service)
        ) { [weak self] signal in
            guard let self else { return }
            let owners = signal.arguments.dropFirst().map { $0.string ?? "" }
            if owners.first?.isEmpty == false {
                objects.withLock { $0.removeAll() }
                notify(.bluezRunning(false))
            }
            if owners.last?.isEmpty == false {
                // Reload off the D-Bus thread: the reply arrives on it.
                Thread.detachNewThread { try? self.reload() }
            }
        }
        try reload()
    }

    /// Replaces the mirror with `GetManagedObjects`.
    public func reload() throws(BlueZError) {
        let reply = try call("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        var loaded: [String: Interfaces] = [:]
        for (path, interfaces) in reply.first?.dictionary ?? [:] {
            loaded[path] = Self.interfaces(interfaces)
        }
        objects.withLock { $0 = loaded }
        notify(.bluezRunning(true))
    }

    private static func interfaces(_ value: DBusValue) -> Interfaces {
        (value.dictionary ?? [:]).mapValues { ($0.dictionary ?? [:]).mapValues(\.unwrapped) }
    }

    /// A blocking call to BlueZ; errors classified. Never call it on the D-Bus thread.
    @discardableResult
    public func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) throws(BlueZError) -> [DBusValue] {
        do {
            return try bus.callBlocking(
                destination: Self.service, path: path, interface: interface, member: member, arguments: arguments,
                timeout: timeout)
        } catch {
            throw BlueZError(error)
        }
    }

    /// Sets a property (`org.freedesktop.DBus.Properties.Set`).
    public func set(_ path: String, _ interface: String, _ name: String, _ value: DBusValue) throws(BlueZError) {
        try call(path, "org.freedesktop.DBus.Properties", "Set", [.string(interface), .string(name), .variant(value)])
    }

    /// One object's interface properties, if the object has that interface.
    public func properties(_ path: String, _ interface: String) -> Properties? {
        objects.withLock { $0[path]?[interface] }
    }

    /// Paths of the objects with `interface`, below `prefix` when given, sorted.
    public func paths(with interface: String, under prefix: String? = nil) -> [String] {
        objects.withLock { objects in
            objects.compactMap { path, interfaces in
                guard interfaces[interface] != nil else { return nil }
                if let prefix, !path.hasPrefix(prefix + "/") { return nil }
                return path
            }.sorted()
        }
    }

    /// Adds a listener for changes; it runs on the D-Bus thread, so it must be quick.
    public func addListener(_ listener: @escaping @Sendable (BlueZChange) -> Void) -> Int {
        let id = nextListener.add(1, ordering: .relaxed).newValue
        listeners.withLock { $0[id] = listener }
        return id
    }

    public func removeListener(_ id: Int) {
        listeners.withLock { $0[id] = nil }
        // Let a listener call already under way on the D-Bus thread finish first.
        _ = try? bus.callBlocking(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId", timeout: .seconds(5))
    }

    private func notify(_ change: BlueZChange) {
        for listener in listeners.withLock({ Array($0.values) }) { listener(change) }
    }

    private func interfacesAdded(_ signal: DBusSignal) {
        guard signal.arguments.count >= 2, let path = signal.arguments[0].string, path.hasPrefix("/org/bluez") else { return }
        let added = Self.interfaces(signal.arguments[1])
        objects.withLock { $0[path, default: [:]].merge(added) { $1 } }
        notify(.interfacesAdded(path: path))
    }

    private func interfacesRemoved(_ signal: DBusSignal) {
        guard signal.arguments.count >= 2, let path = signal.arguments[0].string, path.hasPrefix("/org/bluez") else { return }
        let removed = (signal.arguments[1].array ?? []).compactMap(\.string)
        objects.withLock { objects in
            for interface in removed { objects[path]?[interface] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
        }
        notify(.interfacesRemoved(path: path))
    }

    private func propertiesChanged(_ signal: DBusSignal) {
        guard signal.arguments.count >= 2, let interface = signal.arguments[0].string,
            let changed = signal.arguments[1].dictionary
        else { return }
        let invalidated = signal.arguments.count > 2 ? (signal.arguments[2].array ?? []).compactMap(\.string) : []
        let values = changed.mapValues(\.unwrapped)
        // A notified characteristic value goes to the listeners only: nobody reads it from the
        // mirror, and writing it there on every notification costs a dictionary update each.
        let mirrored = interface == SensorLinks.characteristicInterface ? values.filter { $0.key != "Value" } : values
        if !mirrored.isEmpty || !invalidated.isEmpty {
            objects.withLock { objects in
                guard objects[signal.path]?[interface] != nil else { return }
                for (name, value) in mirrored { objects[signal.path]![interface]![name] = value }
                for name in invalidated { objects[signal.path]![interface]![name] = nil }
            }
        }
        notify(.propertiesChanged(path: signal.path, interface: interface, changed: values))
    }
}
