import SensorCore
import Testing

struct SensorIDTests {
    @Test func devicesAreNumberedFromOneInTheirKeysSortedOrder() {
        #expect(SensorID.numbering(["power", "hr", "csc"]) == ["csc": SensorID(1), "hr": SensorID(2), "power": SensorID(3)])
        #expect(SensorID.numbering([String]()).isEmpty)
    }
}
