/// A value sent to PostgreSQL: a statement's parameter or a `copyIn` field.
///
/// As a parameter, each travels in text format with its type (`int8`, `float8`, `bool`) so the
/// server converts it as a typed value would be; text goes without a type (the server infers it
/// from where it stands, so text fills a `timestamptz` or `uuid` column too); `bytea` goes in
/// binary format, as its bytes (no escaping, half the size of its hex text).
public enum PostgreSQLValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int64(Int64)
    case double(Double)
    case text(String)
    case bytea([UInt8])

    /// The type's OID in `pg_type` (0: let the server infer it).
    var typeOID: UInt32 {
        switch self {
        case .null, .text: 0
        case .bool: 16  // bool
        case .int64: 20  // int8
        case .double: 701  // float8
        case .bytea: 17  // bytea
        }
    }

    /// The text form PostgreSQL's input functions read; nil for NULL and for bytea (sent as bytes).
    var textForm: String? {
        switch self {
        case .null, .bytea: nil
        case .bool(let value): value ? "t" : "f"
        case .int64(let value): String(value)
        case .double(let value): Self.text(value)
        case .text(let value): value
        }
    }

    /// `float8in`'s spelling of a double: the shortest text that reads back to the same bits, and
    /// `NaN`, `Infinity`, `-Infinity`.
    static func text(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return String(value)
    }
}

extension PostgreSQLValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int64(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}
