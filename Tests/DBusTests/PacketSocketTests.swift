import DBus
import Foundation
import Testing

/// The packet sockets a GATT server hands over for `AcquireNotify`, as the relay sends on them.
@Suite struct PacketSocketTests {
    /// What is received on the other end: each packet whole, in order.
    static func receive(_ fd: Int32, count: Int) -> [[UInt8]] {
        (0..<count).map { _ in
            var buffer = [UInt8](repeating: 0, count: 512)
            let length = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return length < 0 ? [] : Array(buffer[..<length])
        }
    }

    @Test func eachValueIsOnePacketInOrderAndAFullOrClosedSocketTakesNone() throws {
        let pair = try #require(DBusConnection.packetSocketPair())
        defer { close(pair.ours) }
        // One value (a turn's usual), then several in one call.
        let heartRate: [UInt8] = [0x16, 0x48, 0x10, 0x03]
        #expect(DBusConnection.sendPackets([heartRate], on: pair.ours) == 1)
        #expect(Self.receive(pair.theirs, count: 1) == [heartRate])
        let power: [[UInt8]] = (0..<70).map { [0x20, 0x00, UInt8($0), 0x01, UInt8($0 & 0x0F)] }
        #expect(DBusConnection.sendPackets(power, on: pair.ours) == 70, "past the 64 of one sendmmsg")
        #expect(Self.receive(pair.theirs, count: 70) == power)
        // A reader that does not read: its buffer fills, and then a value is not taken, alone or
        // with others (counted by the caller as not relayed), without waiting.
        var sent = 0
        while DBusConnection.sendPackets([heartRate], on: pair.ours) == 1 {
            sent += 1
            try #require(sent < 1_000_000)
        }
        #expect(sent > 0)
        #expect(DBusConnection.sendPackets([heartRate], on: pair.ours) == 0)
        #expect(DBusConnection.sendPackets([heartRate, heartRate], on: pair.ours) == 0)
        // The reader gone: nothing is taken, and no SIGPIPE ends the process.
        close(pair.theirs)
        #expect(DBusConnection.sendPackets([heartRate], on: pair.ours) == 0)
        #expect(DBusConnection.sendPackets(power, on: pair.ours) == 0)
    }
}
