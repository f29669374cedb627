import SensorCore
import Testing

@Suite struct JSONValueTests {
    @Test func keepsKeyOrderAndPrintsIntegersWithoutFraction() {
        let value: JSONValue = .object(["uuid": "2a37", "heartRate": 72, "rr": [0.75, 1], "ok": true, "none": nil])
        #expect(value.serialized == #"{"uuid":"2a37","heartRate":72,"rr":[0.75,1],"ok":true,"none":null}"#)
    }

    @Test func escapesStrings() {
        #expect(JSONValue.string("a\"b\\c\nd\u{01}é").serialized == #""a\"b\\c\nd\u0001é""#)
    }

    @Test func nonFiniteNumbersPrintAsNull() {
        #expect(JSONValue.number(.nan).serialized == "null")
        #expect(JSONValue.number(-.infinity).serialized == "null")
    }

    @Test func parsesWhatItWrites() throws {
        let text = #"{"a":[1,-2.5,3e2,{"b":null}],"c":"x\u00e9\ud83d\ude00\/","d":false}"#
        let value = try JSONValue(parsing: text)
        #expect(value["a"]?.arrayValue?.map(\.doubleValue) == [1, -2.5, 300, nil])
        #expect(value["c"]?.stringValue == "xé😀/")
        #expect(value["d"]?.boolValue == false)
        #expect(try JSONValue(parsing: value.serialized) == value)
        #expect(value.objectValue?.keys == ["a", "c", "d"])
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"abc", "\"\\x\"", "\"\\ud800\"", "[1] 2", "{\"a\":1,}",
        "\"tab\there\"",
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) { try JSONValue(parsing: fine) }
    }

    @Test func integerValueOnlyForIntegralNumbers() {
        #expect(JSONValue.number(4_294_967_295).integerValue == 4_294_967_295)
        #expect(JSONValue.number(1.5).integerValue == nil)
        #expect(JSONValue.string("1").integerValue == nil)
    }
}

@Suite struct HexTests {
    @Test func decodesWithSeparatorsAndPrefix() throws {
        #expect(try Hex.decode("16480003") == [0x16, 0x48, 0x00, 0x03])
        #expect(try Hex.decode("16 48:00-03") == [0x16, 0x48, 0x00, 0x03])
        #expect(try Hex.decode("0xABcd") == [0xAB, 0xCD])
        #expect(try Hex.decode("") == [])
    }

    @Test func rejectsBadHex() {
        #expect(throws: Hex.Error.oddLength(digits: 3)) { try Hex.decode("abc") }
        #expect(throws: Hex.Error.invalidCharacter("g", position: 1)) { try Hex.decode("1g") }
        #expect(throws: Hex.Error.self) { try Hex.decode("1 6") }  // a separator inside a byte
    }

    @Test func encodesLowerCase() {
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
    }
}

@Suite struct SampleAndUnitTests {
    @Test func sampleIsSmallAndBitwiseCopyable() {
        #expect(MemoryLayout<Sample>.size <= 32)
        func requiresBitwiseCopyable<T: BitwiseCopyable>(_: T.Type) -> Bool { true }
        #expect(requiresBitwiseCopyable(Sample.self))
    }

    @Test func quantitiesConvertWithinADimension() {
        #expect(Quantity(0.25, .kilowatt).value(in: .watt) == 250)
        #expect(Quantity(36, .kilometrePerHour).value(in: .metrePerSecond) == 10)
        #expect(Quantity(60, .countPerMinute).value(in: .watt) == nil)
        #expect(QuantityUnit(symbol: "bpm") == .countPerMinute)
    }

    @Test func quantityTypeIdentifiers() {
        for type in QuantityType.allCases {
            #expect(QuantityType(identifier: type.identifier) == type)
        }
        #expect(QuantityType(identifier: "heart-rate") == .heartRate)
        #expect(QuantityType(identifier: "power") == .cyclingPower)
        #expect(QuantityType(identifier: "nope") == nil)
    }
}

@Suite struct ISO8601Tests {
    @Test func parsesTheFormsTracesUse() {
        #expect(ISO8601.parse("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601.parse("2026-11-29T07:00:00Z") == 1_795_935_600)
        #expect(ISO8601.parse("2026-11-29T07:00:00.25Z") == 1_795_935_600.25)
        #expect(ISO8601.parse("2026-11-29T08:00:00+01:00") == 1_795_935_600)
        #expect(ISO8601.parse("2026-11-29T02:30:00-04:30") == 1_795_935_600)
        #expect(ISO8601.parse("2024-02-29T00:00:00Z") == 1_709_164_800)
        #expect(ISO8601.parse("1969-12-31T23:59:59Z") == -1)
    }

    @Test(arguments: [
        "", "2026-11-29", "2026-11-29T07:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-29T24:00:00Z",
        "2026-11-29T07:00:00.Z", "2026-11-29T07:00:00Zjunk", "2026-11-29T07:00:00+1:00", "yesterday at noon now",
    ])
    func rejects(_ text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test func formatsAndRoundTrips() {
        #expect(ISO8601.format(1_795_935_600) == "2026-11-29T07:00:00Z")
        #expect(ISO8601.format(1_795_935_600.25) == "2026-11-29T07:00:00.250Z")
        #expect(ISO8601.format(-0.5) == "1969-12-31T23:59:59.500Z")
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let t = Double(Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &rng)) / 1000
            #expect(ISO8601.parse(ISO8601.format(t)) == t)
        }
    }
}

/// Large objects: what the key index must keep exactly as a scan did.
@Suite struct JSONObjectIndexTests {
    @Test func aRepeatedKeyReplacesTheFirstValueInPlaceAtAnySize() throws {
        for count in [3, 16, 17, 100_000] {
            let keys = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
            let object = try #require(try JSONValue(parsing: "{\(keys),\"k1\":-1,\"k\(count - 1)\":-2}").objectValue)
            #expect(object.pairs.count == count)
            #expect(object.keys.first == "k0" && object.keys.last == "k\(count - 1)")
            #expect(object["k1"] == -1)
            #expect(object["k\(count - 1)"] == -2)
            #expect(object["k0"] == 0)
            #expect(object["k\(count)"] == nil)
            #expect(object.pairs[1].value == -1)
        }
    }

    @Test func settingAndRemovingKeysAcrossTheIndexedSize() {
        var object = JSONObject()
        for index in 0..<40 { object["k\(index)"] = .number(Double(index)) }
        object["k20"] = nil
        object["k3"] = "three"
        #expect(object.keys == (0..<40).filter { $0 != 20 }.map { "k\($0)" })
        #expect(object["k21"] == 21 && object["k20"] == nil && object["k3"] == "three")
        // Removing down to a scanned size, then growing past it again.
        for index in 0..<30 where index != 20 { object["k\(index)"] = nil }
        #expect(object.keys == (30..<40).map { "k\($0)" })
        for index in 0..<10 { object.append("a\(index)", .bool(true)) }
        #expect(object.pairs.count == 20)
        #expect(object["k39"] == 39 && object["a9"] == true && object["k0"] == nil)
        // An appended duplicate is kept, and the subscript finds the first.
        object.append("k30", "again")
        #expect(object["k30"] == 30 && object.pairs.count == 21)
        #expect(object == JSONObject(pairs: object.pairs))
    }
}

extension JSONObject {
    /// An object built by appending `pairs` in order (no index until it grows past the scanned size).
    init(pairs: [(key: String, value: JSONValue)]) {
        self.init()
        for pair in pairs { append(pair.key, pair.value) }
    }
}
