public import DBus

/// An `org.bluez.Agent1` for "just works" bonding (BlueZ doc/org.bluez.Agent.rst): capability
/// `NoInputNoOutput`, since straps and power meters have neither display nor keys. Exported on
/// this process's bus connection and registered with `org.bluez.AgentManager1` as the default
/// agent while `pair` runs; `unregister` takes it away (BlueZ also drops it when the connection
/// closes).
///
/// It accepts requests for the one device being paired, from BlueZ (the owner of `org.bluez`
/// when it registered), and refuses everything else with `org.bluez.Error.Rejected`.
public final class PairingAgent: Sendable {
    public static let path = "/org/sensorbridge/agent"
    public static let interface = "org.bluez.Agent1"
    public static let managerInterface = "org.bluez.AgentManager1"
    public static let managerPath = "/org/bluez"
    public static let capability = "NoInputNoOutput"

    public let client: BlueZClient

    /// Exports the agent and registers it as BlueZ's default agent, accepting `device` (a device
    /// object path).
    public init(client: BlueZClient, device: String) throws(BlueZError) {
        self.client = client
        let owner: String
        do {
            owner =
                try client.bus.callBlocking(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetNameOwner", arguments: [.string(BlueZClient.service)], timeout: .seconds(5)
                ).first?.string ?? ""
            try client.bus.export(Self.path) { Self.answer($0, device: device, bluez: owner) }
        } catch {
            throw BlueZError(error)
        }
        do {
            try client.call(Self.managerPath, Self.managerInterface, "RegisterAgent", [.objectPath(Self.path), .string(Self.capability)])
            try client.call(Self.managerPath, Self.managerInterface, "RequestDefaultAgent", [.objectPath(Self.path)])
        } catch {
            unregister()
            throw error
        }
    }

    /// Unregisters from BlueZ and stops serving the agent's path.
    public func unregister() {
        _ = try? client.call(Self.managerPath, Self.managerInterface, "UnregisterAgent", [.objectPath(Self.path)], timeout: .seconds(5))
        client.bus.unexport(Self.path)
    }

    /// The agent's answer to one call: pure, so tests can ask it directly.
    ///
    /// - `RequestAuthorization(o)`, `RequestConfirmation(o, u)`, `AuthorizeService(o, s)`: accepted
    ///   for `device`, rejected for any other device.
    /// - `RequestPinCode`, `RequestPasskey`: rejected (a sensor has no keys; BlueZ does not ask a
    ///   NoInputNoOutput agent for them). `DisplayPinCode`, `DisplayPasskey`: nothing to show.
    /// - `Release`, `Cancel`: acknowledged.
    /// - A caller other than `bluez` (the owner of `org.bluez`): rejected.
    public static func answer(_ call: DBusMethodCall, device: String, bluez: String) -> Result<[DBusValue], DBusError> {
        guard call.interface == interface else {
            return .failure(DBusError(.unknownMethod, "\(call.interface).\(call.member) is not an agent method"))
        }
        guard call.sender == bluez else {
            return .failure(DBusError(.bluezRejected, "only BlueZ may talk to this agent"))
        }
        switch call.member {
        case "Release", "Cancel", "DisplayPinCode", "DisplayPasskey":
            return .success([])
        case "RequestAuthorization", "RequestConfirmation", "AuthorizeService":
            guard call.arguments.first?.string == device else {
                return .failure(DBusError(.bluezRejected, "sensorbridge pairs only \(device)"))
            }
            return .success([])
        case "RequestPinCode", "RequestPasskey":
            return .failure(DBusError(.bluezRejected, "a sensor has no keys; pairing uses \"just works\""))
        default:
            return .failure(DBusError(.unknownMethod, "no agent method \(call.member)"))
        }
    }
}
