public import Foundation
import SensorCore

/// The one time convention of every output, in the time zone of the command (`TZ` when it names
/// a zone, else the system's: `CommandContext.timeZone`; the web server's for its pages):
/// - JSON gives an instant as that zone's wall-clock time with its UTC offset (RFC 3339):
///   `2026-11-02T12:30:00-05:00`, `Z` when the offset is 0 (`2026-11-02T17:30:00Z`);
/// - text and pages show the same local time to the minute with the offset:
///   `2026-11-02 12:30 -05:00`, `2026-11-02 17:30 UTC`.
public enum TimeText {
    /// `date` as JSON gives it: local time in `zone` with its UTC offset; with milliseconds
    /// always (`.000`) when `alwaysMilliseconds`, else only when it has a fraction.
    public static func instant(_ date: Date, in zone: TimeZone, alwaysMilliseconds: Bool = false) -> String {
        ISO8601.format(
            date.timeIntervalSince1970, offset: zone.secondsFromGMT(for: date), alwaysMilliseconds: alwaysMilliseconds)
    }

    /// `2026-11-02 12:30 -05:00` (`2026-11-02 17:30 UTC` when the offset is 0): `date` in `zone`
    /// to the minute, with the offset.
    public static func local(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date) / 60 * 60
        // The wall clock, whole minutes: the instant's seconds are dropped, not rounded.
        let wall = ISO8601.format((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        let minute = wall.prefix(16).replacingOccurrences(of: "T", with: " ")
        let zoneText = ISO8601.offsetText(offset)
        return minute + " " + (zoneText == "Z" ? "UTC" : zoneText)
    }

    /// An instant as JSON gives it (any offset), shown as text in `zone`; nil for text that is not one.
    public static func local(instant text: String, in zone: TimeZone) -> String? {
        ISO8601.parse(text).map { local(Date(timeIntervalSince1970: $0), in: zone) }
    }
}
