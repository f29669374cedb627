/// A FIT base type (FIT Protocol, "Base Types"): the byte a definition message gives each field,
/// its size, and the value that marks a field as absent.
///
/// The byte's bit 7 says the type is wider than one byte (endian ability); the low bits number it.
enum FITBaseType: UInt8, Sendable, CaseIterable {
    case `enum` = 0x00
    case sint8 = 0x01
    case uint8 = 0x02
    case sint16 = 0x83
    case uint16 = 0x84
    case sint32 = 0x85
    case uint32 = 0x86
    /// NUL-terminated UTF-8; the field's size is fixed by the definition.
    case string = 0x07
    case uint8z = 0x0A
    case uint16z = 0x8B
    case uint32z = 0x8C
    case byte = 0x0D

    /// Bytes per element.
    var size: Int {
        switch self {
        case .enum, .sint8, .uint8, .string, .uint8z, .byte: 1
        case .sint16, .uint16, .uint16z: 2
        case .sint32, .uint32, .uint32z: 4
        }
    }

    /// The bit pattern meaning "no value": all ones for unsigned types and `byte`, the largest
    /// positive value for signed types, zero for the `z` types and strings.
    var invalidBits: UInt64 {
        switch self {
        case .enum, .uint8, .byte: 0xFF
        case .sint8: 0x7F
        case .sint16: 0x7FFF
        case .uint16: 0xFFFF
        case .sint32: 0x7FFF_FFFF
        case .uint32: 0xFFFF_FFFF
        case .string, .uint8z, .uint16z, .uint32z: 0
        }
    }

    /// The values a field of this type can hold: the type's range without its invalid value.
    var validRange: ClosedRange<Int64> {
        switch self {
        case .enum, .uint8, .byte: 0...0xFE
        case .sint8: -0x80...0x7E
        case .sint16: -0x8000...0x7FFE
        case .uint16: 0...0xFFFE
        case .sint32: -0x8000_0000...0x7FFF_FFFE
        case .uint32: 0...0xFFFF_FFFE
        case .uint8z: 1...0xFF
        case .uint16z: 1...0xFFFF
        case .uint32z: 1...0xFFFF_FFFF
        case .string: 1...0xFF
        }
    }
}
