/// The default heart-rate zone models (DESIGN.md §3 "Zones", default models).
///
/// Each model's boundaries are whole percentages of one heart rate of the profile, rounded to whole
/// count/min with halves away from zero, computed exactly in integers.
public enum HeartRateZoneModel: String, Sendable, Hashable, CaseIterable {
    /// Five zones by heart-rate reserve (Karvonen), the default: resting + {60, 70, 80, 90} % x
    /// (maximum - resting). Needs the resting heart rate and the maximum (measured, else Tanaka's
    /// 208 - 0.7 x age).
    case reserve
    /// Five zones by percent of the maximum heart rate: {60, 70, 80, 90} % x maximum (measured,
    /// else Tanaka's 208 - 0.7 x age). A maximum of 180 gives 108, 126, 144, 162.
    case maximum = "max"
    /// Joe Friel's seven cycling zones (1, 2, 3, 4, 5a, 5b, 5c) by percent of the lactate-threshold
    /// heart rate (LTHR). Friel's table gives zone 1 below 81 %, zone 2 81 to 89 %, zone 3 90 to
    /// 93 %, zone 4 94 to 99 %, 5a 100 to 102 %, 5b 103 to 106 % and 5c above 106 %, in whole
    /// percent; as contiguous half-open zones, the lower bound of zones 2 to 7 is the first percent
    /// of each row: 81, 90, 94, 100, 103 and 106 %. (So a heart rate of exactly 106 % is 5c, which
    /// Friel's rows, ending 5b at 106 %, leave open.) An LTHR of 165 gives 134, 149, 155, 165, 170, 175.
    case lactateThreshold = "lthr"

    /// The boundaries in percent (of the reserve, the maximum or the LTHR), increasing.
    public var percentages: [Int] {
        switch self {
        case .reserve, .maximum: [60, 70, 80, 90]
        case .lactateThreshold: [81, 90, 94, 100, 103, 106]
        }
    }

    /// The zones' names, low to high: 1 to 5, or Friel's 1, 2, 3, 4, 5a, 5b, 5c.
    public var zoneNames: [String] {
        switch self {
        case .reserve, .maximum: ["1", "2", "3", "4", "5"]
        case .lactateThreshold: ["1", "2", "3", "4", "5a", "5b", "5c"]
        }
    }

    /// What the percentages are of, for people: `heart-rate reserve`, `maximum heart rate`,
    /// `lactate-threshold heart rate`.
    public var basis: String {
        switch self {
        case .reserve: "heart-rate reserve"
        case .maximum: "maximum heart rate"
        case .lactateThreshold: "lactate-threshold heart rate"
        }
    }

    /// The model's short name, as people write it: `%HRR`, `%HRmax`, `%LTHR`.
    public var shortName: String {
        switch self {
        case .reserve: "%HRR"
        case .maximum: "%HRmax"
        case .lactateThreshold: "%LTHR"
        }
    }
}
