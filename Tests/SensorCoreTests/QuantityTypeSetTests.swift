import SensorCore
import Testing

struct QuantityTypeSetTests {
    @Test func theSetAgreesWithASetOfEveryType() {
        // Every subset of the types: insert, contains and isEmpty as Set<QuantityType> has them.
        let types = QuantityType.allCases
        for mask in 0 ..< (1 << types.count) {
            let chosen = types.indices.filter { mask & (1 << $0) != 0 }.map { types[$0] }
            var set = QuantityTypeSet()
            for type in chosen { set.insert(type) }
            #expect(set.isEmpty == chosen.isEmpty)
            for type in types { #expect(set.contains(type) == chosen.contains(type)) }
        }
        let literal: QuantityTypeSet = [.cyclingPower, .cyclingSpeed]
        #expect(literal.contains(.cyclingSpeed) && !literal.contains(.heartRate))
    }

    @Test func theMapKeepsOneValuePerType() {
        var map = QuantityTypeMap<Int>()
        for type in QuantityType.allCases { #expect(map[type] == nil) }
        for type in QuantityType.allCases { map[type] = Int(type.rawValue) * 10 }
        for type in QuantityType.allCases { #expect(map[type] == Int(type.rawValue) * 10) }
        map[.heartRate] = nil
        #expect(map[.heartRate] == nil && map[.cyclingPower] == 20)
    }
}
