import Foundation
@testable import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import WorkoutStore
import Outputs

/// `--mqtt` against a real `mosquitto` broker on a free loopback port and `mosquitto_sub` as the
/// subscriber that checks every message; the sensors are the mock BlueZ. Skipped, saying why,
/// when mosquitto, mosquitto-clients, dbus-daemon or python3-dbusmock is missing.
extension BridgeOutTests {
    @Suite(
        .serialized,
        .enabled(if: MosquittoBroker.unavailableReason == nil, "\(MosquittoBroker.unavailableReason ?? "")"),
        .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
    struct MQTTTests {
        static let pedalling = LiveControlTests.pedalling  // 200 W
        static let still = LiveControlTests.still  // 0 W

        /// A temporary folder, removed when the test ends.
        static func folder() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        static func json(_ message: ReceivedMQTTMessage) -> JSONValue? { try? JSONValue(parsing: message.payload) }

        /// The whole ride on MQTT: live values, zone updates and events at their QoS and in order, the
        /// states, the finished workout (the JSON `record --json` prints) and Home Assistant discovery;
        /// and for a subscriber that comes after the end, the retained states and summary.
        @Test(.timeLimit(.minutes(10))) func recordPublishesTheRideAndLeavesItsStateAndSummaryRetained() throws {
            // 8 s at twice real time: 120 then 140 bpm; 200 W, still from 3 s to 5 s (an auto-pause of 1 s).
            let source = try LiveControlTests.trace(seconds: 8, heartRate: { $0 < 4 ? "0678" : "068c" }) { t in
                (3..<5).contains(t) ? Self.still : Self.pedalling
            }
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: source, speed: 2)
            defer { mock.stop() }
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let base = "sbtest/bike/"
            let subscriber = try MQTTSubscriber(broker, topics: ["sbtest/#", "homeassistant/#"])
            #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")

            let run = try BlueZCommandTests.record(
                mock,
                [
                    "--hr", "HRM-Pro", "--power", "Assioma", "--mqtt", broker.url + "/sbtest", "--bridge-id", "bike", "--json",
                    "--events", "--auto-pause", "1", "--store", folder.appendingPathComponent("w.sqlite").path,
                ] + BlueZCommandTests.zones)
            #expect(run.status == .success, "\(run.errors)")
            #expect(run.received == run.played)
            #expect(run.errors.contains("MQTT: connected to mqtt://127.0.0.1:\(broker.port)/sbtest"), "\(run.errors)")
            #expect(subscriber.waitFor { $0.topic == base + "status" && $0.payload == "offline" }, "\(subscriber.output)")
            let recorded = try JSONValue(parsing: run.output)
            let messages = subscriber.messages
            func on(_ topic: String) -> [ReceivedMQTTMessage] { messages.filter { $0.topic == base + topic } }

            // Live values: QoS 0, not retained, each a value the sensors sent, coalesced (4 a second at most).
            for (topic, sent) in [("heart_rate", ["120", "140"]), ("power", ["200", "0"])] {
                let values = on(topic)
                #expect(!values.isEmpty && values.allSatisfy { $0.qos == 0 && !$0.retained }, "\(topic): \(values)")
                #expect(Set(values.map(\.payload)).isSubset(of: sent), "\(topic): \(values.map(\.payload))")
                #expect(values.count <= 4 * 5 + 2, "\(topic): \(values.count) values in about 4 s")
            }
            // Zone updates: QoS 1, every one, in order, each as --json --events prints it.
            let updates = recorded["zoneUpdates"]?.arrayValue ?? []
            for (topic, type) in [("zone/heart_rate", "heartRate"), ("zone/power", "cyclingPower")] {
                let published = on(topic)
                #expect(published.allSatisfy { $0.qos == 1 }, "\(published)")
                let expected = updates.filter { $0["quantityType"]?.stringValue == type }
                #expect(!expected.isEmpty)
                #expect(published.map(Self.json) == expected, "\(topic): \(published.map(\.payload))")
            }
            // Lifecycle: start, the auto-pause and resume as the workout's events, end; QoS 1, in order.
            let events = on("event")
            #expect(events.allSatisfy { $0.qos == 1 && !$0.retained })
            #expect(events.map { Self.json($0)?["type"]?.stringValue } == ["start", "pause", "resume", "end"], "\(events)")
            let workoutEvents = (recorded["workout"]?["events"]?.arrayValue ?? []).filter {
                ["pause", "resume"].contains($0["type"]?.stringValue)
            }
            #expect(Array(events.dropFirst().dropLast()).map(Self.json) == workoutEvents)
            #expect(Self.json(events[0])?["start"] == recorded["workout"]?["start"])
            // States: QoS 1, retained for later subscribers (live delivery clears the flag).
            #expect(on("workout/state").map(\.payload) == ["collecting", "paused", "collecting", "ended", "finished"])
            for sensor in ["hr", "power"] {
                #expect(on("sensor/" + sensor).map(\.payload).prefix(2) == ["connecting", "notifying"], "\(sensor)")
            }
            #expect(on("status").map(\.payload) == ["online", "offline"])
            // The finished workout, as record --json printed it, with its id in the store.
            let summary = try #require(on("workout/summary").last.flatMap(Self.json))
            #expect(summary["id"] == 1)
            #expect(summary["workout"] == recorded["workout"])
            #expect(summary["zoneUpdates"] == nil)

            // Home Assistant discovery: one device, its sensors' configurations valid and complete.
            let discovery = messages.filter { $0.topic.hasPrefix("homeassistant/") }
            #expect(
                Set(discovery.map(\.topic))
                    == Set(["heart_rate", "power", "cadence", "heart_rate_zone", "power_zone", "dfa_alpha1", "workout_state"].map {
                        "homeassistant/sensor/bike_\($0)/config"
                    }))
            for message in discovery {
                let config = try #require(Self.json(message), "\(message.payload)")
                let thing = message.topic.dropFirst("homeassistant/sensor/bike_".count).dropLast("/config".count)
                #expect(config["unique_id"]?.stringValue == "bike_\(thing)")
                #expect(config["state_topic"]?.stringValue?.hasPrefix(base) == true)
                #expect(config["availability_topic"]?.stringValue == base + "status")
                #expect(config["device"]?["identifiers"] == ["sensorbridge_bike"])
                #expect(config["name"]?.stringValue?.isEmpty == false)
                #expect(message.qos == 1)
            }
            let heartRate = try #require(discovery.first { $0.topic.contains("bike_heart_rate/") }.flatMap(Self.json))
            #expect(heartRate["unit_of_measurement"] == "bpm" && heartRate["state_topic"]?.stringValue == base + "heart_rate")
            let power = try #require(discovery.first { $0.topic.contains("bike_power/") }.flatMap(Self.json))
            #expect(power["unit_of_measurement"] == "W" && power["device_class"] == "power")

            // After the end: a new subscriber gets the retained state, summary and discovery.
            let late = try MQTTSubscriber(broker, topics: ["sbtest/#", "homeassistant/#"], arguments: ["--retained-only", "-W", "2"])
            #expect(late.waitForExit(timeout: .seconds(10)))
            let retained = Dictionary(late.messages.map { ($0.topic, $0) }) { $1 }
            #expect(late.messages.allSatisfy { $0.retained })
            #expect(retained[base + "status"]?.payload == "offline")
            #expect(retained[base + "workout/state"]?.payload == "finished")
            #expect(retained[base + "sensor/hr"]?.payload == "notifying")
            #expect(retained[base + "workout/summary"].flatMap(Self.json) == summary)
            #expect(retained["homeassistant/sensor/bike_power/config"] != nil)
            #expect(retained[base + "heart_rate"] == nil && retained[base + "event"] == nil)
        }

