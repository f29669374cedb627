/// A D-Bus error: its name (`org.bluez.Error.NotReady`) and message, from a reply or from libdbus.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A D-Bus error name. The well-known ones have Swift names; any other keeps its string.
    public struct Name: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let accessDenied = Name("org.freedesktop.DBus.Error.AccessDenied")
        public static let serviceUnknown = Name("org.freedesktop.DBus.Error.ServiceUnknown")
        public static let nameHasNoOwner = Name("org.freedesktop.DBus.Error.NameHasNoOwner")
        public static let noReply = Name("org.freedesktop.DBus.Error.NoReply")
        public static let timeout = Name("org.freedesktop.DBus.Error.Timeout")
        public static let noServer = Name("org.freedesktop.DBus.Error.NoServer")
        public static let fileNotFound = Name("org.freedesktop.DBus.Error.FileNotFound")
        public static let disconnected = Name("org.freedesktop.DBus.Error.Disconnected")
        public static let unknownObject = Name("org.freedesktop.DBus.Error.UnknownObject")
        public static let unknownMethod = Name("org.freedesktop.DBus.Error.UnknownMethod")
        public static let invalidArgs = Name("org.freedesktop.DBus.Error.InvalidArgs")
        public static let objectPathInUse = Name("org.freedesktop.DBus.Error.ObjectPathInUse")
        public static let failed = Name("org.freedesktop.DBus.Error.Failed")
        /// A reply whose arguments are not what the caller expected (raised by this binding).
        public static let unexpectedReply = Name("org.sensorbridge.Error.UnexpectedReply")

        public static let bluezNotReady = Name("org.bluez.Error.NotReady")
        public static let bluezInProgress = Name("org.bluez.Error.InProgress")
        public static let bluezFailed = Name("org.bluez.Error.Failed")
        public static let bluezNotPermitted = Name("org.bluez.Error.NotPermitted")
        public static let bluezAlreadyConnected = Name("org.bluez.Error.AlreadyConnected")
        public static let bluezNotConnected = Name("org.bluez.Error.NotConnected")
        public static let bluezAuthenticationFailed = Name("org.bluez.Error.AuthenticationFailed")
        public static let bluezAuthenticationRejected = Name("org.bluez.Error.AuthenticationRejected")
        public static let bluezDoesNotExist = Name("org.bluez.Error.DoesNotExist")
        public static let bluezNotSupported = Name("org.bluez.Error.NotSupported")
        /// What an agent answers to a request it refuses (org.bluez.Agent1).
        public static let bluezRejected = Name("org.bluez.Error.Rejected")
    }

    public var name: Name
    public var message: String

    public init(_ name: Name, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name.rawValue : "\(name.rawValue): \(message)" }
}
