/// A one-octet enumeration from the GATT Specification Supplement (a sensor's location): the
/// assigned values in order from 0, their lowerCamelCase names, and `reserved(value)` for values
/// the specification keeps for future use, so that a newer sensor still decodes.
public protocol AssignedValue: Sendable, Hashable {
    /// The assigned cases, the one for value `n` at index `n`.
    static var assigned: [Self] { get }
    /// Their names, in the same order.
    static var names: [String] { get }
    /// The case for a reserved value.
    static func reserved(_ value: UInt8) -> Self
    /// The reserved value, when this is one.
    var reservedValue: UInt8? { get }
}

extension AssignedValue {
    public init(rawValue: UInt8) {
        self = Int(rawValue) < Self.assigned.count ? Self.assigned[Int(rawValue)] : .reserved(rawValue)
    }

    public var rawValue: UInt8 {
        reservedValue ?? UInt8(Self.assigned.firstIndex(of: self) ?? 0)
    }

    /// The lowerCamelCase name (`leftCrank`), or `reserved(17)`.
    public var name: String {
        if let value = reservedValue { return "reserved(\(value))" }
        return Self.names[Int(rawValue)]
    }
}
