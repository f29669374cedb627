import Foundation
import GATT
import SensorBridge
import SensorCore
import SensorTestSupport
import Session
import Testing
import Outputs

/// `record --relay` and `sensorbridge relay` on the mock BlueZ, which plays the centrals: it reads
/// the registered application through its ObjectManager as bluetoothd does, reads the read
/// characteristics, connects `--centrals N` centrals and subscribes each as bluetoothd 5.70 and
/// later do (`AcquireNotify` per central, or `StartNotify` with `--relay-start-notify`), and reads
/// the advertisement; every value a central then receives it prints as "relayed CENTRAL UUID HEX".
extension BridgeOutTests {
    @Suite(.enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
    struct RelayTests {
        /// The relayed values the mock's central `central` received, as "UUID HEX", in order.
        static func relayed(_ mock: MockBlueZ, central: Int) -> [String] {
            mock.output.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ")
                guard words.count == 4, words[0] == "relayed", words[1] == "\(central)" else { return nil }
                return "\(words[2]) \(words[3])"
            }
        }

        /// "UUID HEX" lines by characteristic, each in its order: the heart rate and the power are two
        /// streams (two sockets, read by bluetoothd as each becomes readable), each kept in order.
        static func byCharacteristic(_ lines: [String]) -> [Substring: [String]] {
            Dictionary(grouping: lines) { $0.prefix(4) }
        }

        static func uuid(_ line: String) -> BluetoothUUID { BluetoothUUID(UInt32(line.prefix(4), radix: 16)!) }

        static func bytes(_ line: String) -> [UInt8] {
            let hex = Array(line.split(separator: " ")[1].utf8)
            return stride(from: 0, to: hex.count - 1, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! }
        }

        /// Two centrals subscribed, through sockets (`AcquireNotify`, offered from bluetoothd 5.84)
        /// or through the bus (`StartNotify`: bluetoothd's fallback, and what the relay offers before
        /// 5.84): each gets every value recorded once, in order on each characteristic, byte for
        /// byte, and decoded with the project's decoders they are the recording's measurements. On
        /// 5.72 a value on any one socket would reach both centrals, so that sockets would give each
        /// every value twice.
        @Test(.timeLimit(.minutes(10)), arguments: [("5.66", false), ("5.72", false), ("5.84", false), ("5.84", true)])
        func everyValueRecordedIsRelayedInOrderToEveryCentral(bluez: String, startNotify: Bool) throws {
            let source = try BlueZCommandTests.trace(lines: 200)
            let mock = try MockBlueZ(
                trace: source, bluez: bluez, extra: ["--centrals", "2"] + (startNotify ? ["--relay-start-notify"] : []))
            defer { mock.stop() }
            let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: recorded) }
            let run = try BlueZCommandTests.record(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Bike 2", "--trace", recorded.path] + BlueZCommandTests.zones)
            #expect(run.status == .success, "\(run.errors)")
            #expect(mock.printed("application registered: 180d 1818 (5 characteristics)"), "\(mock.output)")
            #expect(mock.printed("relay subscribed 2a37 2") && mock.printed("relay subscribed 2a63 2"), "\(mock.output)")
            #expect(mock.printed("relay read 2a38 01"), "\(mock.output)")
            #expect(mock.output.contains("relay socket 2a37 1") == (bluez == "5.84" && !startNotify), "\(mock.output)")
            #expect(mock.printed("advertising Bike 2: 180d 1818 (discoverable)"), "\(mock.output)")
            #expect(mock.printed("application unregistered") && mock.printed("advertisement unregistered"), "\(mock.output)")

            // What record received (its trace), as the centrals should have it.
            let received = try BlueZCommandTests.notifications(recorded).map { line in
                let words = line.split(separator: " ")
                return "\(words[1]) \(words[2])"
            }
            #expect(received.count == run.played)
            let expected = Self.byCharacteristic(received)
            #expect(expected.keys.sorted() == ["2a37", "2a63"])
            for central in 0..<2 {
                let relayed = Self.relayed(mock, central: central)
                #expect(Self.byCharacteristic(relayed) == expected, "central \(central): \(relayed.count) of \(received.count) relayed")
            }
            // Decoded with the project's decoders, each relayed value is the recorded measurement.
            let relayed = Self.byCharacteristic(Self.relayed(mock, central: 1))
            for (uuid, recorded) in expected {
                for (relayed, recorded) in zip(relayed[uuid] ?? [], recorded) {
                    let (uuid, relayedBytes, recordedBytes) = (Self.uuid(relayed), Self.bytes(relayed), Self.bytes(recorded))
                    #expect(try GATTValue.decode(uuid: uuid, bytes: relayedBytes) == GATTValue.decode(uuid: uuid, bytes: recordedBytes))
                    #expect(try GATTValue.decode(uuid: uuid, bytes: relayedBytes) != nil, "\(relayed)")
                }
            }
            #expect(run.errors.contains("relay: advertising as 'Bike 2'"), "\(run.errors)")
            #expect(run.errors.contains("relay: 2 subscribed to Heart Rate Measurement (2A37)"), "\(run.errors)")
        }

