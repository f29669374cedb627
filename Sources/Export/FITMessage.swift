/// One FIT data message being built: its global message number, the fields added so far (which
/// make its definition) and their values, little-endian (FIT Protocol, "Data Messages").
///
/// Values that do not exist, or that the field's base type cannot hold, are written as the base
/// type's invalid value, never as 0.
struct FITMessage: Sendable {
    /// One field of a definition message: field definition number, size in bytes, base type.
    struct Field: Sendable, Hashable {
        var number: UInt8
        var size: UInt8
        var baseType: FITBaseType
    }

    /// One developer field of a definition message: its number in the `field_description`, size
    /// in bytes, and the `developer_data_index` of the application that describes it.
    struct DeveloperField: Sendable, Hashable {
        var number: UInt8
        var size: UInt8
        var developerDataIndex: UInt8
    }

    /// What a definition message says: the global message number, the fields in order, then the
    /// developer fields.
    struct Definition: Sendable, Hashable {
        var globalNumber: UInt16
        var fields: [Field]
        var developerFields: [DeveloperField] = []
    }

    private(set) var definition: Definition
    /// The field values in field order, then the developer fields' values, as a data message carries them.
    var payload: [UInt8] { fieldBytes + developerBytes }
    private var fieldBytes: [UInt8] = []
    private var developerBytes: [UInt8] = []

    init(_ globalNumber: UInt16) {
        definition = Definition(globalNumber: globalNumber, fields: [])
    }

    /// Adds a developer field (described by a `field_description` with this number) of an integer
    /// base type; nil, or a value out of the type's range, is written invalid.
    mutating func addDeveloper(_ number: UInt8, _ type: FITBaseType, _ value: Int64?, developerDataIndex: UInt8 = 0) {
        definition.developerFields.append(
            DeveloperField(number: number, size: UInt8(type.size), developerDataIndex: developerDataIndex))
        developerBytes += Self.bytes(value, type)
    }

    /// Adds an integer field; nil, or a value outside the type's valid range, is written invalid.
    mutating func add(_ number: UInt8, _ type: FITBaseType, _ value: Int64?) {
        definition.fields.append(Field(number: number, size: UInt8(type.size), baseType: type))
        append(value, type)
    }

    mutating func add(_ number: UInt8, _ type: FITBaseType, _ value: Int?) {
        add(number, type, value.map(Int64.init))
    }

    /// Adds a field stored as `(value + offset) × scale` rounded to the nearest integer (the
    /// profile's scale and offset); nil, NaN, infinity and values out of range are written invalid.
    mutating func add(_ number: UInt8, _ type: FITBaseType, _ value: Double?, scale: Double = 1, offset: Double = 0) {
        add(number, type, value.flatMap { Self.stored($0, scale: scale, offset: offset) })
    }

    /// Adds an array field of `values.count` elements (1 to 255 bytes in all); nil elements are invalid.
    mutating func add(_ number: UInt8, _ type: FITBaseType, array values: [Int64?]) {
        precondition(!values.isEmpty && values.count * type.size <= 255, "a FIT field holds 1 to 255 bytes")
        definition.fields.append(Field(number: number, size: UInt8(values.count * type.size), baseType: type))
        for value in values { append(value, type) }
    }

    /// Adds a string field of `size` bytes: UTF-8, cut at a character boundary to leave room for
    /// the terminating NUL, padded with NULs.
    mutating func add(_ number: UInt8, string: String, size: Int) {
        precondition((2...255).contains(size), "a FIT string field holds 2 to 255 bytes")
        definition.fields.append(Field(number: number, size: UInt8(size), baseType: .string))
        var bytes: [UInt8] = []
        for character in string {
            let utf8 = Array(character.utf8)
            guard bytes.count + utf8.count < size else { break }
            bytes += utf8
        }
        fieldBytes += bytes + Array(repeating: 0, count: size - bytes.count)
    }

    /// The integer a scaled field stores, or nil when it is not a number or out of Int64's range.
    static func stored(_ value: Double, scale: Double, offset: Double) -> Int64? {
        let scaled = ((value + offset) * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 0x1p62 else { return nil }
        return Int64(scaled)
    }

    private mutating func append(_ value: Int64?, _ type: FITBaseType) { fieldBytes += Self.bytes(value, type) }

    private static func bytes(_ value: Int64?, _ type: FITBaseType) -> [UInt8] {
        let bits: UInt64 =
            if let value, type.validRange.contains(value) { UInt64(bitPattern: value) } else { type.invalidBits }
        return (0..<type.size).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
    }
}
