import GATT
import Testing

@Suite struct BluetoothUUIDTests {
    @Test func shortAndLongForms() throws {
        let hr = BluetoothUUID(0x2A37)
        #expect(BluetoothUUID("2a37") == hr)
        #expect(BluetoothUUID("0x2A37") == hr)
        #expect(BluetoothUUID("00002a37") == hr)
        #expect(BluetoothUUID("00002A37-0000-1000-8000-00805F9B34FB") == hr)
        #expect(BluetoothUUID("00002a3700001000800000805f9b34fb") == hr)
        #expect(hr.description == "2a37")
        #expect(hr.fullDescription == "00002a37-0000-1000-8000-00805f9b34fb")
        #expect(hr.shortValue == 0x2A37)
    }

    @Test func vendorUUIDsKeepTheirFullForm() throws {
        let text = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
        let uuid = try #require(BluetoothUUID(text))
        #expect(uuid.shortValue == nil)
        #expect(uuid.description == text)
    }

    @Test(arguments: ["", "2a3", "2a37x", "zz37", "00002a37-0000-1000-8000-00805f9b34f", "0000-2a37-0000-1000-8000-00805f9b34fb"])
    func rejectsMalformedText(_ text: String) {
        #expect(BluetoothUUID(text) == nil)
    }
}
