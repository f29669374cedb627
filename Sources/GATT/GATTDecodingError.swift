/// Why a characteristic value could not be decoded: which field, where, and what was wrong.
///
/// Decoders never trap and never read past the payload; every failure is one of these.
public struct GATTDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The payload ends before a field that the flags say is present is complete.
        case truncated
        /// The bytes are all there but contradict the specification (a value out of range,
        /// flags that cannot hold together).
        case malformed
    }

    public let kind: Kind
    /// The field that could not be read.
    public let field: GATTField
    /// Byte offset of that field from the start of the payload.
    public let offset: Int
    /// What was wrong, for people: "needs 2 bytes, 1 left".
    public let detail: String

    public init(kind: Kind, field: GATTField, offset: Int, detail: String) {
        self.kind = kind
        self.field = field
        self.offset = offset
        self.detail = detail
    }

    public static func truncated(_ field: GATTField, at offset: Int, needs: Int, available: Int) -> GATTDecodingError {
        GATTDecodingError(
            kind: .truncated, field: field, offset: offset,
            detail: "needs \(needs) byte\(needs == 1 ? "" : "s"), \(available) left")
    }

    public static func malformed(_ field: GATTField, at offset: Int, _ detail: String) -> GATTDecodingError {
        GATTDecodingError(kind: .malformed, field: field, offset: offset, detail: detail)
    }

    public var description: String { "\(kind.rawValue) \(field.rawValue) at byte \(offset): \(detail)" }
}
