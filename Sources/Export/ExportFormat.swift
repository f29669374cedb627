public import Workouts
public import Zones

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

    /// The workout in this format. `profile` goes into FIT files (user profile, zones).
    public func encode(_ workout: Workout, profile: AthleteProfile?) -> [UInt8] {
        switch self {
        case .fit: FITActivityEncoder(profile: profile).encode(workout)
        case .tcx: Array(TCXEncoder().encode(workout).utf8)
        case .csv: Array(CSVEncoder().encode(workout).utf8)
        case .svg: Array(SVGChart().render(workout).utf8)
        }
    }
}
