/// Writes a FIT file (FIT Protocol): the 14-byte file header with its own CRC, then definition
/// and data messages with normal record headers, then the CRC of everything before it. All
/// values little-endian (architecture 0).
///
/// Messages are given whole (`FITMessage`); the writer assigns local message types 0...15 to
/// their definitions, writing a definition message the first time a layout is seen and again when
/// its local type was taken by another layout (least recently used goes first).
struct FITWriter: Sendable {
    /// Protocol version 2.0 in the header's high and low nibbles.
    static let protocolVersion: UInt8 = 0x20
    /// The FIT profile the messages follow, major × 1000 + minor: 21.218.
    static let profileVersion: UInt16 = 21218
    static let headerSize = 14

    /// The records after the header.
    private var data: [UInt8] = []
    /// The definition held by each local message type.
    private var localDefinitions: [FITMessage.Definition?] = Array(repeating: nil, count: 16)
    private var localTypes: [FITMessage.Definition: Int] = [:]
    /// When each local type was last written, for least-recently-used replacement.
    private var lastUse = Array(repeating: 0, count: 16)
    private var messageCount = 0

    init() {}

    /// Appends `message`, preceded by its definition message when needed.
    mutating func write(_ message: FITMessage) {
        messageCount += 1
        let local: Int
        if let known = localTypes[message.definition] {
            local = known
        } else {
            local = lastUse.indices.min { lastUse[$0] < lastUse[$1] }!
            if let old = localDefinitions[local] { localTypes[old] = nil }
            localDefinitions[local] = message.definition
            localTypes[message.definition] = local
            writeDefinition(message.definition, local: local)
        }
        lastUse[local] = messageCount
        data.append(UInt8(local))  // normal header, data message
        data += message.payload
    }

    /// Definition message: header (bit 6 set; bit 5 when there are developer fields), reserved,
    /// architecture 0 (little-endian), global message number, field count, then number, size and
    /// base type of each field; then, with developer fields, their count and the number, size and
    /// developer data index of each.
    private mutating func writeDefinition(_ definition: FITMessage.Definition, local: Int) {
        let developer = definition.developerFields
        data += [0x40 | (developer.isEmpty ? 0 : 0x20) | UInt8(local), 0, 0]
        data += [UInt8(truncatingIfNeeded: definition.globalNumber), UInt8(definition.globalNumber >> 8)]
        data.append(UInt8(definition.fields.count))
        for field in definition.fields { data += [field.number, field.size, field.baseType.rawValue] }
        guard !developer.isEmpty else { return }
        data.append(UInt8(developer.count))
        for field in developer { data += [field.number, field.size, field.developerDataIndex] }
    }

    /// The file: header, records, file CRC.
    func bytes() -> [UInt8] {
        var file = Self.header(dataSize: UInt32(data.count))
        file.reserveCapacity(file.count + data.count + 2)
        file += data
        let crc = FITCRC.checksum(file)
        file += [UInt8(truncatingIfNeeded: crc), UInt8(crc >> 8)]
        return file
    }

    /// The 14-byte file header: header size, protocol version, profile version (uint16), size of
    /// the records (uint32, without header and file CRC), ".FIT", CRC of bytes 0...11.
    static func header(dataSize: UInt32) -> [UInt8] {
        var header: [UInt8] = [UInt8(headerSize), protocolVersion]
        header += [UInt8(truncatingIfNeeded: profileVersion), UInt8(profileVersion >> 8)]
        header += (0..<4).map { UInt8(truncatingIfNeeded: dataSize >> (8 * $0)) }
        header += Array(".FIT".utf8)
        let crc = FITCRC.checksum(header)
        return header + [UInt8(truncatingIfNeeded: crc), UInt8(crc >> 8)]
    }
}
