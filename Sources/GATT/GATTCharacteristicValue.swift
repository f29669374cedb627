/// A decoded characteristic value: one type per characteristic, each knowing its UUID.
public protocol GATTCharacteristicValue: Sendable, Hashable {
    /// The characteristic's SIG-assigned UUID.
    static var uuid: BluetoothUUID { get }
    /// Decodes a value as it arrives in a notification or read response.
    init(decoding bytes: [UInt8]) throws(GATTDecodingError)
    /// Bytes after the last field the flags describe. The specification lets later versions
    /// append fields, so these are tolerated and reported, not an error.
    var trailingByteCount: Int { get }
}
