import DBus
import Foundation
import SensorTestSupport
import Synchronization
import Testing

/// The binding against a real bus: a private dbus-daemon with the mock org.bluez (python-dbusmock),
/// whose Mock interface adds methods and emits signals on request.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct DBusConnectionTests {
    static let trace: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-\(UUID().uuidString).jsonl")
        try! #"{"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{}}"#
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }()

    static func mock(_ bus: DBusConnection, _ member: String, _ arguments: [DBusValue]) async throws {
        _ = try await bus.call(
            destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.Mock", member: member, arguments: arguments)
    }

    @Test func valuesSurviveARoundTrip() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        #expect(bus.uniqueName.hasPrefix(":"))
        try await Self.mock(bus, "AddMethod", [.string("org.sensorbridge.Test"), .string("Echo"), .string("v"), .string("v"), .string("ret = args[0]")])
        let values: [DBusValue] = [
            .byte(200), .bool(true), .bool(false), .int16(-300), .uint16(65000), .int32(-70000), .uint32(4_000_000_000),
            .int64(-1 << 40), .uint64(1 << 63), .double(-2.5), .string("héllo"), .objectPath("/org/bluez/hci0"),
            .signature("a{sv}"), .bytes([0x16, 0x48, 0x00, 0x03]), .bytes([]),
            .array(elementSignature: "s", [.string("a"), .string("b")]),
            .properties(["Powered": .bool(true), "Name": .string("hci0"), "RSSI": .int16(-60)]),
            .structure([.string("x"), .uint32(7)]),
        ]
        for value in values {
            let reply = try await bus.call(
                destination: "org.bluez", path: "/", interface: "org.sensorbridge.Test", member: "Echo",
                arguments: [.variant(value)])
            #expect(reply == [.variant(value)])
        }
    }

    @Test func unixFileDescriptorsPass() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        try await Self.mock(bus, "AddMethod", [.string("org.sensorbridge.Test"), .string("EchoFD"), .string("h"), .string("h"), .string("ret = args[0]")])
        let pipe = ChildLaunch.pipe()
        let sent = pipe.fileHandleForWriting.fileDescriptor
        let reply = try await bus.call(
            destination: "org.bluez", path: "/", interface: "org.sensorbridge.Test", member: "EchoFD", arguments: [.unixFD(sent)])
        guard case .unixFD(let received)? = reply.first else {
            Issue.record("no descriptor in \(reply)")
            return
        }
        // A duplicate of the pipe's write end: what is written through it comes out of the pipe.
        #expect(received != sent)
        let bytes: [UInt8] = [0x2A, 0x37]
        #expect(write(received, bytes, 2) == 2)
        close(received)
        // The mock may hold its own copy open, so read the two bytes rather than to the end.
        var back = [UInt8](repeating: 0, count: 2)
        #expect(read(pipe.fileHandleForReading.fileDescriptor, &back, 2) == 2)
        #expect(back == bytes)
    }

    @Test func errorsCarryTheirDBusName() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        await #expect(throws: DBusError.self) {
            _ = try await bus.call(destination: "org.example.Nobody", path: "/", interface: "org.example.I", member: "M")
        }
        do {
            _ = try await bus.call(destination: "org.example.Nobody", path: "/", interface: "org.example.I", member: "M")
        } catch {
            #expect(error.name == .serviceUnknown)
        }
        try await Self.mock(bus, "AddMethod", [
            .string("org.sensorbridge.Test"), .string("Busy"), .string(""), .string(""),
            .string("raise dbus.exceptions.DBusException('Operation already in progress', name='org.bluez.Error.InProgress')"),
        ])
        do {
            _ = try await bus.call(destination: "org.bluez", path: "/", interface: "org.sensorbridge.Test", member: "Busy")
            Issue.record("Busy did not fail")
        } catch {
            #expect(error == DBusError(.bluezInProgress, "Operation already in progress"))
        }
        try await Self.mock(bus, "AddMethod", [
            .string("org.sensorbridge.Test"), .string("Slow"), .string(""), .string(""), .string("import time; time.sleep(1)"),
        ])
        do {
            _ = try await bus.call(
                destination: "org.bluez", path: "/", interface: "org.sensorbridge.Test", member: "Slow",
                timeout: .milliseconds(100))
            Issue.record("Slow did not time out")
        } catch {
            #expect(error.name == .noReply)
        }
        #expect(throws: DBusError.self) { try DBusConnection(address: "unix:path=/nonexistent/bus") }
    }

    @Test func losingTheBusIsReportedOnceAndFailsCalls() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        let reports = Mutex(0)
        let lost = DispatchSemaphore(value: 0)
        bus.whenLost {
            reports.withLock { $0 += 1 }
            lost.signal()
        }
        mock.stopBus()
        #expect(lost.wait(timeout: .now() + 10) == .success)
        // A handler added after the loss is called at once.
        bus.whenLost { reports.withLock { $0 += 1 } }
        #expect(reports.withLock { $0 } == 2)
        do {
            _ = try await bus.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetId", timeout: .seconds(5))
            Issue.record("a call on a lost connection answered")
        } catch {
            #expect(error.name == .disconnected)
        }
    }

    @Test func signalMatchesDeliverOnlyWhatTheyMatch() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        let received = Mutex<[DBusSignal]>([])
        let arrived = DispatchSemaphore(value: 0)
        let token = bus.addMatch(DBusMatchRule(interface: "org.sensorbridge.Test", member: "Ping", pathPrefix: "/")) { signal in
            received.withLock { $0.append(signal) }
            arrived.signal()
        }
        for member in ["Other", "Ping"] {
            try await Self.mock(bus, "EmitSignal", [
                .string("org.sensorbridge.Test"), .string(member), .string("say"),
                .array(elementSignature: "v", [.variant(.string(member)), .variant(.bytes([1, 2]))]),
            ])
        }
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        let signals = received.withLock { $0 }
        #expect(signals.map(\.member) == ["Ping"])
        #expect(signals.first?.arguments == [.string("Ping"), .bytes([1, 2])])
        #expect(signals.first?.path == "/")
        bus.removeMatch(token)
    }

    /// `watchByteProperty` takes exactly the PropertiesChanged signals whose only change is the
    /// watched byte array, with the bytes a plain signal handler decodes from the same signal (on a
    /// second connection that watches nothing); every other PropertiesChanged reaches the handlers.
    @Test func byteWatchesTakeOnlyTheirPropertyAndGiveTheGenericBytes() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        let plain = try DBusConnection(address: mock.address)
        defer { plain.close() }
        let watched = Mutex<[[UInt8]]>([])
        let handled = Mutex<[DBusSignal]>([])
        let decoded = Mutex<[DBusSignal]>([])
        let rule = DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", pathPrefix: "/")
        bus.addMatch(rule) { signal in handled.withLock { $0.append(signal) } }
        plain.addMatch(rule) { signal in decoded.withLock { $0.append(signal) } }
        // The bus daemon answers a call on `plain` after the AddMatch sent before it: from then on
        // `plain` gets every signal (`bus` emits through calls of its own, after its AddMatch).
        _ = try await plain.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId", timeout: .seconds(5))
        let characteristic = "org.bluez.GattCharacteristic1"
        let token = bus.watchByteProperty(path: "/", interface: characteristic, property: "Value") { bytes in
            watched.withLock { $0.append(bytes) }
        }
        // Another object's watch must not take the signals of "/".
        bus.watchByteProperty(path: "/org/bluez/hci0", interface: characteristic, property: "Value") { _ in
            Issue.record("the watch of another path was called")
        }
        func emit(_ interface: String, _ changed: [String: DBusValue], invalidated: [String] = []) async throws {
            try await Self.mock(bus, "EmitSignal", [
                .string("org.freedesktop.DBus.Properties"), .string("PropertiesChanged"), .string("sa{sv}as"),
                .array(elementSignature: "v", [
                    .variant(.string(interface)), .variant(.properties(changed)),
                    .variant(.array(elementSignature: "s", invalidated.map { .string($0) })),
                ]),
            ])
        }
        try await emit(characteristic, ["Value": .bytes([0x16, 0x48, 0x00, 0x03])])
        try await emit(characteristic, ["Value": .bytes([])])
        try await emit(characteristic, ["Value": .bytes([0x01]), "Notifying": .bool(true)])
        try await emit(characteristic, ["Value": .bytes([0x02])], invalidated: ["Flags"])
        try await emit("org.bluez.GattDescriptor1", ["Value": .bytes([0x03])])
        try await emit(characteristic, ["Notifying": .bool(false)])
        try await emit(characteristic, ["Value": .string("not bytes")])
        try await emit(characteristic, ["Value": .bytes(Array(0...255))])
        bus.unwatch(token)
        // Sent after the unwatch (the connection keeps the order): goes to the handlers.
        try await emit(characteristic, ["Value": .bytes([0x04])])
        let deadline = ContinuousClock.now + .seconds(10)
        while decoded.withLock({ $0.count }) < 9 || handled.withLock({ $0.count }) < 6, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let all = decoded.withLock { $0 }
        try #require(all.count == 9)
        let genericBytes = all.map { $0.arguments[1].dictionary?["Value"]?.bytes }
        #expect(watched.withLock { $0 } == [genericBytes[0]!, genericBytes[1]!, genericBytes[7]!])
        #expect(watched.withLock { $0 } == [[0x16, 0x48, 0x00, 0x03], [], Array(0...255)])
        // The others, in order, as the plain connection decoded them.
        #expect(handled.withLock { $0.map(\.arguments) } == [2, 3, 4, 5, 6, 8].map { all[$0].arguments })
    }

    @Test func exportedObjectsAnswerMethodCallsAndErrors() async throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let server = try DBusConnection(address: mock.address)
        defer { server.close() }
        let client = try DBusConnection(address: mock.address)
        defer { client.close() }
        let calls = Mutex<[DBusMethodCall]>([])
        try server.export("/org/sensorbridge/test") { call in
            calls.withLock { $0.append(call) }
            switch call.member {
            case "Echo": return .success(call.arguments)
            case "Refuse": return .failure(DBusError(.bluezRejected, "not this one"))
            default: return .failure(DBusError(.unknownMethod, "no \(call.member)"))
            }
        }
        #expect(throws: DBusError.self) { try server.export("/org/sensorbridge/test") { _ in .success([]) } }
        func call(_ path: String, _ member: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
            try await client.call(
                destination: server.uniqueName, path: path, interface: "org.sensorbridge.Test", member: member,
                arguments: arguments, timeout: .seconds(10))
        }
        let arguments: [DBusValue] = [.objectPath("/org/bluez/hci0/dev_C4_7E_11_22_33_44"), .uint32(123_456)]
        #expect(try await call("/org/sensorbridge/test", "Echo", arguments) == arguments)
        let first = try #require(calls.withLock { $0.first })
        #expect(first.sender == client.uniqueName && first.interface == "org.sensorbridge.Test" && first.arguments == arguments)
        await #expect(throws: DBusError(.bluezRejected, "not this one")) { try await call("/org/sensorbridge/test", "Refuse") }
        // Another path: libdbus answers UnknownMethod without asking the handler.
        await #expect(throws: DBusError.self) { try await call("/org/sensorbridge/other", "Echo") }
        do {
            _ = try await call("/org/sensorbridge/other", "Echo")
        } catch {
            #expect(error.name == .unknownMethod)
        }
        server.unexport("/org/sensorbridge/test")
        do {
            _ = try await call("/org/sensorbridge/test", "Echo")
            Issue.record("an unexported path answered")
        } catch {
            #expect(error.name == .unknownMethod)
        }
        #expect(calls.withLock { $0.count } == 2)
    }

    /// A connection to the mock's bus and a packet socket pair: `ours` for `readPackets`, `theirs`
    /// for the test to send on and close.
    private func withPacketSocket(_ body: (_ bus: DBusConnection, _ ours: Int32, _ theirs: Int32) throws -> Void) throws {
        let mock = try MockBlueZ(trace: Self.trace)
        defer { mock.stop() }
        let bus = try DBusConnection(address: mock.address)
        defer { bus.close() }
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        try body(bus, ends[0], ends[1])
    }

    /// The bytes of a packet event; nil for the end.
    private static func bytes(_ event: DBusConnection.PacketEvent) -> [UInt8]? {
        if case .packet(let bytes, _) = event { bytes } else { nil }
    }

    @Test func packetSocketsAreReadOneValueAPacketUntilClosed() throws {
        try withPacketSocket { bus, ours, theirs in
            let received = Mutex<[[UInt8]?]>([])
            let finished = DispatchSemaphore(value: 0)
            bus.readPackets(from: ours) { event in
                received.withLock { $0.append(Self.bytes(event)) }
                if case .closed = event { finished.signal() }
            }
            let packets: [[UInt8]] = [[0x06, 0x78], [0x20, 0x00, 0xC8, 0x00, 0x0A, 0x00, 0x00, 0x04], Array(repeating: 0xAB, count: 244)]
            for packet in packets { #expect(send(theirs, packet, packet.count, 0) == packet.count) }
            close(theirs)
            #expect(finished.wait(timeout: .now() + 10) == .success)
            #expect(received.withLock { $0 } == packets.map { Optional($0) } + [nil])
        }
    }

    @Test func performRunsOnTheDispatchThreadAndReadWaitingPacketsDeliversAtOnce() throws {
        try withPacketSocket { bus, ours, theirs in
            defer { close(theirs) }
            let received = Mutex<[[UInt8]?]>([])
            bus.readPackets(from: ours) { event in received.withLock { $0.append(Self.bytes(event)) } }
            let done = DispatchSemaphore(value: 0)
            let seen = Mutex<(thread: String?, before: Int, after: Int)>((nil, -1, -1))
            bus.perform {
                // On the dispatch thread its loop cannot have read these yet: only the call below can.
                for value: UInt8 in [1, 2, 3] { _ = withUnsafeBytes(of: value) { send(theirs, $0.baseAddress, 1, 0) } }
                let before = received.withLock { $0.count }
                bus.readWaitingPackets(ours)
                let after = received.withLock { $0.count }
                seen.withLock { $0 = (Thread.current.name, before, after) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(seen.withLock { $0.thread } == "sb.dbus")
            #expect(seen.withLock { $0.before } == 0)
            #expect(seen.withLock { $0.after } == 3)
            #expect(received.withLock { $0 } == [[1], [2], [3]])
        }
    }

    /// A socket handed over while the dispatch thread is busy (an `AcquireNotify` reply answered on
    /// another thread, and a signal of the link's loss dispatched with it) is read by
    /// `readWaitingPackets` in that same turn: its values are not lost when the handler then stops
    /// reading it.
    @Test func aSocketHandedOverDuringATurnIsReadByReadWaitingPacketsInIt() throws {
        try withPacketSocket { bus, ours, theirs in
            defer { close(theirs) }
            let received = Mutex<[[UInt8]?]>([])
            let handedOver = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            bus.perform {
                // The dispatch thread is held in this turn while another thread hands the socket over.
                #expect(handedOver.wait(timeout: .now() + 10) == .success)
                bus.readWaitingPackets(ours)
                bus.stopReading(ours)
                done.signal()
            }
            for value: UInt8 in [1, 2, 3] { _ = withUnsafeBytes(of: value) { send(theirs, $0.baseAddress, 1, 0) } }
            bus.readPackets(from: ours) { event in received.withLock { $0.append(Self.bytes(event)) } }
            handedOver.signal()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(received.withLock { $0 } == [[1], [2], [3]])
        }
    }

    @Test func afterEachTurnRunsTheFirstHandlersBeforeTheOthers() throws {
        try withPacketSocket { bus, ours, theirs in
            defer { close(theirs) }
            bus.readPackets(from: ours) { _ in }
            let ran = Mutex<[String]>([])
            // The handlers of the first turn that ran all three.
            let fullTurn = Mutex<[String]?>(nil)
            let ended = DispatchSemaphore(value: 0)
            // Registered in this order; the relay's (first) runs before the ring's publish.
            bus.afterEachTurn { ran.withLock { $0.append("publish") } }
            bus.afterEachTurn(first: true) { ran.withLock { $0.append("relay") } }
            bus.afterEachTurn {
                let turn = ran.withLock { ran in
                    ran.append("last")
                    return Array(ran.suffix(3))
                }
                let isFirst = fullTurn.withLock { seen in
                    defer { seen = seen ?? turn }
                    return seen == nil
                }
                if isFirst { ended.signal() }
            }
            #expect(send(theirs, [0x06, 0x78], 2, 0) == 2)
            #expect(ended.wait(timeout: .now() + 10) == .success)
            #expect(fullTurn.withLock { $0 } == ["relay", "publish", "last"])
        }
    }

    @Test func aPacketReadLateKeepsTheTimeTheKernelReceivedIt() throws {
        try withPacketSocket { bus, ours, theirs in
            defer { close(theirs) }
            let received = Mutex<[ContinuousClock.Instant]>([])
            bus.readPackets(from: ours) { event in
                if case .packet(_, let at) = event { received.withLock { $0.append(at) } }
            }
            let done = DispatchSemaphore(value: 0)
            let times = Mutex<(sent: ContinuousClock.Instant, read: ContinuousClock.Instant)?>(nil)
            bus.perform {
                // The dispatch thread is held here, so the packet waits in the socket for 200 ms.
                let sent = ContinuousClock.now
                _ = withUnsafeBytes(of: UInt8(7)) { send(theirs, $0.baseAddress, 1, 0) }
                Thread.sleep(forTimeInterval: 0.2)
                let read = ContinuousClock.now
                bus.readWaitingPackets(ours)
                times.withLock { $0 = (sent, read) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            let (sent, read) = try #require(times.withLock { $0 })
            let at = try #require(received.withLock { $0.first })
            // Stamped by the kernel on arrival, not when read 200 ms later (the clocks' conversion
            // costs microseconds; the margin is 100 ms).
            #expect(at > sent - .milliseconds(100) && at < read - .milliseconds(100), "\(at - sent) after the send")
        }
    }

    /// Packets that waited in the socket before it was asked for receive times (an AcquireNotify
    /// socket whose first values came with its reply) are stamped by the kernel when read, which
    /// would put them after values that came later; they take the time of the asking instead, no
    /// later than they came, and keep their place before the later ones.
    @Test func packetsThatWaitedBeforeReceiveTimesWereAskedForKeepTheirPlace() throws {
        try withPacketSocket { bus, ours, theirs in
            defer { close(theirs) }
            let received = Mutex<[(value: UInt8, at: ContinuousClock.Instant)]>([])
            let done = DispatchSemaphore(value: 0)
            let asked = ContinuousClock.now
            for value: UInt8 in [1, 2, 3] { _ = withUnsafeBytes(of: value) { send(theirs, $0.baseAddress, 1, 0) } }
            let registered = DispatchSemaphore(value: 0)
            bus.perform {
                // The socket is asked for receive times here; it is read only after this job, which
                // holds the dispatch thread while 4 and 5 come: all five are read together, 1-3
                // (which waited before the asking) stamped by that read.
                bus.readPackets(from: ours) { event in
                    if case .packet(let bytes, let at) = event { received.withLock { $0.append((bytes[0], at)) } }
                    if received.withLock({ $0.count }) == 5 { done.signal() }
                }
                registered.signal()
                Thread.sleep(forTimeInterval: 0.2)
            }
            #expect(registered.wait(timeout: .now() + 10) == .success)
            let sent = ContinuousClock.now
            for value: UInt8 in [4, 5] { _ = withUnsafeBytes(of: value) { send(theirs, $0.baseAddress, 1, 0) } }
            #expect(done.wait(timeout: .now() + 10) == .success)
            let got = received.withLock { $0 }
            #expect(got.map(\.value) == [1, 2, 3, 4, 5])
            #expect(zip(got, got.dropFirst()).allSatisfy { $0.at <= $1.at }, "\(got.map { $0.at - asked })")
            // The early ones take the asking's time, before 4 and 5 came, not the read's, 200 ms later.
            #expect(got.prefix(3).allSatisfy { $0.at < sent + .milliseconds(100) }, "\(got.map { $0.at - asked })")
        }
    }

    @Test func packetsStreamingInAreReadInBatchesInOrderWithTheirTimes() throws {
        try withPacketSocket { bus, ours, theirs in
            defer { close(theirs) }
            bus.batchPackets(within: .milliseconds(20))
            let received = Mutex<[(value: UInt8, at: ContinuousClock.Instant, deliveredAt: ContinuousClock.Instant)]>([])
            bus.readPackets(from: ours) { event in
                if case .packet(let bytes, let at) = event { received.withLock { $0.append((bytes[0], at, .now)) } }
            }
            // 150 at once (more than one recvmmsg call takes), then a stream of 100, one every
            // millisecond, then one more after a pause.
            for value in 0 ..< 150 { _ = withUnsafeBytes(of: UInt8(value)) { send(theirs, $0.baseAddress, 1, 0) } }
            for value in 150 ..< 250 {
                _ = withUnsafeBytes(of: UInt8(value)) { send(theirs, $0.baseAddress, 1, 0) }
                Thread.sleep(forTimeInterval: 0.001)
            }
            Thread.sleep(forTimeInterval: 0.1)
            _ = withUnsafeBytes(of: UInt8(250)) { send(theirs, $0.baseAddress, 1, 0) }
            let deadline = ContinuousClock.now + .seconds(10)
            while received.withLock({ $0.count }) < 251, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            let packets = received.withLock { $0 }
            #expect(packets.map(\.value) == (0 ..< 251).map { UInt8($0) })
            #expect(zip(packets, packets.dropFirst()).allSatisfy { $0.at <= $1.at }, "receive times in order")
            #expect(packets.allSatisfy { $0.at <= $0.deliveredAt })
        }
    }
}