        /// `--plan`: the step under way on the retained `step` topic as each begins (the first at
        /// the start), and no step once the workout ends; the finished workout's steps in the summary.
        @Test(.timeLimit(.minutes(10))) func recordPublishesThePlansSteps() throws {
            let source = try LiveControlTests.trace(seconds: 8) { _ in Self.pedalling }
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: source, speed: 2)
            defer { mock.stop() }
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let plan = folder.appendingPathComponent("plan.json")
            try #"{"name": "Two", "steps": [{"duration": 1, "power": "200W"}, {"duration": 1, "power": "Z2"}, {"duration": "open"}]}"#
                .write(to: plan, atomically: true, encoding: .utf8)
            let subscriber = try MQTTSubscriber(broker, topics: ["sbtest/#"])
            #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
            let run = try BlueZCommandTests.record(
                mock,
                [
                    "--hr", "HRM-Pro", "--power", "Assioma", "--mqtt", broker.url + "/sbtest", "--bridge-id", "bike", "--json",
                    "--plan", plan.path, "--store", folder.appendingPathComponent("w.sqlite").path,
                ] + BlueZCommandTests.zones)
            #expect(run.status == .success, "\(run.errors)")
            #expect(subscriber.waitFor { $0.topic == "sbtest/bike/status" && $0.payload == "offline" }, "\(subscriber.output)")
            let steps = subscriber.messages.filter { $0.topic == "sbtest/bike/step" }
            #expect(steps.allSatisfy { $0.qos == 1 }, "\(steps)")
            #expect(steps.map { Self.json($0)?["number"] } == [1, 2, 3, .null], "\(steps.map(\.payload))")
            #expect(Self.json(steps[0])?["target"] == "200 W" && Self.json(steps[1])?["target"] == "power zone 2")
            let summary = try #require(subscriber.messages.last { $0.topic == "sbtest/bike/workout/summary" }.flatMap(Self.json))
            #expect(summary["workout"]?["steps"]?.arrayValue?.count == 3 && summary["workout"]?["plan"]?["name"] == "Two")
        }

        /// The broker stops mid-ride and comes back: the recording goes on, the zone updates made
        /// meanwhile wait in the queue and arrive after the reconnection, all of them and in order,
        /// and the stored workout holds every value.
        @Test(.timeLimit(.minutes(10))) func aBrokerRestartMidRideLosesNoZoneUpdateAndNoSample() throws {
            // 16 s at twice real time: the power changes zone every second.
            let source = try LiveControlTests.trace(seconds: 16) { t in Int(t) % 2 == 0 ? "00006e00" : "00009600" }  // 110 W, 150 W
            let sent = try BlueZCommandTests.notifications(source)
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: source, speed: 2)
            defer { mock.stop() }
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = folder.appendingPathComponent("w.sqlite").path
            // A persistent session: the broker keeps the subscription, and what is published for it, across its restart.
            let subscriber = try MQTTSubscriber(broker, topics: ["sbtest/bike/zone/#", "sbtest/bike/event"], persistentID: "test-sub")
            #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")

            let recording = BlueZCommandTests.Recording(
                mock,
                ["--hr", "HRM-Pro", "--power", "Assioma", "--mqtt", broker.url + "/sbtest", "--bridge-id", "bike", "--json",
                 "--events", "--auto-pause", "off", "--store", store] + BlueZCommandTests.zones)
            recording.waitForNotifications(sent.count / 4)
            broker.stop()
            // A quarter of the ride (two zone changes or more) with the broker away.
            recording.waitForNotifications(sent.count / 2)
            try broker.restart()
            let played = mock.waitUntilPlayed(timeout: .seconds(60))
            #expect(played == sent.count)
            recording.waitForNotifications(sent.count)
            recording.control.stop()
            let (status, output, errors) = recording.waitForExit()
            // The end is the last event published.
            #expect(subscriber.waitFor { $0.topic == "sbtest/bike/event" && $0.payload.contains("\"end\"") }, "\(subscriber.output)")
            #expect(status == .success, "\(errors)")
            #expect(errors.contains("MQTT: lost the connection to mqtt://127.0.0.1:\(broker.port)/sbtest"), "\(errors)")
            #expect(errors.contains("MQTT: connected to mqtt://127.0.0.1:\(broker.port)/sbtest again"), "\(errors)")

            let recorded = try JSONValue(parsing: output)
            let expected = (recorded["zoneUpdates"]?.arrayValue ?? []).filter { $0["quantityType"] == "cyclingPower" }
            #expect(expected.count >= 10)
            var published: [JSONValue?] = []
            for message in subscriber.messages where message.topic == "sbtest/bike/zone/power" {
                // At least once: a message the broker took just before it stopped may come again.
                if published.last != Self.json(message) { published.append(Self.json(message)) }
            }
            #expect(published == expected, "\(published.count) of \(expected.count) zone updates")
            // The stored workout has every value the sensors sent.
            let stored = try JSONValue(parsing: runCLI(["workouts", "show", "1", "--json", "--store", store]).output)["workout"]
            let hrLines = sent.filter { $0.hasPrefix("hr ") }.count
            #expect(stored?["statistics"]?["heartRate"]?["count"]?.doubleValue == Double(hrLines))
            #expect(stored?["statistics"]?["cyclingPower"]?["count"]?.doubleValue == Double(sent.count - hrLines))
            #expect(stored?["statistics"] == recorded["workout"]?["statistics"])
        }

        /// While the broker is away, serve says so once when the connection goes and once when it
        /// is back (how long it was away, in how many attempts), and nothing at the attempts between
        /// (issue 31: two lines each, one saying a connection was lost that never was made).
        @Test(.timeLimit(.minutes(10))) func aBrokerAwayIsLoggedOnceWhenLostAndOnceWhenBack() throws {
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 40), speed: 8, paired: true)
            defer { mock.stop() }
            let status = "sensorbridge/garage/status"
            let before = try MQTTSubscriber(broker, topics: [status])
            #expect(before.waitUntilSubscribed(), "\(before.output)")
            let serving = ServeCommandTests.Serving(mock, ["--mqtt", broker.url, "--bridge-id", "garage"])
            #expect(before.waitFor { $0.topic == status && $0.payload == "online" }, "\(before.output)")
            broker.stop()
            // Attempts 1, 3, 7 and 15 s after the loss (the delay doubles from 1 s).
            Thread.sleep(forTimeInterval: 16)
            try broker.restart()
            let after = try MQTTSubscriber(broker, topics: [status])
            #expect(after.waitUntilSubscribed(), "\(after.output)")
            // Published as serve connects again, not the copy the broker kept.
            #expect(after.waitFor { $0.topic == status && $0.payload == "online" && !$0.retained }, "\(after.output)")
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            let url = broker.url + "/sensorbridge"
            let lines = run.errors.split(separator: "\n").filter { $0.hasPrefix("sensorbridge serve: MQTT:") }
                .map { $0.dropFirst("sensorbridge serve: ".count) }
            #expect(lines.count == 3, "\(run.errors)")
            #expect(lines.first == "MQTT: connected to \(url)", "\(run.errors)")
            #expect(lines.dropFirst().first?.hasPrefix("MQTT: lost the connection to \(url) (") == true, "\(run.errors)")
            let back = lines.dropFirst(2).first.map(String.init) ?? ""
            #expect(back.prefixMatch(of: /MQTT: connected to \S+ again after \d+ s away \(\d+ attempts?\)/) != nil, "\(run.errors)")
            #expect(!run.errors.contains("cannot connect"), "\(run.errors)")
        }

        /// A credentials file logs in; a broker that refuses them is logged and the recording goes on.
        @Test(.timeLimit(.minutes(10))) func credentialsLogInAndARefusalNeverStopsTheRecording() throws {
            let broker = try MosquittoBroker(users: [("rider", "s3cret:pass")])
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            for (password, connects) in [("s3cret:pass", true), ("wrong", false)] {
                let credentials = folder.appendingPathComponent("mqtt-\(password)")
                try "rider:\(password)\n".write(to: credentials, atomically: true, encoding: .utf8)
                chmod(credentials.path, 0o600)
                let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 40), speed: 8)
                defer { mock.stop() }
                let run = try BlueZCommandTests.record(
                    mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--mqtt", broker.url, "--mqtt-credentials", credentials.path])
                #expect(run.status == .success, "\(run.errors)")
                #expect(run.received == run.played)
                if connects {
                    #expect(run.errors.contains("MQTT: connected to mqtt://127.0.0.1:\(broker.port)/sensorbridge"), "\(run.errors)")
                } else {
                    #expect(
                        run.errors.contains("MQTT: cannot connect to mqtt://127.0.0.1:\(broker.port)/sensorbridge (Connection Refused: not authorised.)"),
                        "\(run.errors)")
                }
            }
        }

        /// A class on MQTT: three athletes and the box's own strap recorded at once by one serve on
        /// one connection; each athlete's values, zone updates, events, states and finished workout
        /// under their own level with a Home Assistant device each, the box's own under the
        /// bridge's topics, one `status` for all.
        @Test(.timeLimit(.minutes(10))) func serveWithSeveralAthletesPublishesEachUnderTheirOwnTopics() throws {
            let devices = [
                ("anna", "HRM-A", "C4:7E:11:22:36:01", "0678"), ("ben", "HRM-B", "C4:7E:11:22:36:02", "068c"),
                ("cleo", "HRM-C", "C4:7E:11:22:36:03", "06a0"), ("own", "HRM-O", "C4:7E:11:22:36:04", "06b4"),
            ]
            let header = #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"#
                + devices.map { #""\#($0.0)":{"name":"\#($0.1)","address":"\#($0.2)"}"# }.joined(separator: ",") + "}}"
            var lines = [header]
            for step in 0..<12 {
                for device in devices { lines.append(#"{"t":\#(Double(step) / 2),"device":"\#(device.0)","uuid":"2a37","hex":"\#(device.3)"}"#) }
            }
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let trace = folder.appendingPathComponent("class.jsonl")
            try (lines.joined(separator: "\n") + "\n").write(to: trace, atomically: true, encoding: .utf8)
            let store = folder.appendingPathComponent("w.sqlite").path
            for (name, device) in zip(["Anna", "Ben", "Cleo"], devices) {
                #expect(runCLI(["athletes", "add", name, "--hr-zones", "100,130,150,170", "--store", store]).status == .success)
                #expect(runCLI(["athletes", "assign", name, "--hr", device.2, "--store", store]).status == .success)
            }
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: trace, speed: 2, paired: true)
            defer { mock.stop() }
            let subscriber = try MQTTSubscriber(broker, topics: ["sbtest/#", "homeassistant/#"])
            #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
            let serving = ServeCommandTests.Serving(
                mock, ["--idle-timeout", "2", "--mqtt", broker.url + "/sbtest", "--bridge-id", "gym", "--hr-zones", "100,130,150,170"],
                store: store, zones: false)
            #expect(try serving.waitForSavedWorkouts(4))
            #expect(subscriber.waitFor { $0.topic == "sbtest/gym/Cleo/workout/summary" })
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            #expect(run.errors.components(separatedBy: "MQTT: connected to").count == 2, "one connection: \(run.errors)")
            #expect(subscriber.waitFor { $0.topic == "sbtest/gym/status" && $0.payload == "offline" })
            let messages = subscriber.messages
            func on(_ topic: String) -> [ReceivedMQTTMessage] { messages.filter { $0.topic == "sbtest/gym/" + topic } }
            for (rider, bpm) in [("Anna/", "120"), ("Ben/", "140"), ("Cleo/", "160"), ("", "180")] {
                #expect(Set(on(rider + "heart_rate").map(\.payload)) == [bpm], "\(rider): \(on(rider + "heart_rate").map(\.payload))")
                #expect(on(rider + "zone/heart_rate").count >= 1, "\(rider)")
                #expect(on(rider + "event").compactMap { Self.json($0)?["type"]?.stringValue } == ["start", "end"], "\(rider)")
                #expect(on(rider + "workout/state").last?.payload == "finished", "\(rider)")
                // The box's own strap is its `hr`: the athletes' straps are theirs, not counted.
                #expect(on(rider + "sensor/hr").map(\.payload).prefix(2) == ["connecting", "notifying"], "\(rider)")
                let summary = on(rider + "workout/summary").last.flatMap(Self.json)
                #expect(summary?["athlete"]?.stringValue == (rider.isEmpty ? nil : String(rider.dropLast())), "\(rider)")
            }
            #expect(on("Anna/status").isEmpty && on("status").map(\.payload) == ["online", "offline"])
            // Home Assistant: a device per athlete, its topics under the athlete's level, the bridge's status.
            let anna = try #require(messages.first { $0.topic == "homeassistant/sensor/gym_anna_heart_rate/config" }.flatMap(Self.json))
            #expect(anna["state_topic"] == "sbtest/gym/Anna/heart_rate" && anna["availability_topic"] == "sbtest/gym/status")
            #expect(anna["device"]?["identifiers"] == ["sensorbridge_gym_anna"] && anna["device"]?["name"] == "SensorBridge gym Anna")
            #expect(messages.contains { $0.topic == "homeassistant/sensor/gym_heart_rate/config" })
        }

        /// serve keeps one connection across its workouts and publishes each finished one.
        @Test(.timeLimit(.minutes(10))) func serveFollowsEachWorkoutOnOneConnection() throws {
            let (trace, ride) = try ServeCommandTests.twoRides(seconds: 2, gap: 12)
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: trace, speed: 2, paired: true)
            defer { mock.stop() }
            let subscriber = try MQTTSubscriber(broker, topics: ["sensorbridge/garage/#"])
            #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
            let serving = ServeCommandTests.Serving(
                mock, ["--idle-timeout", "2", "--json", "--mqtt", broker.url, "--bridge-id", "garage"])
            #expect(serving.waitForNotifications(2 * ride.count))
            #expect(try serving.waitForSavedWorkouts(2))
            #expect(subscriber.waitFor { $0.topic.hasSuffix("workout/summary") && $0.payload.hasPrefix("{\"id\":2,") })
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            #expect(run.errors.components(separatedBy: "MQTT: connected to").count == 2, "one connection: \(run.errors)")
            let messages = subscriber.messages
            let summaries = messages.filter { $0.topic == "sensorbridge/garage/workout/summary" }.compactMap(Self.json)
            #expect(summaries == (try jsonLines(run.output)), "each saved workout, as --json prints it")
            let events = messages.filter { $0.topic == "sensorbridge/garage/event" }.compactMap { Self.json($0)?["type"]?.stringValue }
            #expect(events == ["start", "end", "start", "end"])
            #expect(subscriber.waitFor { $0.topic == "sensorbridge/garage/status" && $0.payload == "offline" })
        }

        /// `serve --http --mqtt`: the sensors connect before the workout starts; once they notify,
        /// the live page's feed (`/api/live`: the snapshot's states and the `live` event's sensors)
        /// says what MQTT's `sensor/KEY` says, `notifying`, not `connecting`.
        @Test(.timeLimit(.minutes(10))) func serveShowsTheSensorsOnTheLivePageAsMQTTPublishesThem() throws {
            let broker = try MosquittoBroker()
            let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 400), speed: 1)
            defer { mock.stop() }
            let subscriber = try MQTTSubscriber(broker, topics: ["sensorbridge/garage/#"])
            #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
            let port = try freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let serving = ServeCommandTests.Serving(
                mock, ["--hr", "HRM-Pro", "--power", "Assioma", "--http", "\(port)", "--mqtt", broker.url, "--bridge-id", "garage"])
            try WebTests.Running.waitUntilServing(base + "/")
            #expect(serving.waitForNotifications(20))
            for key in ["hr", "power"] {
                #expect(
                    subscriber.waitFor { $0.topic == "sensorbridge/garage/sensor/\(key)" && $0.payload == "notifying" },
                    "\(key): \(subscriber.output)")
            }
            let stream = try WebTests.curl(base + "/api/live", ["--max-time", "2", "-N"]).text
            let run = serving.stop()
            #expect(run.status == .success, "\(run.errors)")
            // `event: NAME\ndata: JSON` blocks.
            let events = stream.components(separatedBy: "\n\n").compactMap { block -> (String, JSONValue)? in
                let lines = block.split(separator: "\n")
                guard lines.count == 2, lines[0].hasPrefix("event: "), lines[1].hasPrefix("data: "),
                    let data = try? JSONValue(parsing: String(lines[1].dropFirst(6)))
                else { return nil }
                return (String(lines[0].dropFirst(7)), data)
            }
            let snapshot = try #require(events.first { $0.0 == "snapshot" }?.1, "\(stream.prefix(1000))")
            #expect(snapshot["sensors"] == .object(["hr": "notifying", "power": "notifying"]), "\(snapshot["sensors"] ?? nil)")
            // The workout's start, an instant with its offset (the live page shows it as the other pages do).
            #expect(snapshot["start"]?.stringValue.flatMap(ISO8601.parseWithOffset) != nil, "\(snapshot["start"] ?? nil)")
            let live = try #require(events.last { $0.0 == "live" }?.1, "\(stream.prefix(1000))")
            let links = (live["sensors"]?.arrayValue ?? []).map { [$0["key"]?.stringValue, $0["link"]?.stringValue] }
            #expect(links == [["hr", "notifying"], ["power", "notifying"]], "\(live["sensors"] ?? nil)")
            let published = subscriber.messages.filter { $0.topic.hasPrefix("sensorbridge/garage/sensor/") }
            #expect(published.last { $0.topic.hasSuffix("/hr") }?.payload == "notifying")
            #expect(published.last { $0.topic.hasSuffix("/power") }?.payload == "notifying")
        }

        /// The README's example, as written but for the broker's address: the record command, and
        /// mosquitto_sub showing its topics.
        @Test(.timeLimit(.minutes(10))) func theREADMEExampleRecordsAndMosquittoSubShowsIt() throws {
            let readme = try String(
                contentsOf: ReplayCommandTests.captures.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
            let section = try #require(readme.components(separatedBy: "## MQTT and Home Assistant\n").dropFirst().first)
            let lines = section.components(separatedBy: "```sh\n")[1].components(separatedBy: "\n```")[0].split(separator: "\n")
            #expect(lines.count == 2)
            let broker = try MosquittoBroker()
            let here = "127.0.0.1:\(broker.port)"
            let record = lines[0].replacingOccurrences(of: "homeassistant.local", with: here).split(separator: " ").map(String.init)
            let watch = lines[1].replacingOccurrences(of: "-h homeassistant.local", with: "-h 127.0.0.1 -p \(broker.port)")
                .replacingOccurrences(of: "'", with: "").split(separator: " ").map(String.init)
            #expect(Array(record.prefix(2)) == ["sensorbridge", "record"] && watch.first == "mosquitto_sub")
            let subscriber = try ChildProcess(
                "/usr/bin/stdbuf", ["-oL", MosquittoBroker.subscriberPath, "-d"] + watch.dropFirst(), environment: [:])
            defer { subscriber.stop() }
            #expect(subscriber.waitForLine(timeout: .seconds(10)) { $0.contains("SUBACK") } != nil, "\(subscriber.output)")
            let mock = try MockBlueZ(trace: try BlueZCommandTests.trace(lines: 40), speed: 8)
            defer { mock.stop() }
            let run = try BlueZCommandTests.record(mock, Array(record.dropFirst(2)))
            #expect(run.status == .success, "\(run.errors)")
            #expect(subscriber.waitForLine(timeout: .seconds(10)) { $0 == "sensorbridge/bike/status offline" } != nil)
            let shown = subscriber.output.split(separator: "\n")
            #expect(shown.contains { $0.hasPrefix("sensorbridge/bike/heart_rate ") }, "\(subscriber.output)")
            #expect(shown.contains { $0.hasPrefix("sensorbridge/bike/power ") })
            #expect(shown.contains { $0.hasPrefix("sensorbridge/bike/workout/summary {\"workout\":") })
        }

        /// Mistakes in the options are usage errors (status 2) that say what to write, before anything
        /// connects; so are credentials files that are missing, empty or readable by everyone.
        @Test func badURLsAndCredentialsFilesAreUsageErrorsThatSayWhatToWrite() throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let open = folder.appendingPathComponent("open")
            try "rider:secret\n".write(to: open, atomically: true, encoding: .utf8)
            chmod(open.path, 0o644)
            let empty = folder.appendingPathComponent("empty")
            try "\n".write(to: empty, atomically: true, encoding: .utf8)
            chmod(empty.path, 0o600)
            let missing = folder.appendingPathComponent("missing").path
            let write = "give mqtt://HOST[:PORT]/PREFIX, or mqtts://HOST[:PORT]/PREFIX for TLS; for example --mqtt mqtt://homeassistant.local/sensorbridge"
            let cases: [([String], String)] = [
                (["--mqtt", "http://broker/x"], "--mqtt http://broker/x: the scheme must be mqtt or mqtts, not http; " + write),
                (["--mqtt", "broker.local"], "--mqtt broker.local is not a URL; " + write),
                (["--mqtt", "mqtt:///prefix"], "--mqtt mqtt:///prefix names no host; " + write),
                (["--mqtt", "mqtt://broker:70000/x"], "--mqtt mqtt://broker:70000/x: port 70000 is out of range; give 1 to 65535"),
                (["--mqtt", "mqtt://rider:secret@broker/x"], "put the user and password in a file given with --mqtt-credentials"),
                (["--mqtt", "mqtt://broker/a/+/b"], "the topic prefix 'a/+/b' may not hold +, # or empty levels (//)"),
                (["--mqtt", "mqtt://broker/x?retain=1"], "a broker URL has no ?query or #fragment"),
                (["--mqtt-credentials", open.path], "--mqtt-credentials is for MQTT; give the broker too: --mqtt mqtt://HOST[:PORT]/PREFIX"),
                (["--mqtt", "mqtt://broker", "--bridge-id", "my bike"], "--bridge-id 'my bike': give 1 to 64 letters, digits, _ and -"),
                (["--mqtt", "mqtt://broker", "--mqtt-credentials", missing],
                 "--mqtt-credentials \(missing): No such file or directory; write username:password (or only a username) on its first line, then chmod 600 it"),
                (["--mqtt", "mqtt://broker", "--mqtt-credentials", open.path],
                 "--mqtt-credentials \(open.path) is readable by every user of this machine; make it yours alone: chmod 600 \(open.path)"),
                (["--mqtt", "mqtt://broker", "--mqtt-credentials", empty.path], "--mqtt-credentials \(empty.path): the first line is empty"),
                (["--mqtt", "mqtt://broker", "--mqtt-credentials", folder.path], "--mqtt-credentials \(folder.path) is not a file"),
            ]
            for (words, message) in cases {
                for command in [["record", "--hr", "HRM-Pro", "--no-save"], ["serve", "--store", folder.appendingPathComponent("s.sqlite").path]] {
                    let run = runCLI(command + words, environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"])
                    #expect(run.status == .usage, "\(command[0]) \(words): \(run.errors)")
                    #expect(run.errors.contains(message), "\(command[0]) \(words): \(run.errors)")
                }
            }
            // What parses: defaults, TLS, IPv6, a prefix of several levels, a user without a password.
            #expect(try MQTTOptions.parse("mqtt://broker") == MQTTBroker(host: "broker", port: 1883, tls: false, prefix: "sensorbridge"))
            #expect(try MQTTOptions.parse("mqtts://broker/home/garage/") == MQTTBroker(host: "broker", port: 8883, tls: true, prefix: "home/garage"))
            #expect(try MQTTOptions.parse("MQTT://[::1]:1884/x").host == "::1")
            let user = folder.appendingPathComponent("user")
            try "rider".write(to: user, atomically: true, encoding: .utf8)
            chmod(user.path, 0o640)
            #expect(try MQTTOptions.credentials(user.path) == ("rider", nil))
            #expect(BridgeID(rawValue: BridgeID.hostDefault.rawValue) == BridgeID.hostDefault)
            // The help of both commands lists the options.
            for command in ["record", "serve"] {
                let help = runCLI([command, "--help"]).output
                #expect(help.contains("--mqtt mqtt://HOST[:PORT]/PREFIX") && help.contains("--mqtt-credentials FILE") && help.contains("--bridge-id ID"))
            }
        }
    }
}
