public import GATT

/// What the ATT discovery in a capture revealed about one GATT server: its services, the type of
/// each attribute handle (a characteristic value handle maps to the characteristic's UUID), and
/// the Device Name when it was read (Core Specification Vol 3 Part G 4.4-4.7, Part C 12.1).
public struct GATTDatabase: Sendable, Equatable {
    /// A service and the handles it spans.
    public struct Service: Sendable, Equatable {
        public var handles: ClosedRange<UInt16>
        public var uuid: BluetoothUUID
        public var isPrimary: Bool

        public init(handles: ClosedRange<UInt16>, uuid: BluetoothUUID, isPrimary: Bool = true) {
            self.handles = handles
            self.uuid = uuid
            self.isPrimary = isPrimary
        }
    }

    /// Services in the order they were discovered.
    public private(set) var services: [Service] = []
    /// Attribute types by handle.
    public private(set) var attributeTypes: [UInt16: BluetoothUUID] = [:]
    /// The GAP Device Name (0x2A00), when the capture read it.
    public private(set) var name: String?

    /// Attributes kept per database; discovery beyond it is skipped and counted (a real server
    /// has a few hundred at most).
    static let maximumAttributes = 8192

    public init() {}

    /// The characteristic (or other attribute type) at `handle`.
    @inline(__always)
    public func uuid(ofHandle handle: UInt16) -> BluetoothUUID? { attributeTypes[handle] }

    /// The service whose handle range holds `handle`.
    public func service(containing handle: UInt16) -> Service? {
        services.first { $0.handles.contains(handle) }
    }

    /// Records an attribute's type; false when the database is full.
    mutating func setType(_ uuid: BluetoothUUID, at handle: UInt16) -> Bool {
        if attributeTypes[handle] == nil, attributeTypes.count >= Self.maximumAttributes { return false }
        attributeTypes[handle] = uuid
        return true
    }

    /// Records a service (a later discovery of the same start handle replaces it); false when full.
    mutating func addService(_ service: Service) -> Bool {
        if let index = services.firstIndex(where: { $0.handles.lowerBound == service.handles.lowerBound }) {
            services[index] = service
            return true
        }
        guard services.count < Self.maximumAttributes else { return false }
        services.append(service)
        return true
    }

    mutating func setName(_ name: String) { self.name = name }
}
