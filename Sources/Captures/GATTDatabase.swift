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
    /// The type of each attribute handle, in an open-addressing table indexed by the handle's low
    /// bits: a sensor's handles are a few dozen small, mostly consecutive numbers, so a lookup is
    /// one or two probes with no hashing and no data-dependent search.
    private var table = AttributeTable()

    /// The GAP Device Name (0x2A00), when the capture read it.
    public private(set) var name: String?

    /// Attributes kept per database; discovery beyond it is skipped and counted (a real server
    /// has a few hundred at most).
    static let maximumAttributes = 8192

    public init() {}

    /// Attribute types by handle.
    public var attributeTypes: [UInt16: BluetoothUUID] { table.dictionary }

    /// The characteristic (or other attribute type) at `handle`.
    @inline(__always)
    public func uuid(ofHandle handle: UInt16) -> BluetoothUUID? { table[handle] }

    /// The service whose handle range holds `handle`.
    public func service(containing handle: UInt16) -> Service? {
        services.first { $0.handles.contains(handle) }
    }

    /// Records an attribute's type; false when the database is full.
    mutating func setType(_ uuid: BluetoothUUID, at handle: UInt16) -> Bool {
        guard table[handle] != nil || table.count < Self.maximumAttributes else { return false }
        table[handle] = uuid
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

/// Attribute types by handle: open addressing with linear probing, indexed by the handle's low
/// bits, at most half full.
struct AttributeTable: Sendable, Equatable {
    /// `handle + 1` in each used slot, 0 in empty ones.
    private var keys: [UInt32] = []
    private var values: [BluetoothUUID] = []
    private(set) var count = 0

    subscript(handle: UInt16) -> BluetoothUUID? {
        get {
            guard !keys.isEmpty else { return nil }
            let mask = keys.count - 1
            var i = Int(handle) & mask
            while true {
                let key = keys[i]
                if key == UInt32(handle) + 1 { return values[i] }
                if key == 0 { return nil }
                i = (i + 1) & mask
            }
        }
        set {
            guard let newValue else { return }  // types are only ever set or replaced
            if (count + 1) * 2 > keys.count { grow() }
            let mask = keys.count - 1
            var i = Int(handle) & mask
            while keys[i] != 0, keys[i] != UInt32(handle) + 1 { i = (i + 1) & mask }
            if keys[i] == 0 { count += 1 }
            keys[i] = UInt32(handle) + 1
            values[i] = newValue
        }
    }

    var dictionary: [UInt16: BluetoothUUID] {
        var result: [UInt16: BluetoothUUID] = [:]
        for (key, value) in zip(keys, values) where key != 0 { result[UInt16(key - 1)] = value }
        return result
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != 0 }
        let capacity = max(16, keys.count * 2)
        keys = [UInt32](repeating: 0, count: capacity)
        values = [BluetoothUUID](repeating: BluetoothUUID(0), count: capacity)
        count = 0
        for (key, value) in old { self[UInt16(key - 1)] = value }
    }

    static func == (a: AttributeTable, b: AttributeTable) -> Bool { a.dictionary == b.dictionary }
}
