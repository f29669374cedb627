import CMosquitto
import Foundation
import SensorCore
import Synchronization

/// Where and how to connect: the broker, TLS, credentials, and the availability topic.
public struct MQTTConnectionOptions: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// TLS, verifying the broker's certificate against the CA certificates in `caPath`.
    public var tls: Bool
    /// A folder of CA certificates hashed as OpenSSL wants them (Debian's `/etc/ssl/certs`).
    public var caPath: String
    public var username: String?
    public var password: String?
    /// Unique per connection: a broker drops the older of two clients with the same id.
    public var clientID: String
    /// Seconds between pings while nothing else is sent; a broker that hears nothing for 1.5 times
    /// this publishes the will.
    public var keepAlive: Int
    /// `online` is published there (retained) on every connection, `offline` on a clean stop, and
    /// the broker publishes `offline` (the will) when the connection is lost.
    public var availabilityTopic: String?

    public init(
        host: String, port: Int, tls: Bool = false, caPath: String = "/etc/ssl/certs", username: String? = nil,
        password: String? = nil, clientID: String, keepAlive: Int = 30, availabilityTopic: String? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caPath = caPath
        self.username = username
        self.password = password
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.availabilityTopic = availabilityTopic
    }
}

/// An MQTT client that publishes from any thread without ever waiting for the network.
///
/// One thread of its own (`sb.mqtt`) makes every libmosquitto call: it connects, runs
/// `mosquitto_loop`, reconnects after a loss (1 s, doubling up to `maximumReconnectDelay`), and
/// sends what `publish` queued, in order. While the broker is away:
/// - QoS 0 messages are not sent (they are live values the next one replaces) and are counted;
/// - QoS 1 messages wait in a bounded queue (`queueCapacity`; the oldest are dropped first, and
///   counted) and go out, in order, once connected again, after those libmosquitto itself sends
///   again (the ones it had sent without an acknowledgement);
/// - a retained message only replaces the last one of its topic: the latest retained message of
///   every topic is published again on each connection, so a broker that restarted without
///   persistence has them back.
/// At most `maximumInFlight` QoS 1 messages are handed to libmosquitto unacknowledged, so its own
/// queue is bounded too. Connection changes are told through `onEvent`, from the client's thread.
public final class MQTTClient: Sendable {
    /// What the client tells its owner, one event per change: a broker that stays away is told
    /// once when it goes (or when the first connection fails) and once when it is back, never at
    /// the attempts between.
    public enum Event: Sendable, Equatable {
        /// Connected (`again` after a loss), at the `attempts`th attempt since the start or the loss,
        /// `away` after it; `dropped` QoS 1 messages were dropped from the full queue and `notSent`
        /// QoS 0 messages were not sent while it was away.
        case connected(again: Bool, dropped: Int, notSent: Int, attempts: Int, away: Duration)
        /// The connection was lost; reconnecting.
        case connectionLost(reason: String)
        /// The first attempt to connect failed (refused, unreachable, a TLS error, credentials
        /// refused); trying again.
        case cannotConnect(reason: String)
    }

    public let options: MQTTConnectionOptions
    public let queueCapacity: Int
    public static let maximumInFlight = 64
    public static let maximumReconnectDelay = Duration.seconds(10)

    private let outbox: Mutex<Outbox>
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let handle: Handle

    struct Outbox {
        /// What waits to be sent, in publish order.
        var pending: [MQTTMessage] = []
        /// The latest retained message of each topic, with its order of publication.
        var retained: [String: (order: Int, message: MQTTMessage)] = [:]
        var order = 0
        var connected = false
        var dropped = 0
        var notSent = 0
        /// Set by `stop`: send what waits until then, then disconnect.
        var stopDeadline: ContinuousClock.Instant?
    }

    /// Creates the client and starts its thread, which connects at once and keeps trying until `stop`
    /// (the thread keeps the client: call `stop`).
    public init(
        _ options: MQTTConnectionOptions, queueCapacity: Int = 1024, onEvent: @escaping @Sendable (Event) -> Void
    ) throws(MQTTError) {
        self.options = options
        self.queueCapacity = max(queueCapacity, 1)
        outbox = Mutex(Outbox())
        handle = try Handle(options)
        let thread = Thread { [self] in
            Thread.nameCurrent("sb.mqtt")
            run(onEvent)
            finished.signal()
        }
        thread.start()
    }

    /// Queues `message` and returns at once; the client's thread sends it (see the type's rules).
    public func publish(_ message: MQTTMessage) {
        outbox.withLock { o in
            if message.retain {
                o.order += 1
                o.retained[message.topic] = (o.order, message)
                guard o.connected else { return }
            } else if !o.connected {
                guard message.qos == .atLeastOnce else {
                    o.notSent += 1
                    return
                }
            }
            if o.pending.count >= queueCapacity {
                let oldest = o.pending.removeFirst()
                if oldest.qos == .atLeastOnce { o.dropped += 1 } else { o.notSent += 1 }
            }
            o.pending.append(message)
        }
    }

