import Session
import Testing

/// `--reencode`: what the relay sends for each measurement, byte by byte, against the GATT
/// specification supplement's layouts.
struct RelayValueTests {
    @Test func heartRateIsSentOnlyWhenItCountsAndWithoutWhatIsNotNeeded() {
        // Contact supported and detected, 72 bpm: as it came.
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x06, 72]) == [0x06, 72])
        // Off the skin (supported, not detected) and 0 bpm: nothing, not 0 bpm.
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x04, 0]) == nil)
        // No contact support and 0 bpm, or 251 bpm: implausible, nothing.
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x00, 0]) == nil)
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x01, 251, 0]) == nil)
        // 16-bit format with RR intervals, 200 bpm: 8 bits now, the RR interval kept.
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x11, 200, 0, 0x00, 0x04]) == [0x10, 200, 0x00, 0x04])
        // Energy expended is left out; contact detected stays.
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x0E, 80, 0x10, 0x00]) == [0x06, 80])
        // Malformed (RR flag, no value): nothing.
        #expect(RelayValue.reencoded(uuid: 0x2A37, bytes: [0x10]) == nil)
    }

    @Test func powerKeepsTheWattsAndTheCrankData() {
        // 250 W with crank data (16 revolutions, event at 1 s): as it came.
        let crank: [UInt8] = [0x20, 0x00, 0xFA, 0x00, 0x10, 0x00, 0x00, 0x04]
        #expect(RelayValue.reencoded(uuid: 0x2A63, bytes: crank) == crank)
        // Pedal power balance is left out; 0 W counts.
        #expect(RelayValue.reencoded(uuid: 0x2A63, bytes: [0x01, 0x00, 0x64, 0x00, 50]) == [0x00, 0x00, 0x64, 0x00])
        #expect(RelayValue.reencoded(uuid: 0x2A63, bytes: [0x00, 0x00, 0x00, 0x00]) == [0x00, 0x00, 0x00, 0x00])
        // Wheel data (flag 0x10) without crank data: the watts alone. A negative power stays signed.
        #expect(
            RelayValue.reencoded(uuid: 0x2A63, bytes: [0x10, 0x00, 0xF6, 0xFF, 1, 0, 0, 0, 0x00, 0x02]) == [0x00, 0x00, 0xF6, 0xFF])
        // Other characteristics are not relayed.
        #expect(RelayValue.reencoded(uuid: 0x2A5B, bytes: [0x02, 0x10, 0x00, 0x00, 0x04]) == nil)
    }
}