        /// Apps connecting and leaving are logged with their subscriptions; one that leaves stops
        /// getting values while the other goes on. Through the bus, bluetoothd says StopNotify only
        /// when the last one leaves, and then nothing is subscribed.
        @Test(.timeLimit(.minutes(10))) func centralsConnectingAndLeavingAreLogged() throws {
            let source = try BlueZCommandTests.trace(lines: 120)
            let received = try BlueZCommandTests.notifications(source).map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
            let mock = try MockBlueZ(trace: source, bluez: "5.84", extra: ["--centrals", "2", "--central-leaves-after", "20"])
            defer { mock.stop() }
            // Stopped once the central has left: its leaving (the socket closed, then the device's
            // Connected false) is on the way before the relay's UnregisterAdvertisement, whose reply
            // comes after it.
            var centralLeft = false
            let run = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box"]) {
                centralLeft = mock.printed("central 1 left", timeout: .seconds(60))
                return 0
            }
            #expect(run.status == .success, "\(run.errors)")
            #expect(centralLeft, "\(mock.output)")
            for line in [
                "relay: C0:FF:EE:00:00:00 connected", "relay: C0:FF:EE:00:00:01 connected", "relay: 2 subscribed to Heart Rate Measurement (2A37)",
                "relay: 2 subscribed to Cycling Power Measurement (2A63)", "relay: C0:FF:EE:00:00:01 left",
                "relay: 1 subscribed to Heart Rate Measurement (2A37)", "relay: 1 subscribed to Cycling Power Measurement (2A63)",
            ] {
                #expect(run.errors.contains(line), "\(line): \(run.errors)")
            }
            #expect(!run.errors.contains("relay: C0:FF:EE:00:00:00 left"), "\(run.errors)")
            #expect(Self.byCharacteristic(Self.relayed(mock, central: 0)) == Self.byCharacteristic(received))
            // The one that left got its first 20, each characteristic's in order, and nothing after.
            let left = Self.relayed(mock, central: 1)
            #expect(left.count == 20)
            for (uuid, values) in Self.byCharacteristic(left) {
                #expect(Array(Self.byCharacteristic(received)[uuid, default: []].prefix(values.count)) == values)
            }

