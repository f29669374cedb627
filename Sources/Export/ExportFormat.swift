public import Foundation
public import Workouts

/// The file formats `sensorbridge export` writes; the raw value is the name on the command line
/// and the file name extension.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// Garmin FIT activity (`FITActivityEncoder`).
    case fit
    /// Garmin Training Center XML (`TCXEncoder`).
    case tcx
    /// One row per second (`CSVEncoder`).
    case csv
    /// A chart with zones (`SVGChart`).
    case svg

    /// The workout in this format. FIT files carry the profile the workout was recorded with
    /// (`workout.profile`: FTP, maximum, resting and threshold heart rate, the heart-rate model);
    /// a workout stored before the store kept one has none of those fields, never those of a later
    /// profile. The chart's title is in `timeZone`.
    public func encode(_ workout: Workout, timeZone: TimeZone = .current) -> [UInt8] {
        switch self {
        case .fit:
            FITActivityEncoder(
                profile: workout.profile?.athlete, heartRateZoneModel: workout.profile?.heartRateZoneModel ?? .reserve
            ).encode(workout)
        case .tcx: Array(TCXEncoder().encode(workout).utf8)
        case .csv: Array(CSVEncoder().encode(workout).utf8)
        case .svg: Array(SVGChart(timeZone: timeZone).render(workout).utf8)
        }
    }
}
