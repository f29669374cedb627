import Foundation
import MQTT
import SensorTestSupport
import Synchronization
import Testing

/// `MQTTClient` against a real `mosquitto` broker on a free loopback port, with `mosquitto_sub` as
/// the subscriber that sees what arrives: order at QoS 1, retained messages, the availability
/// topic and its will, the bounded queue while the broker is away, `stop`'s count of what was left
/// unsent, and credentials. Skipped, saying why, when mosquitto or mosquitto-clients is missing.
@Suite(.serialized, .enabled(if: MosquittoBroker.unavailableReason == nil, "\(MosquittoBroker.unavailableReason ?? "")"))
struct MQTTClientTests {
    /// The events a client told, in order.
    final class Events: Sendable {
        private let events = Mutex<[MQTTClient.Event]>([])

        func append(_ event: MQTTClient.Event) { events.withLock { $0.append(event) } }

        var all: [MQTTClient.Event] { events.withLock { $0 } }

        /// Waits up to `timeout` until the events told so far satisfy `predicate`.
        func waitFor(timeout: Duration = .seconds(15), _ predicate: ([MQTTClient.Event]) -> Bool) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !predicate(all) {
                if ContinuousClock.now >= deadline { return false }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return true
        }
    }

    /// A client of the broker on `port` (127.0.0.1), its events told to `events`.
    static func client(
        port: Int, _ events: Events, queueCapacity: Int = 1024, availability: String? = nil, username: String? = nil,
        password: String? = nil
    ) throws -> MQTTClient {
        let options = MQTTConnectionOptions(
            host: "127.0.0.1", port: port, username: username, password: password,
            clientID: "sensorbridge-test-\(UUID().uuidString.prefix(8))", availabilityTopic: availability)
        return try MQTTClient(options, queueCapacity: queueCapacity) { events.append($0) }
    }

    /// The messages `subscriber` received on `topic`, consecutive copies of one message (QoS 1 is at
    /// least once: a message the broker took just before a restart may come again) counted once.
    static func payloads(_ subscriber: MQTTSubscriber, on topic: String) -> [String] {
        var payloads: [String] = []
        for message in subscriber.messages where message.topic == topic && payloads.last != message.payload {
            payloads.append(message.payload)
        }
        return payloads
    }

    /// The retained messages a subscriber that comes now gets under `filter`, by topic.
    static func retained(_ broker: MosquittoBroker, _ filter: String, arguments: [String] = []) throws -> [String: ReceivedMQTTMessage] {
        let late = try MQTTSubscriber(broker, topics: [filter], arguments: ["--retained-only", "-W", "2"] + arguments)
        #expect(late.waitForExit(timeout: .seconds(10)), "\(late.output)")
        #expect(late.messages.allSatisfy { $0.retained }, "\(late.messages)")
        return Dictionary(late.messages.map { ($0.topic, $0) }) { $1 }
    }

    /// Waits until a subscriber to `topic` gets `payload` (live or retained): the broker has taken
    /// what the client published on one connection before it. A subscriber that asks for retained
    /// messages only would stop at a live one.
    static func waitUntilTheBrokerHas(_ broker: MosquittoBroker, _ topic: String, _ payload: String) throws {
        let subscriber = try MQTTSubscriber(broker, topics: [topic])
        #expect(subscriber.waitFor { $0.topic == topic && $0.payload == payload }, "\(subscriber.output)")
    }