            // Through the bus, one app: when it leaves, StopNotify.
            let alone = try MockBlueZ(trace: source, extra: ["--relay-start-notify", "--central-leaves-after", "10"])
            defer { alone.stop() }
            var aloneLeft = false
            let bus = try BlueZCommandTests.record(alone, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box"]) {
                aloneLeft = alone.printed("central 0 left", timeout: .seconds(60))
                return 0
            }
            #expect(bus.status == .success, "\(bus.errors)")
            #expect(aloneLeft, "\(alone.output)")
            #expect(Self.relayed(alone, central: 0).count == 10)
            #expect(bus.errors.contains("relay: C0:FF:EE:00:00:00 left"), "\(bus.errors)")
            #expect(bus.errors.contains("relay: 0 subscribed to Heart Rate Measurement (2A37)"), "\(bus.errors)")
        }

        /// A BlueZ that stops taking the values (its sockets full) never holds up the recording:
        /// every value is recorded, and the relay says how many it could not pass on.
        @Test(.timeLimit(.minutes(10))) func aStalledBlueZCostsTheRelayNotTheRecording() throws {
            let source = try BlueZCommandTests.trace(lines: 3000)
            let mock = try MockBlueZ(trace: source, bluez: "5.84", extra: ["--centrals-stall"])
            defer { mock.stop() }
            let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: recorded) }
            let run = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box", "--trace", recorded.path])
            #expect(run.status == .success, "\(run.errors)")
            #expect(try BlueZCommandTests.notifications(recorded).count == run.played)
            #expect(run.played == (try BlueZCommandTests.notifications(source)).count)
            // Said at the first value lost, and the total at the end.
            let said = run.errors.split(separator: "\n").filter { $0.contains("not relayed: BlueZ did not take them fast enough") }
            #expect(said.count == 2, "\(run.errors)")
            func count(_ line: Substring?) -> Int { line.flatMap { $0.firstMatch(of: /relay: (\d+) values? not relayed/) }.flatMap { Int($0.1) } ?? 0 }
            let (first, total) = (count(said.first), count(said.last))
            #expect(first > 0 && total > first && total <= run.played, "\(said)")
        }

        /// With `--reencode`, a strap off the skin (0 bpm, contact not detected) is not relayed, and
        /// every other value goes rebuilt as `RelayValue` makes it.
        @Test(.timeLimit(.minutes(10))) func reencodingLeavesOutWhatDoesNotCount() throws {
            let source = try BlueZCommandTests.trace(lines: 60, extra: [#"{"t":30,"device":"hr","uuid":"2a37","hex":"0400"}"#])
            let mock = try MockBlueZ(trace: source)
            defer { mock.stop() }
            let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: recorded) }
            let run = try BlueZCommandTests.record(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box", "--reencode", "--trace", recorded.path])
            #expect(run.status == .success, "\(run.errors)")
            let received = try BlueZCommandTests.notifications(recorded).map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
            #expect(received.contains("2a37 0400"))
            let expected = received.compactMap { line -> String? in
                RelayValue.reencoded(uuid: UInt16(line.prefix(4), radix: 16)!, bytes: Self.bytes(line)).map { bytes in
                    "\(line.prefix(4)) " + bytes.map { String(format: "%02x", $0) }.joined()
                }
            }
            #expect(expected.count == received.count - 1)
            #expect(Self.byCharacteristic(Self.relayed(mock, central: 0)) == Self.byCharacteristic(expected))
        }

        /// `serve --relay`: the relay stays registered across serve's workouts and relays every
        /// value, in order; with several athletes at once it is refused (it follows one workout).
        @Test(.timeLimit(.minutes(10))) func serveRelaysWhatItRecords() throws {
            let source = try BlueZCommandTests.trace(lines: 60)
            let mock = try MockBlueZ(trace: source)
            defer { mock.stop() }
            let serving = ServeCommandTests.Serving(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Gym 1"])
            let sent = try BlueZCommandTests.notifications(source)
            #expect(mock.waitUntilPlayed(timeout: .seconds(60)) == sent.count)
            #expect(serving.waitForNotifications(sent.count))
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            #expect(run.errors.contains("relay: advertising as 'Gym 1'"), "\(run.errors)")
            #expect(
                Self.byCharacteristic(Self.relayed(mock, central: 0))
                    == Self.byCharacteristic(sent.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }))
            #expect(mock.printed("application unregistered"), "\(mock.output)")

            // Two athletes with sensors: serve would record both at once, and the relay follows one.
            let store = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString).sqlite").path
            defer { try? FileManager.default.removeItem(atPath: store) }
            for words in [
                ["athletes", "add", "Anna"], ["athletes", "add", "Ben"], ["athletes", "assign", "Anna", "--hr", "C4:7E:11:22:33:44"],
                ["athletes", "assign", "Ben", "--power", "E8:FE:6E:91:9F:16"],
            ] {
                #expect(runCLI(words + ["--store", store]).status == .success)
            }
            let several = runCLI(["serve", "--relay", "Gym", "--store", store], environment: mock.environment)
            #expect(several.status == .usage)
            #expect(several.errors.contains("--relay offers one rider's sensors: give --athlete NAME"), "\(several.errors)")
        }

        /// BlueZ restarts during the ride: the application and the advertisement are registered
        /// again and the new BlueZ's centrals get the values.
        @Test(.timeLimit(.minutes(10))) func theRelayIsRegisteredAgainWhenBlueZRestarts() throws {
            let source = try BlueZCommandTests.trace(lines: 40)
            let mock = try MockBlueZ(trace: source)
            defer { mock.stop() }
            let run = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box"] + BlueZCommandTests.zones) {
                try mock.restartBlueZ()
                return mock.waitUntilPlayed(timeout: .seconds(60)) ?? -1
            }
            #expect(run.status == .success, "\(run.errors)")
            // The new mock's output: registered, subscribed and relayed again.
            #expect(mock.printed("application registered: 180d 1818 (5 characteristics)"), "\(mock.output)")
            #expect(mock.printed("advertising Box: 180d 1818 (discoverable)"), "\(mock.output)\n\(run.errors)")
            #expect(Self.relayed(mock, central: 0).count == (try BlueZCommandTests.notifications(source)).count, "\(mock.output)")
            #expect(run.errors.components(separatedBy: "relay: offering the sensors on hci0").count == 3, "\(run.errors)")
        }

        /// As bluetoothd does (`--late-adapter`): BlueZ restarts and owns its name a second before
        /// the adapter and its GATT manager appear, the advertising manager 0.2 s after them; or the
        /// adapter is unplugged and plugged back. The relay registers again once they are there,
        /// never calls BlueZ too old, and the new centrals get every value.
        @Test(.timeLimit(.minutes(10)), arguments: ["restart", "replug"])
        func theRelayIsRegisteredAgainWhenTheAdapterComesBack(_ disruption: String) throws {
            let source = try BlueZCommandTests.trace(lines: 40)
            let mock = try MockBlueZ(trace: source, extra: ["--late-adapter", "1"])
            defer { mock.stop() }
            #expect(mock.printed("advertising manager added", timeout: .seconds(10)), "\(mock.output)")
            let run = try BlueZCommandTests.record(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box", "--auto-connect"] + BlueZCommandTests.zones
            ) {
                if disruption == "restart" {
                    try mock.restartBlueZ()
                } else {
                    try mock.unplugAdapter()
                    Thread.sleep(forTimeInterval: 1)
                    mock.replugAdapter()
                }
                return mock.waitUntilPlayed(timeout: .seconds(60), round: disruption == "restart" ? 1 : 2) ?? -1
            }
            #expect(run.status == .success, "\(run.errors)")
            #expect(!run.errors.contains("too old"), "\(run.errors)")
            #expect(run.errors.components(separatedBy: "relay: offering the sensors on hci0").count == 3, "\(run.errors)")
            #expect(run.errors.contains(disruption == "restart" ? "relay: BlueZ went away" : "relay: the adapter /org/bluez/hci0 went away"), "\(run.errors)")
            // The sensors' auto-connect profile, beside the relay's application, is registered again too.
            #expect(run.errors.components(separatedBy: "BlueZ reconnects the sensors by itself on hci0").count == 3, "\(run.errors)")
            #expect(mock.printed("advertising Box: 180d 1818 (discoverable)"), "\(mock.output)")
        }

        /// bluetoothd refusing the advertisement (the controller refused it) is asked again after 1 s,
        /// then 2, 4, ..., not with every value (4 a second): 10 s of values make at most 5 tries.
        @Test(.timeLimit(.minutes(10))) func aRefusedAdvertisementIsAskedAgainLessAndLessOften() throws {
            let source = try BlueZCommandTests.trace(lines: 40)
            let mock = try MockBlueZ(trace: source, speed: 1, extra: ["--advertising-fails", "1000"])
            defer { mock.stop() }
            let run = try BlueZCommandTests.record(mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--relay", "Box"] + BlueZCommandTests.zones)
            #expect(run.status == .success, "\(run.errors)")
            let refused = mock.output.components(separatedBy: "advertisement refused").count - 1
            #expect((2...5).contains(refused), "\(refused) refusals: \(mock.output)")
            #expect(run.errors.contains("relay: BlueZ refused to register the relay's advertisement"), "\(run.errors)")
            #expect(run.errors.contains("; trying again in 1 s") && run.errors.contains("; trying again in 2 s"), "\(run.errors)")
        }

        /// What the adapter or BlueZ cannot do is said with the fix, before anything records.
        @Test(.timeLimit(.minutes(10))) func anAdapterThatCannotRelaySaysWhatToDo() throws {
            let source = try BlueZCommandTests.trace(lines: 10)
            for (extra, message) in [
                (["--no-peripheral"], "cannot be a peripheral (its roles: central)"),
                (["--advertising-slots", "0"], "has no advertising slot left (SupportedInstances is 0"),
            ] {
                let mock = try MockBlueZ(trace: source, extra: extra)
                defer { mock.stop() }
                let run = runCLI(["relay", "--hr", "HRM-Pro", "--duration", "5"], environment: mock.environment)
                #expect(run.status == .failure, "\(extra): \(run.errors)")
                #expect(run.errors.contains(message), "\(extra): \(run.errors)")
            }
            let mock = try MockBlueZ(trace: source)
            defer { mock.stop() }
            #expect(runCLI(["relay", "--hr", "HRM-Pro", "--save"], environment: mock.environment).status == .usage)
            let long = runCLI(["record", "--hr", "HRM-Pro", "--relay", String(repeating: "x", count: 21)], environment: mock.environment)
            #expect(long.status == .usage && long.errors.contains("give a name of 1 to 20 bytes"), "\(long.errors)")
        }
    }
}
