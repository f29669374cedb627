public import Workouts
import SensorCore

/// A workout as CSV (RFC 4180: a header row, CRLF line ends), one row per second from the start
/// to the end at which a value holds, the rows of `WorkoutSeconds` (a stretch where nothing holds,
/// every sensor gone, has no rows: `elapsed_s` jumps):
///
/// `time,elapsed_s,heart_rate_bpm,power_w,cadence_rpm,speed_mps,heart_rate_zone,power_zone`
///
/// - `time`: ISO 8601 UTC (`2026-11-02T17:30:00Z`); `elapsed_s`: whole seconds since the start.
/// - Values are those held by the zone rule's bounded hold (5 s heart rate, 3 s otherwise); empty
///   where no sample holds. Heart rate, power and cadence have up to one decimal (whole numbers
///   as most sensors send them print without one), speed up to three.
/// - Zones are 1-based ("Zone 1" in `sensorbridge` output), empty when there is no value, no zone
///   configuration, or the workout is paused at that second, so counting rows per zone gives the
///   workout's time in zone.
///
/// No field contains a comma, quote or line break, so none is quoted.
public struct CSVEncoder: Sendable {
    public static let header = [
        "time", "elapsed_s", "heart_rate_bpm", "power_w", "cadence_rpm", "speed_mps", "heart_rate_zone", "power_zone",
    ]

    public init() {}

    public func encode(_ workout: Workout) -> String {
        encode(WorkoutSeconds(workout))
    }

    func encode(_ series: WorkoutSeconds) -> String {
        var text = Self.header.joined(separator: ",") + "\r\n"
        text.reserveCapacity(series.seconds.count * 48)
        let start = series.startDate.timeIntervalSince1970
        func value(_ v: Double?, _ decimals: Int) -> String { v.map { ExportNumber.text($0, decimals: decimals) } ?? "" }
        func zone(_ index: Int?) -> String { index.map { String($0 + 1) } ?? "" }
        for second in series.seconds {
            text += ISO8601.format(start + Double(second.elapsed))
            text += ","
            text += String(second.elapsed)
            text += ","
            text += value(second.heartRate, 1)
            text += ","
            text += value(second.power, 1)
            text += ","
            text += value(second.cadence, 1)
            text += ","
            text += value(second.speed, 3)
            text += ","
            text += zone(second.heartRateZone)
            text += ","
            text += zone(second.powerZone)
            text += "\r\n"
        }
        return text
    }
}
