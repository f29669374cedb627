public import SensorCore

/// A person's zone settings: their profile, the heart-rate and power models they chose and the
/// configurations they prefer (DESIGN.md §3 "Zones"). Answers which zones a workout uses when it sets none of its own.
public struct ZonePreferences: Sendable, Hashable {
    /// What the default models compute from.
    public var profile: AthleteProfile
    /// Six zones (default) or Coggan's seven for the system cycling-power configuration.
    public var powerZoneModel: PowerZoneModel
    /// Heart-rate reserve (default), percent of maximum or Friel's percent of LTHR for the system
    /// heart-rate configuration.
    public var heartRateZoneModel: HeartRateZoneModel
    /// The person's own configurations by quantity type, each with source `.user`.
    public private(set) var preferredConfigurations: [QuantityType: WorkoutZoneConfiguration] = [:]

    public init(
        profile: AthleteProfile = AthleteProfile(), powerZoneModel: PowerZoneModel = .sixZones,
        heartRateZoneModel: HeartRateZoneModel = .reserve
    ) {
        self.profile = profile
        self.powerZoneModel = powerZoneModel
        self.heartRateZoneModel = heartRateZoneModel
    }

    /// Makes `configuration` the preferred one for its quantity type; it is kept with source `.user`.
    /// Takes it as it is: for a configuration a person gives, `setUserConfiguration(_:)` checks it
    /// first. (A stored one is loaded as it was saved.)
    public mutating func setPreferredConfiguration(_ configuration: WorkoutZoneConfiguration) {
        preferredConfigurations[configuration.quantityType] = configuration.withSource(.user)
    }

    /// Makes zones a person gives the preferred ones, when they are plausible (`ZonePlausibility`).
    ///
    /// - Throws: `ZonePlausibilityError` for the first boundary no person's zones would have;
    ///   the preferences are then unchanged.
    public mutating func setUserConfiguration(_ configuration: WorkoutZoneConfiguration) throws(ZonePlausibilityError) {
        try ZonePlausibility.check(configuration)
        setPreferredConfiguration(configuration)
    }

    /// Goes back to the system configuration for `quantityType`.
    public mutating func removePreferredConfiguration(for quantityType: QuantityType) {
        preferredConfigurations[quantityType] = nil
    }

    /// The configuration the default model computes from the profile (source `.system`).
    ///
    /// - Parameter date: the day the zones are for; needed only when the age comes from a birth date.
    /// - Throws: `ZoneProfileError` saying what the profile lacks or what is out of range.
    public func systemConfiguration(for quantityType: QuantityType, on date: CalendarDate? = nil)
        throws(ZoneProfileError) -> WorkoutZoneConfiguration
    {
        switch quantityType {
        case .heartRate: try profile.heartRateZoneConfiguration(model: heartRateZoneModel, on: date)
        case .cyclingPower: try profile.cyclingPowerZoneConfiguration(model: powerZoneModel)
        default: throw .noDefaultModel(quantityType)
        }
    }

    /// The preferred configuration, else the system one when the profile has what it needs, else nil.
    ///
    /// - Parameter date: the day the zones are for. Pass it whenever the profile may hold a birth
    ///   date: without it such a profile has no system heart-rate zones (`systemConfiguration` says
    ///   `.missingDate`).
    public func zoneConfiguration(for quantityType: QuantityType, on date: CalendarDate? = nil)
        -> WorkoutZoneConfiguration?
    {
        if let preferred = preferredConfigurations[quantityType] { return preferred }
        return try? systemConfiguration(for: quantityType, on: date)
    }
}
