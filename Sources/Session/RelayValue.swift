import GATT
import Workouts

/// A measurement value as the relay sends it with `--reencode`: rebuilt from what the project's
/// decoders make of the sensor's bytes, and only when it counts as the workout counts it
/// (DESIGN.md §3 "Valid values and sensor states"), so a strap off the skin is not relayed as 0 bpm.
public enum RelayValue {
    /// The value to relay for a notification of `uuid` (2A37, 2A63); nil to send nothing: a
    /// malformed value, a heart rate without skin contact or outside
    /// `SensorState.plausibleHeartRate`, or another characteristic.
    ///
    /// - Heart Rate Measurement: the rate (8 bits, or 16 above 255), "contact detected" when the
    ///   strap reports contact, and the RR intervals; no energy expended.
    /// - Cycling Power Measurement: the instantaneous power (0 W counts: coasting) and the crank
    ///   revolution data when the meter sends it (what apps take cadence from); the other fields
    ///   are left out.
    public static func reencoded(uuid: UInt16, bytes: [UInt8]) -> [UInt8]? {
        guard let value = try? GATTValue.decode(uuid: BluetoothUUID(UInt32(uuid)), bytes: bytes) else { return nil }
        switch value {
        case .heartRateMeasurement(let m):
            guard m.sensorContact != .notDetected, SensorState.plausibleHeartRate.contains(Double(m.heartRate)) else { return nil }
            let wide = m.heartRate > 255
            var flags: UInt8 = wide ? 0x01 : 0
            if m.sensorContact == .detected { flags |= 0x06 }
            if !m.rrIntervals.isEmpty { flags |= 0x10 }
            var out = [flags]
            out += wide ? littleEndian(m.heartRate) : [UInt8(m.heartRate)]
            for interval in m.rrIntervals { out += littleEndian(interval.rawValue) }
            return out
        case .cyclingPowerMeasurement(let m):
            let crank = m.crankRevolutionData
            var out = littleEndian(UInt16(crank == nil ? 0 : 0x20)) + littleEndian(UInt16(bitPattern: m.instantaneousPower))
            if let crank { out += littleEndian(crank.cumulativeRevolutions) + littleEndian(crank.lastEventTime) }
            return out
        default:
            return nil
        }
    }

    private static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
