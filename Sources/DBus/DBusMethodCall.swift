/// A method call to an object this connection exports (`DBusConnection.export`), as its handler
/// receives it.
public struct DBusMethodCall: Sendable {
    /// The caller's unique name (`:1.7`).
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// What an exported object's handler answers: the reply's arguments, or an error reply (its name
/// and message reach the caller, as `org.bluez.Error.Rejected` does from an agent).
public typealias DBusMethodHandler = @Sendable (DBusMethodCall) -> Result<[DBusValue], DBusError>
