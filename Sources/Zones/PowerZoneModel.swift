/// The default cycling-power zone models, as percentages of functional threshold power (DESIGN.md §3 "Zones").
public enum PowerZoneModel: String, Sendable, Hashable, CaseIterable {
    /// Six zones with boundaries at 55, 75, 90, 105 and 120 % of FTP (the default).
    case sixZones = "6"
    /// Coggan's seven levels: the six zones with the top one split at 150 % of FTP.
    case sevenZones = "7"

    /// The boundaries in percent of FTP, increasing.
    public var percentages: [Int] {
        switch self {
        case .sixZones: [55, 75, 90, 105, 120]
        case .sevenZones: [55, 75, 90, 105, 120, 150]
        }
    }
}