    /// Whether the broker has accepted the connection and it is up.
    public var isConnected: Bool { outbox.withLock { $0.connected } }

    /// Publishes `offline` on the availability topic, sends what waits (while connected, for up to
    /// `timeout`), disconnects and ends the thread. Returns how many QoS 1 messages were not
    /// delivered (dropped, still queued or unacknowledged).
    @discardableResult
    public func stop(within timeout: Duration = .seconds(2)) -> Int {
        if let topic = options.availabilityTopic {
            publish(MQTTMessage(topic: topic, text: "offline", qos: .atLeastOnce, retain: true))
        }
        outbox.withLock { $0.stopDeadline = $0.stopDeadline ?? .now + timeout }
        wake.signal()
        // A connection attempt blocked on an unreachable host may outlast this; the thread is then
        // left to end by itself (it owns what it uses).
        if finished.wait(timeout: .now() + (timeout + .seconds(3)).secondsValue) == .success {
            finished.signal()  // for a second stop
        }
        return handle.undelivered.load(ordering: .relaxed)
    }

    /// The client's thread.
    private func run(_ onEvent: @Sendable (Event) -> Void) {
        let loop = handle.loop
        var attempted = false
        var retryAt = ContinuousClock.now
        var delay = Duration.seconds(1)
        // Since the start or the loss: attempts made, when it began, and whether a failure was told.
        var attempts = 0
        var awaySince = ContinuousClock.now
        var toldFailure = false
        var wasConnected = false
        var socketOpen = false
        var sentSnapshot = false

        func lost(_ reason: String) {
            let was = outbox.withLock { o -> Bool in
                defer { o.connected = false }
                // Their topics' latest values go out from the snapshot on the next connection.
                o.pending.removeAll { $0.retain }
                return o.connected
            }
            socketOpen = false
            sentSnapshot = false
            loop.connected = false
            loop.awaitingConnack = false
            retryAt = .now + delay
            delay = min(delay * 2, Self.maximumReconnectDelay)
            // Only the first failure is told: the attempts after it fail for alternating reasons
            // (refused, then "lost" for a socket that never connected), which say nothing new.
            if was {
                onEvent(.connectionLost(reason: reason))
                (attempts, awaySince, toldFailure) = (0, .now, true)
            } else if !toldFailure {
                onEvent(.cannotConnect(reason: reason))
                toldFailure = true
            }
        }

        while true {
            let (deadline, waiting) = outbox.withLock { ($0.stopDeadline, $0.pending.count) }
            if let deadline {
                if !loop.connected || (waiting == 0 && loop.unacknowledged.isEmpty) || ContinuousClock.now >= deadline {
                    break
                }
            }
            if !socketOpen {
                if ContinuousClock.now >= retryAt {
                    let result = attempted ? handle.reconnect() : handle.connect()
                    attempted = true
                    attempts += 1
                    switch result {
                    case .success:
                        socketOpen = true
                        loop.awaitingConnack = true
                    case .failure(let error):
                        lost(error.description)
                    }
                } else {
                    _ = wake.wait(timeout: .now() + min((retryAt - .now).secondsValue, 0.05))
                    continue
                }
            }
            let result = handle.loopOnce(timeoutMilliseconds: 50)
            if let refused = loop.refused {
                loop.refused = nil
                handle.disconnect()
                lost(refused.description)
                continue
            }
            if case .failure(let error) = result {
                lost(error.description)
                continue
            }
            if loop.connected && !sentSnapshot {
                sentSnapshot = true
                delay = .seconds(1)
                let (snapshot, dropped, notSent) = outbox.withLock { o in
                    o.connected = true
                    defer { (o.dropped, o.notSent) = (0, 0) }
                    return (o.retained.values.sorted { $0.order < $1.order }.map(\.message), o.dropped, o.notSent)
                }
                if let topic = options.availabilityTopic {
                    handle.send(MQTTMessage(topic: topic, text: "online", qos: .atLeastOnce, retain: true))
                }
                for message in snapshot where message.topic != options.availabilityTopic { handle.send(message) }
                onEvent(
                    .connected(
                        again: wasConnected, dropped: dropped, notSent: notSent, attempts: attempts,
                        away: .now - awaySince))
                wasConnected = true
                (attempts, toldFailure) = (0, false)
            }
            if loop.connected { sendPending() }
        }
        let undelivered = outbox.withLock { o in
            o.dropped + o.pending.filter { $0.qos == .atLeastOnce }.count
        } + loop.unacknowledged.count
        handle.undelivered.store(undelivered, ordering: .relaxed)
        if loop.connected { handle.disconnect() }
        outbox.withLock { $0.connected = false }
    }

