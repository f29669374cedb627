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
