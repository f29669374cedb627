import GATT

/// ATT opcodes and the GATT attribute types discovery uses (Core Specification Vol 3 Part F 3.4.8,
/// Part G 3; Assigned Numbers 3.5, 3.8).
enum ATTOpcode {
    static let errorResponse: UInt8 = 0x01
    static let exchangeMTURequest: UInt8 = 0x02
    static let exchangeMTUResponse: UInt8 = 0x03
    static let findInformationRequest: UInt8 = 0x04
    static let findInformationResponse: UInt8 = 0x05
    static let findByTypeValueRequest: UInt8 = 0x06
    static let findByTypeValueResponse: UInt8 = 0x07
    static let readByTypeRequest: UInt8 = 0x08
    static let readByTypeResponse: UInt8 = 0x09
    static let readRequest: UInt8 = 0x0A
    static let readResponse: UInt8 = 0x0B
    static let readByGroupTypeRequest: UInt8 = 0x10
    static let readByGroupTypeResponse: UInt8 = 0x11
    static let writeRequest: UInt8 = 0x12
    static let writeResponse: UInt8 = 0x13
    static let handleValueNotification: UInt8 = 0x1B
    static let handleValueIndication: UInt8 = 0x1D
    static let multipleHandleValueNotification: UInt8 = 0x23

    /// Requests that a response answers (opcode + 1) or an Error Response: Exchange MTU, Find
    /// Information, Find By Type Value, Read By Type, Read, Read Blob, Read Multiple, Read By Group
    /// Type, Write, Prepare Write, Execute Write, Read Multiple Variable.
    static let requests: Set<UInt8> = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20]

    static let primaryService = BluetoothUUID(0x2800)
    static let secondaryService = BluetoothUUID(0x2801)
    static let characteristic = BluetoothUUID(0x2803)
    static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    static let deviceName = BluetoothUUID(0x2A00)
    static let genericAccessService = BluetoothUUID(0x1800)
}

/// An ATT request awaiting its response: what a response needs to be understood (a Read By Type
/// response does not say which type was asked for).
struct ATTRequest: Equatable {
    var opcode: UInt8
    /// The type asked for: Read By Type, Read By Group Type, Find By Type Value.
    var attributeType: BluetoothUUID?
    /// The value searched for by Find By Type Value, when it is a UUID (a service discovery).
    var value: BluetoothUUID?
    /// The handle a Read Request reads.
    var handle: UInt16 = 0

    /// Parses the request PDU `b[r]` (opcode first); nil when it is too short or the wrong length.
    init?(_ b: [UInt8], _ r: Range<Int>) {
        let p = r.lowerBound + 1
        let n = r.count
        opcode = b[r.lowerBound]
        switch opcode {
        case ATTOpcode.readByTypeRequest, ATTOpcode.readByGroupTypeRequest:
            // Start handle, end handle, a 16- or 128-bit type.
            guard n == 7 || n == 21 else { return nil }
            attributeType = HCICaptureParser.uuid(b, p + 4, n - 5)
        case ATTOpcode.findByTypeValueRequest:
            // Start handle, end handle, a 16-bit type, the value.
            guard n >= 7 else { return nil }
            attributeType = HCICaptureParser.uuid(b, p + 4, 2)
            value = HCICaptureParser.uuid(b, p + 6, n - 7)
        case ATTOpcode.readRequest:
            guard n >= 3 else { return nil }
            handle = HCICaptureParser.uint16(b, p)
        default:
            break
        }
    }
}
