import BlueZ
import DBus
import Foundation
import SensorTestSupport
import Testing

/// The pairing agent: its answers, and bonding through it against the mock org.bluez, whose Pair
/// of a device that asks for bonding calls the default agent, and fails without one.
@Suite(.serialized, .enabled(if: MockBlueZ.unavailableReason == nil, "\(MockBlueZ.unavailableReason ?? "")"))
struct PairingAgentTests {
    static let strap = "/org/bluez/hci0/dev_C4_7E_11_22_33_44"
    static let meter = "/org/bluez/hci0/dev_E8_FE_6E_91_9F_16"

    static func trace() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString).jsonl")
        try """
        {"sensorbridge":"trace","version":1,"start":"2026-11-02T17:30:00Z","devices":{"hr":{"name":"HRM-Pro","address":"C4:7E:11:22:33:44"},"power":{"name":"Assioma","address":"E8:FE:6E:91:9F:16"}}}
        {"t":0,"device":"hr","uuid":"2a37","hex":"0678"}
        {"t":0,"device":"power","uuid":"2a63","hex":"0000c800"}

        """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func call(_ member: String, _ arguments: [DBusValue], sender: String = ":1.1") -> Result<[DBusValue], DBusError> {
        PairingAgent.answer(
            DBusMethodCall(sender: sender, path: PairingAgent.path, interface: PairingAgent.interface, member: member, arguments: arguments),
            device: strap, bluez: ":1.1")
    }

    @Test func theAgentAcceptsItsDeviceOnlyAndFromBlueZOnly() {
        #expect(throws: Never.self) { try Self.call("RequestAuthorization", [.objectPath(Self.strap)]).get() }
        #expect(throws: Never.self) { try Self.call("RequestConfirmation", [.objectPath(Self.strap), .uint32(123_456)]).get() }
        #expect(throws: Never.self) {
            try Self.call("AuthorizeService", [.objectPath(Self.strap), .string("0000180d-0000-1000-8000-00805f9b34fb")]).get()
        }
        #expect(throws: Never.self) { try Self.call("Cancel", []).get() }
        #expect(throws: Never.self) { try Self.call("Release", []).get() }
        for refused in [
            Self.call("RequestAuthorization", [.objectPath(Self.meter)]),
            Self.call("RequestPasskey", [.objectPath(Self.strap)]),
            Self.call("RequestAuthorization", [.objectPath(Self.strap)], sender: ":1.99"),
        ] {
            #expect(throws: DBusError.self) { try refused.get() }
            if case .failure(let error) = refused { #expect(error.name == .bluezRejected) }
        }
        if case .failure(let error) = Self.call("Frobnicate", []) { #expect(error.name == .unknownMethod) } else {
            Issue.record("an unknown agent method was accepted")
        }
    }

    /// Pairs `path`; nil when it worked, else BlueZ's error.
    static func pair(_ client: BlueZClient, _ path: String) -> DBusError? {
        do {
            try client.call(path, BlueZClient.deviceInterface, "Pair")
            return nil
        } catch {
            guard case .dbus(let reply) = error else { return DBusError(.failed, "\(error)") }
            return reply
        }
    }

    @Test func bondingGoesThroughTheRegisteredAgentAndFailsWithoutOne() throws {
        let mock = try MockBlueZ(trace: try Self.trace(), bonding: ["hr", "power"])
        defer { mock.stop() }
        let client = try BlueZClient(environment: mock.environment)
        defer { client.bus.close() }
        // No agent: BlueZ cannot ask anyone, pairing fails.
        #expect(Self.pair(client, Self.strap)?.name == .bluezAuthenticationFailed)

        let agent = try PairingAgent(client: client, device: Self.strap)
        #expect(Self.pair(client, Self.strap) == nil)
        #expect(mock.printed("bonded \(Self.strap)"))
        // The agent refuses another device: BlueZ reports the rejection.
        let refused = Self.pair(client, Self.meter)
        #expect(refused?.name == .bluezAuthenticationRejected)
        #expect(refused?.message.contains("org.bluez.Error.Rejected") == true)
        agent.unregister()
        // Unregistered: no agent again.
        #expect(Self.pair(client, Self.meter)?.name == .bluezAuthenticationFailed)
        // Registering again works (the path was given back), and the meter bonds through it.
        let again = try PairingAgent(client: client, device: Self.meter)
        defer { again.unregister() }
        #expect(Self.pair(client, Self.meter) == nil)
        #expect(mock.printed("bonded \(Self.meter)"))
    }
}
