/// A JSON value whose objects keep their key order.
///
/// The command line prints keys in a documented order (`uuid` first, then fields in
/// specification order), and the JSONL readers need a small, fast parser; Foundation's
/// `JSONSerialization` does neither on Linux. Numbers are `Double`: every integer a GATT
/// field can hold (up to 2^32) is exact.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value as an exact integer, or nil when it is not a number with an integral value.
    public var integerValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.007_199_254_740_992e15 else { return nil }
        return Int(n)
    }
}

/// A JSON object: key/value pairs in insertion order. Setting an existing key replaces its value in place.
///
/// Finding a key takes constant time: past `indexedCount` pairs the object keeps each key's
/// position in a dictionary, so parsing or building an object of n keys takes time linear in n
/// (a scan per key, as the parser's duplicate-key check once was, makes it quadratic). Smaller
/// objects, all that real traces and outputs hold, are scanned, which is faster at that size.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public private(set) var pairs: [(key: String, value: JSONValue)] = []
    /// The position in `pairs` of each key's first pair; nil while there are at most `indexedCount` pairs.
    private var positions: [String: Int]?

    /// The number of pairs up to which keys are found by scanning `pairs`.
    static let indexedCount = 16

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var keys: [String] { pairs.map(\.key) }
    public var isEmpty: Bool { pairs.isEmpty }

    /// The position of `key`'s first pair.
    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return pairs.firstIndex(where: { $0.key == key })
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { pairs[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue {
                    pairs[index].value = newValue
                } else {
                    pairs.remove(at: index)
                    positions = nil
                    indexIfLarge()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// Appends a pair without looking for an existing key; for builders that know keys are unique.
    /// (A repeated key's later pairs are kept, but the subscript finds the first.)
    public mutating func append(_ key: String, _ value: JSONValue) {
        pairs.append((key, value))
        if positions != nil {
            if positions![key] == nil { positions![key] = pairs.count - 1 }
        } else {
            indexIfLarge()
        }
    }

    /// Builds `positions` once there are more than `indexedCount` pairs.
    private mutating func indexIfLarge() {
        guard positions == nil, pairs.count > Self.indexedCount else { return }
        var positions = [String: Int](minimumCapacity: pairs.count * 2)
        for (index, pair) in pairs.enumerated() where positions[pair.key] == nil { positions[pair.key] = index }
        self.positions = positions
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.key)
            hasher.combine(pair.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Writing

extension JSONValue {
    /// Compact JSON text (no spaces, no newline).
    public var serialized: String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends compact JSON text, UTF-8 encoded, to `out`.
    ///
    /// Integral numbers with magnitude below 2^53 print without a fraction (`72`, not `72.0`);
    /// others print with Swift's shortest round-trip representation. NaN and infinities, which
    /// JSON cannot express, print as `null`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): JSONValue.writeNumber(n, to: &out)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, pair) in object.pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(pair.key, to: &out)
                out.append(UInt8(ascii: ":"))
                pair.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        guard n.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        guard n.rounded() == n && abs(n) < 9.007_199_254_740_992e15 else {
            out.append(contentsOf: n.description.utf8)
            return
        }
        var magnitude = UInt64(abs(n))
        if n < 0 { out.append(UInt8(ascii: "-")) }
        // Digits into a small stack of bytes, most significant last, then reversed out.
        var digits: (UInt64, Int) = (0, 0)  // up to 16 decimal digits, 4 bits each
        repeat {
            digits.0 = digits.0 << 4 | magnitude % 10
            digits.1 += 1
            magnitude /= 10
        } while magnitude > 0
        for _ in 0..<digits.1 {
            out.append(UInt8(ascii: "0") + UInt8(digits.0 & 0xF))
            digits.0 >>= 4
        }
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: s.utf8)  // nothing to escape: one bulk copy
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

// MARK: - Parsing

/// Why a JSON text could not be parsed, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
    /// Nesting deeper than this is refused, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 256

    /// Parses one JSON value; surrounding white space is allowed, anything else after it is an error.
    public init(parsing text: String) throws(JSONParseError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.parseDocument()
    }

    /// Parses one JSON value from UTF-8 bytes.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes)
        self = try parser.parseDocument()
    }

    /// Parses one JSON value from `bytes[range]`, without copying them; error offsets count from
    /// `range.lowerBound`.
    public init(parsing bytes: [UInt8], in range: Range<Int>) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes, range: range)
        do {
            self = try parser.parseDocument()
        } catch {
            throw JSONParseError(message: error.message, offset: error.offset - range.lowerBound)
        }
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index: Int
    /// One past the last byte to parse.
    let end: Int
    var depth = 0

    init(bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        index = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    func fail(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == end else { throw fail("unexpected text after the JSON value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < end else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        for expected in literal.description.utf8 {
            guard index < end else { throw fail("unexpected end of input") }
            guard bytes[index] == expected else { throw fail("invalid literal") }
            index += 1
        }
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONValue.maximumDepth { throw fail("nesting deeper than \(JSONValue.maximumDepth)") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < end, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            guard index < end else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(object)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < end, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < end else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
                p.index += 1
            }
            return p.index - s
        }
        let intDigits = digits(&self)
        guard intDigits > 0 else { throw fail("invalid number") }
        if intDigits > 1, bytes[index - intDigits] == UInt8(ascii: "0") { throw fail("leading zero in number") }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("invalid number") }
        }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(&self) > 0 else { throw fail("invalid number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text) else { throw JSONParseError(message: "invalid number", offset: start) }
        return value
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let s = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return s
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in string") }
            index += 1
        }
        var utf8: [UInt8] = Array(bytes[start..<index])
        while true {
            guard index < end else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte != UInt8(ascii: "\\") {
                utf8.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < end else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): utf8.append(0x22)
            case UInt8(ascii: "\\"): utf8.append(0x5C)
            case UInt8(ascii: "/"): utf8.append(0x2F)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800..<0xDC00).contains(code) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard end - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw fail("unpaired surrogate") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw fail("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid escape") }
                utf8.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw fail("invalid escape")
            }
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard end - index >= 4 else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
