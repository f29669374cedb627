public import GATT

/// The attribute table of a GATT server that `HCITrafficWriter` discovers: the GAP service with
/// the Device Name, then one service per group of characteristics, each characteristic with its
/// declaration, value and (when it notifies) Client Characteristic Configuration descriptor
/// (Core Specification Vol 3 Part G 3.1-3.3).
public struct GATTServerLayout: Sendable, Equatable {
    public struct Characteristic: Sendable, Equatable {
        public var uuid: BluetoothUUID
        /// Characteristic properties (Vol 3 Part G 3.3.1.1): 0x02 read, 0x10 notify, 0x20 indicate.
        public var properties: UInt8
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        /// The CCCD's handle, for characteristics that notify or indicate.
        public var configurationHandle: UInt16?
    }

    public struct Service: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var handles: ClosedRange<UInt16>
        public var characteristics: [Characteristic]
    }

    /// Services in handle order, the GAP service (0x1800) first.
    public private(set) var services: [Service] = []
    /// The Device Name (0x2A00) value.
    public var name: String?

    /// The vendor service that holds characteristics of no known SIG service.
    public static let vendorService = BluetoothUUID("5e2b0001-8d1f-4c3a-9b6e-0a7c5d2e4f10")!

    /// Lays out `characteristics` (all notifying) in the SIG services they belong to (Heart Rate
    /// 0x180D, Cycling Power 0x1818, Cycling Speed and Cadence 0x1816, Battery 0x180F; others in
    /// `vendorService`), in order of first appearance. The GAP service is at 0x0001 (the Device
    /// Name value at 0x0003); the others start at `firstHandle` and then at multiples of 16.
    public init(characteristics: [BluetoothUUID], name: String? = nil, firstHandle: UInt16 = 0x0010) {
        self.name = name
        services.append(
            Service(
                uuid: ATTOpcode.genericAccessService, handles: 0x0001...0x0003,
                characteristics: [
                    Characteristic(
                        uuid: ATTOpcode.deviceName, properties: 0x02, declarationHandle: 0x0002, valueHandle: 0x0003,
                        configurationHandle: nil)
                ]))
        var groups: [(service: BluetoothUUID, members: [BluetoothUUID])] = []
        for uuid in characteristics {
            let service = Self.service(of: uuid)
            if let index = groups.firstIndex(where: { $0.service == service }) {
                if !groups[index].members.contains(uuid) { groups[index].members.append(uuid) }
            } else {
                groups.append((service, [uuid]))
            }
        }
        // Handles are 16-bit: characteristics that no longer fit are left out (valueHandle is nil).
        var next = max(0x0004, Int(firstHandle))
        for group in groups where next + 3 <= 0xFFFF {
            let start = next
            var handle = start
            var members: [Characteristic] = []
            for uuid in group.members where handle + 3 <= 0xFFFF {
                members.append(
                    Characteristic(
                        uuid: uuid, properties: 0x10, declarationHandle: UInt16(handle + 1),
                        valueHandle: UInt16(handle + 2),
                        configurationHandle: UInt16(handle + 3)))
                handle += 3
            }
            services.append(
                Service(uuid: group.service, handles: UInt16(start)...UInt16(handle), characteristics: members))
            next = (handle / 16 + 1) * 16
        }
    }

    /// The value handle of characteristic `uuid`.
    public func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        for service in services {
            if let c = service.characteristics.first(where: { $0.uuid == uuid }) { return c.valueHandle }
        }
        return nil
    }

    /// The SIG service a characteristic belongs to (Assigned Numbers 3.4, 3.8), else `vendorService`.
    static func service(of characteristic: BluetoothUUID) -> BluetoothUUID {
        switch characteristic.shortValue {
        case 0x2A37, 0x2A38, 0x2A39: .heartRateService
        case 0x2A63, 0x2A64, 0x2A65, 0x2A66, 0x2A5D: .cyclingPowerService
        case 0x2A5B, 0x2A5C: .cyclingSpeedAndCadenceService
        case 0x2A19: .batteryService
        default: vendorService
        }
    }
}