    /// 300 QoS 1 messages, more than the 64 handed to libmosquitto unacknowledged, published at once
    /// and then `stop`: every one arrives, at QoS 1 and in the order published, and `stop` says none
    /// was left undelivered. A QoS 0 message arrives at QoS 0.
    @Test(.timeLimit(.minutes(10))) func qos1MessagesArriveAllInOrderAndStopSendsWhatWaits() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MQTTSubscriber(broker, topics: ["order/#"])
        #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
        let events = Events()
        let client = try Self.client(port: broker.port, events)
        #expect(events.waitFor { $0.contains { $0.connection?.again == false } }, "\(events.all)")
        #expect(client.isConnected)
        client.publish(MQTTMessage(topic: "order/live", text: "live", qos: .atMostOnce))
        let sent = (0..<300).map { "m\($0)" }
        for text in sent { client.publish(MQTTMessage(topic: "order/seq", text: text, qos: .atLeastOnce)) }
        #expect(client.stop() == 0)
        #expect(!client.isConnected)
        #expect(subscriber.waitFor { $0.topic == "order/seq" && $0.payload == "m299" }, "\(subscriber.output)")
        let received = subscriber.messages.filter { $0.topic == "order/seq" }
        #expect(received.map(\.payload) == sent)
        #expect(received.allSatisfy { $0.qos == 1 && !$0.retained })
        #expect(subscriber.waitFor { $0.topic == "order/live" }, "\(subscriber.output)")
        #expect(subscriber.messages.filter { $0.topic == "order/live" }.map(\.qos) == [0])
        // One connection, nothing lost.
        #expect(events.all.count == 1, "\(events.all)")
    }

    /// Retained messages stay with the broker: a subscriber that comes after the client has gone gets
    /// the latest of each retained topic, and nothing of a topic never published retained.
    @Test(.timeLimit(.minutes(10))) func retainedMessagesReachASubscriberThatComesLater() throws {
        let broker = try MosquittoBroker()
        let events = Events()
        let client = try Self.client(port: broker.port, events)
        #expect(events.waitFor { $0.contains { $0.connection != nil } }, "\(events.all)")
        client.publish(MQTTMessage(topic: "kept/state", text: "collecting", qos: .atLeastOnce, retain: true))
        client.publish(MQTTMessage(topic: "kept/state", text: "paused", qos: .atLeastOnce, retain: true))
        client.publish(MQTTMessage(topic: "kept/zone", text: "3", qos: .atMostOnce, retain: true))
        client.publish(MQTTMessage(topic: "kept/event", text: "lap", qos: .atLeastOnce))
        #expect(client.stop() == 0)
        let retained = try Self.retained(broker, "kept/#")
        #expect(retained.mapValues(\.payload) == ["kept/state": "paused", "kept/zone": "3"])
        #expect(retained["kept/state"]?.qos == 1 && retained["kept/zone"]?.qos == 0)
    }

    /// The availability topic: `online`, retained, on connecting; `offline`, retained, on `stop`.
    @Test(.timeLimit(.minutes(10))) func theAvailabilityTopicSaysOnlineOnConnectingAndOfflineOnStop() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MQTTSubscriber(broker, topics: ["bridge/#"])
        #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
        let events = Events()
        let client = try Self.client(port: broker.port, events, availability: "bridge/status")
        #expect(subscriber.waitFor { $0.topic == "bridge/status" && $0.payload == "online" }, "\(subscriber.output)")
        #expect(try Self.retained(broker, "bridge/#")["bridge/status"]?.payload == "online")
        #expect(client.stop() == 0)
        #expect(subscriber.waitFor { $0.topic == "bridge/status" && $0.payload == "offline" }, "\(subscriber.output)")
        #expect(Self.payloads(subscriber, on: "bridge/status") == ["online", "offline"])
        #expect(subscriber.messages.allSatisfy { $0.qos == 1 })
        #expect(try Self.retained(broker, "bridge/#")["bridge/status"]?.payload == "offline")
    }

    /// A TCP relay between the client and the broker (a Python child process): stopping it ends both
    /// connections without an MQTT DISCONNECT, as a network that fails does.
    final class Relay: Sendable {
        private let process: ChildProcess

        static let script = """
            import socket, sys, threading
            def pump(source, target):
                try:
                    while True:
                        data = source.recv(65536)
                        if not data:
                            break
                        target.sendall(data)
                except OSError:
                    pass
                for end in (source, target):
                    try:
                        end.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(('127.0.0.1', int(sys.argv[1])))
            listener.listen(8)
            print('listening', flush=True)
            while True:
                near, _ = listener.accept()
                far = socket.create_connection(('127.0.0.1', int(sys.argv[2])))
                for source, target in ((near, far), (far, near)):
                    threading.Thread(target=pump, args=(source, target), daemon=True).start()
            """

        init(port: Int, to target: Int) throws {
            process = try ChildProcess(MockBlueZ.python, ["-c", Self.script, String(port), String(target)], environment: [:])
            guard process.waitForLine(timeout: .seconds(10), where: { $0 == "listening" }) != nil else {
                process.stop()
                throw Failure(description: "the relay did not start: \(process.output)")
            }
        }

        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        func stop() { process.stop() }

        deinit { process.stop() }
    }

    /// A connection lost without a DISCONNECT: the broker publishes the will, `offline` (retained), the
    /// client tells the loss once, connects again and says `online` again.
    @Test(.timeLimit(.minutes(10))) func aLostConnectionPublishesTheWillAndTheClientComesBackOnline() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MQTTSubscriber(broker, topics: ["will/#"])
        #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
        let port = Int(try freeLoopbackPort())
        var relay = try Relay(port: port, to: broker.port)
        let events = Events()
        let client = try Self.client(port: port, events, availability: "will/status")
        defer { client.stop() }
        #expect(subscriber.waitFor { $0.topic == "will/status" && $0.payload == "online" }, "\(subscriber.output)")
        relay.stop()
        #expect(subscriber.waitFor { $0.topic == "will/status" && $0.payload == "offline" }, "\(subscriber.output)")
        #expect(try Self.retained(broker, "will/#")["will/status"]?.payload == "offline")
        #expect(events.waitFor { $0.contains { $0.isConnectionLost } }, "\(events.all)")
        #expect(!client.isConnected)
        relay = try Relay(port: port, to: broker.port)
        #expect(events.waitFor { $0.contains { $0.connection?.again == true } }, "\(events.all)")
        #expect(subscriber.waitFor(timeout: .seconds(10)) { _ in Self.payloads(subscriber, on: "will/status").count == 3 })
        #expect(Self.payloads(subscriber, on: "will/status") == ["online", "offline", "online"])
        #expect(events.all.count == 3, "\(events.all)")
    }

    /// The broker stops and comes back 3.5 s later. Meanwhile QoS 0 messages are not sent and QoS 1
    /// ones wait in the queue (capacity 4: the 6 oldest of 10 are dropped); after the reconnection the
    /// 4 kept arrive in order, and the event says how many were dropped and not sent. The loss and
    /// the return are told once each, not at the failed attempts between.
    @Test(.timeLimit(.minutes(10))) func whileTheBrokerIsAwayQoS1WaitsInTheBoundedQueueAndQoS0IsNotSent() throws {
        let broker = try MosquittoBroker()
        // A persistent session: the broker keeps the subscription, and what is published for it, across its restart.
        let subscriber = try MQTTSubscriber(broker, topics: ["away/#"], persistentID: "away-\(UUID().uuidString.prefix(8))")
        #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")
        let events = Events()
        let client = try Self.client(port: broker.port, events, queueCapacity: 4)
        defer { client.stop() }
        #expect(events.waitFor { $0.contains { $0.connection != nil } }, "\(events.all)")
        client.publish(MQTTMessage(topic: "away/seq", text: "before", qos: .atLeastOnce))
        #expect(subscriber.waitFor { $0.payload == "before" }, "\(subscriber.output)")

        broker.stop()
        #expect(events.waitFor { $0.contains { $0.isConnectionLost } }, "\(events.all)")
        #expect(!client.isConnected)
        for index in 0..<3 { client.publish(MQTTMessage(topic: "away/live", text: "live\(index)", qos: .atMostOnce)) }
        for index in 0..<10 { client.publish(MQTTMessage(topic: "away/seq", text: "m\(index)", qos: .atLeastOnce)) }
        // The attempts 1 s and 3 s after the loss fail; the one at 7 s finds the broker back.
        Thread.sleep(forTimeInterval: 3.5)
        try broker.restart()
        #expect(events.waitFor(timeout: .seconds(20)) { $0.contains { $0.connection?.again == true } }, "\(events.all)")
        let back = try #require(events.all.compactMap(\.connection).last)
        #expect(back.dropped == 6 && back.notSent == 3, "\(back)")
        #expect(back.attempts >= 2, "\(back)")
        #expect(subscriber.waitFor { $0.payload == "m9" }, "\(subscriber.output)")
        #expect(Self.payloads(subscriber, on: "away/seq") == ["before", "m6", "m7", "m8", "m9"], "\(subscriber.output)")
        #expect(Self.payloads(subscriber, on: "away/live").isEmpty)
        // Connected, lost, connected again: nothing at the failed attempts.
        let told = events.all
        #expect(told.count == 3 && told[1].isConnectionLost, "\(told)")
        #expect(client.stop() == 0)
    }

    /// A broker that restarted without its persistence has the retained messages back: the latest
    /// retained message of each topic is published again on every connection, `online` first.
    @Test(.timeLimit(.minutes(10))) func theLatestRetainedMessagesArePublishedAgainOnEveryConnection() throws {
        let broker = try MosquittoBroker()
        let events = Events()
        let client = try Self.client(port: broker.port, events, availability: "again/status")
        defer { client.stop() }
        #expect(events.waitFor { $0.contains { $0.connection != nil } }, "\(events.all)")
        client.publish(MQTTMessage(topic: "again/state", text: "collecting", qos: .atLeastOnce, retain: true))
        client.publish(MQTTMessage(topic: "again/state", text: "paused", qos: .atLeastOnce, retain: true))
        client.publish(MQTTMessage(topic: "again/zone", text: "2", qos: .atMostOnce, retain: true))
        try Self.waitUntilTheBrokerHas(broker, "again/zone", "2")
        let before = try Self.retained(broker, "again/#")
        #expect(before.mapValues(\.payload) == ["again/status": "online", "again/state": "paused", "again/zone": "2"], "\(before)")

        broker.stop()
        // What the broker saved as it stopped is lost: it comes back knowing nothing.
        try FileManager.default.removeItem(at: broker.directory.appendingPathComponent("mosquitto.db"))
        try broker.restart()
        #expect(events.waitFor(timeout: .seconds(20)) { $0.contains { $0.connection?.again == true } }, "\(events.all)")
        // Only the client can have given them to the broker now.
        try Self.waitUntilTheBrokerHas(broker, "again/zone", "2")
        let retained = try Self.retained(broker, "again/#")
        #expect(
            retained.mapValues(\.payload) == ["again/status": "online", "again/state": "paused", "again/zone": "2"],
            "\(retained)")
    }

    /// `stop` says how many QoS 1 messages were not delivered: dropped from the full queue or still
    /// in it (QoS 0 ones are not counted), and returns within its time when no broker answers. The
    /// first connection's failure is told once, with the system's words for it.
    @Test(.timeLimit(.minutes(10))) func stopReturnsWhatWasLeftUnsentWhenNoBrokerAnswers() throws {
        let port = Int(try freeLoopbackPort())
        let events = Events()
        let client = try Self.client(port: port, events, queueCapacity: 3)
        #expect(events.waitFor { !$0.isEmpty }, "\(events.all)")
        for index in 0..<5 { client.publish(MQTTMessage(topic: "nobody/seq", text: "m\(index)", qos: .atLeastOnce)) }
        for index in 0..<2 { client.publish(MQTTMessage(topic: "nobody/live", text: "v\(index)", qos: .atMostOnce)) }
        // Past the attempt 1 s after the first: still one event.
        Thread.sleep(forTimeInterval: 1.5)
        let started = ContinuousClock.now
        #expect(client.stop(within: .milliseconds(500)) == 5)
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(!client.isConnected)
        let told = events.all
        #expect(told.count == 1 && told.first?.cannotConnect == "Connection refused", "\(told)")
    }

    /// A broker with users: the right credentials connect and publish; a wrong password, or none,
    /// is refused, told once as an event with the broker's answer, and the client keeps trying
    /// without connecting (what it queued is left unsent).
    @Test(.timeLimit(.minutes(10))) func credentialsAreAcceptedOrRefusedWithTheRefusalAsAnEvent() throws {
        let broker = try MosquittoBroker(users: [("rider", "s3cret:pass")])
        let subscriber = try MQTTSubscriber(broker, topics: ["login/#"], arguments: ["-u", "rider", "-P", "s3cret:pass"])
        #expect(subscriber.waitUntilSubscribed(), "\(subscriber.output)")

        let events = Events()
        let client = try Self.client(port: broker.port, events, username: "rider", password: "s3cret:pass")
        #expect(events.waitFor { $0.contains { $0.connection != nil } }, "\(events.all)")
        client.publish(MQTTMessage(topic: "login/ok", text: "in", qos: .atLeastOnce))
        #expect(client.stop() == 0)
        #expect(subscriber.waitFor { $0.topic == "login/ok" && $0.payload == "in" }, "\(subscriber.output)")
        #expect(events.all.count == 1, "\(events.all)")

        let refusedLogins: [(username: String?, password: String?)] = [("rider", "wrong"), (nil, nil)]
        for (username, password) in refusedLogins {
            let refusedEvents = Events()
            let refused = try Self.client(port: broker.port, refusedEvents, username: username, password: password)
            #expect(refusedEvents.waitFor { !$0.isEmpty }, "\(refusedEvents.all)")
            refused.publish(MQTTMessage(topic: "login/refused", text: "out", qos: .atLeastOnce))
            // Past the attempt 1 s after the first: refused again, and not told again.
            Thread.sleep(forTimeInterval: 1.5)
            #expect(!refused.isConnected)
            #expect(refused.stop(within: .milliseconds(500)) == 1)
            let told = refusedEvents.all
            #expect(told.count == 1 && told.first?.cannotConnect == "Connection Refused: not authorised.", "\(username ?? "anonymous"): \(told)")
        }
        #expect(!subscriber.messages.contains { $0.topic == "login/refused" }, "\(subscriber.output)")
    }
}

extension MQTTClient.Event {
    /// A `connected` event's figures, else nil.
    var connection: (again: Bool, dropped: Int, notSent: Int, attempts: Int)? {
        guard case .connected(let again, let dropped, let notSent, let attempts, _) = self else { return nil }
        return (again, dropped, notSent, attempts)
    }

    var isConnectionLost: Bool {
        guard case .connectionLost = self else { return false }
        return true
    }

    /// A `cannotConnect` event's reason, else nil.
    var cannotConnect: String? {
        guard case .cannotConnect(let reason) = self else { return nil }
        return reason
    }
}