    /// Hands what waits to libmosquitto, in order, up to `maximumInFlight` unacknowledged QoS 1 messages.
    private func sendPending() {
        let loop = handle.loop
        while true {
            let next = outbox.withLock { o -> MQTTMessage? in
                guard let first = o.pending.first else { return nil }
                if first.qos == .atLeastOnce && loop.unacknowledged.count >= Self.maximumInFlight { return nil }
                return o.pending.removeFirst()
            }
            guard let next else { return }
            handle.send(next)
        }
    }
}

/// What libmosquitto's callbacks tell the client's thread; touched only on that thread (the
/// callbacks run inside `mosquitto_loop`, on it).
final class LoopState {
    var connected = false
    var awaitingConnack = false
    /// A broker's refusal of the connection (CONNACK), to be reported and retried.
    var refused: MQTTError?
    /// The message ids of QoS 1 messages not yet acknowledged.
    var unacknowledged = Set<Int32>()
}

/// The `struct mosquitto *` and its callbacks: made on the creating thread, then used only on the
/// client's thread, and destroyed when the last of them lets go.
///
/// `@unchecked Sendable`: libmosquitto is called from one thread at a time (the client's, once
/// it has started); `undelivered` is atomic.
final class Handle: @unchecked Sendable {
    private let mosquitto: OpaquePointer
    let loop = LoopState()
    let undelivered = Atomic<Int>(0)
    private let options: MQTTConnectionOptions

    private static let library: Int32 = mosquitto_lib_init()

    init(_ options: MQTTConnectionOptions) throws(MQTTError) {
        _ = Self.library
        self.options = options
        guard let mosquitto = mosquitto_new(options.clientID, true, nil) else {
            throw MQTTError("mosquitto_new", code: MOSQ_ERR_ERRNO.rawValue, errno: errno)
        }
        self.mosquitto = mosquitto
        mosquitto_user_data_set(mosquitto, Unmanaged.passUnretained(loop).toOpaque())
        mosquitto_connect_callback_set(mosquitto) { _, context, code in
            let loop = Unmanaged<LoopState>.fromOpaque(context!).takeUnretainedValue()
            loop.awaitingConnack = false
            if code == 0 { loop.connected = true } else { loop.refused = MQTTError(connack: code) }
        }
        mosquitto_publish_callback_set(mosquitto) { _, context, mid in
            Unmanaged<LoopState>.fromOpaque(context!).takeUnretainedValue().unacknowledged.remove(mid)
        }
        var result: Int32
        if let username = options.username {
            result = mosquitto_username_pw_set(mosquitto, username, options.password)
            guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("mosquitto_username_pw_set", code: result) }
        }
        if let topic = options.availabilityTopic {
            result = mosquitto_will_set(mosquitto, topic, 7, "offline", 1, true)
            guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("mosquitto_will_set", code: result) }
        }
        if options.tls {
            result = mosquitto_tls_set(mosquitto, nil, options.caPath, nil, nil, nil)
            guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("mosquitto_tls_set", code: result) }
        }
    }

    deinit { mosquitto_destroy(mosquitto) }

    /// The corresponding C function is `mosquitto_connect` (blocking: resolves and connects).
    func connect() -> Result<Void, MQTTError> {
        check("mosquitto_connect") { mosquitto_connect(mosquitto, options.host, Int32(options.port), Int32(options.keepAlive)) }
    }

    /// The corresponding C function is `mosquitto_reconnect`.
    func reconnect() -> Result<Void, MQTTError> {
        check("mosquitto_reconnect") { mosquitto_reconnect(mosquitto) }
    }

    /// The corresponding C function is `mosquitto_loop`: waits up to `timeoutMilliseconds` for the
    /// socket, reads and writes what it can, pings, and calls the callbacks.
    func loopOnce(timeoutMilliseconds: Int32) -> Result<Void, MQTTError> {
        check("mosquitto_loop") { mosquitto_loop(mosquitto, timeoutMilliseconds, 1) }
    }

    /// The corresponding C function is `mosquitto_disconnect`.
    func disconnect() {
        _ = mosquitto_disconnect(mosquitto)
        loop.connected = false
    }

    /// The corresponding C function is `mosquitto_publish`. A QoS 1 message it took is tracked until
    /// acknowledged; libmosquitto keeps it (and sends it again after a reconnection) even when
    /// the socket has just failed (`MOSQ_ERR_NO_CONN`, `MOSQ_ERR_CONN_LOST`).
    func send(_ message: MQTTMessage) {
        var mid: Int32 = 0
        let result = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(
                mosquitto, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, message.qos.rawValue, message.retain)
        }
        let kept = [MOSQ_ERR_SUCCESS.rawValue, MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue].contains(result)
        if message.qos == .atLeastOnce && kept { loop.unacknowledged.insert(mid) }
    }

    private func check(_ function: String, _ call: () -> Int32) -> Result<Void, MQTTError> {
        let result = call()
        let error = errno
        return result == MOSQ_ERR_SUCCESS.rawValue ? .success(()) : .failure(MQTTError(function, code: result, errno: error))
    }
}

extension Duration {
    /// The duration in seconds, for `DispatchTime` arithmetic.
    fileprivate var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
