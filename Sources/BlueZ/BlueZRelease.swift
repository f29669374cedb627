/// How a measurement characteristic's notifications are read: through an `AcquireNotify` socket
/// or as `PropertiesChanged` signals of its `Value` after `StartNotify`.
public enum NotifyPath: Sendable, Equatable {
    /// `AcquireNotify` where bluetoothd is known to recover from a link lost while it subscribes
    /// (5.84 and later, `BlueZClient.isAtLeast5_84`), `StartNotify` elsewhere.
    case automatic
    /// `AcquireNotify` wherever a characteristic offers it, whatever the release (`--acquire-notify`).
    case acquire
    /// `StartNotify` only (`--no-acquire-notify`).
    case start
}

extension BlueZClient {
    /// An interface bluetoothd 5.84 and later puts on every LE device object (src/bearer.c,
    /// `btd_bearer_new`; its methods and properties are experimental, the interface is not, so
    /// `GetManagedObjects` lists it, empty, on any bluetoothd).
    public static let leBearerInterface = "org.bluez.Bearer.LE1"

    /// Whether the bluetoothd running is 5.84 or later, as the device object at `path` shows
    /// (`leBearerInterface`). BlueZ reports no version on the bus; this is the release that mends
    /// `AcquireNotify` after a link lost while it subscribes (476ae809a): before it, the
    /// characteristic refuses every later subscription and a `StopNotify` there can crash the
    /// daemon (docs/bluez-behaviours.md §1). A distribution that backported the fix alone still
    /// counts as older: the safe side.
    public func isAtLeast5_84(device path: String) -> Bool {
        properties(path, Self.leBearerInterface) != nil
    }

    /// Whether any device object of `adapter` shows bluetoothd 5.84 or later; false when it knows
    /// no device.
    public func isAtLeast5_84(adapter: String) -> Bool {
        paths(with: Self.leBearerInterface, under: adapter).isEmpty == false
    }
}
