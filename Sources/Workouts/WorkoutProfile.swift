public import Zones

/// The athlete profile and heart-rate and power zone models in effect when a workout was recorded: what its
/// system zones were computed from, and what its exports carry (FTP, maximum and resting heart
/// rate), however the person's profile changes afterwards.
public struct WorkoutProfile: Sendable, Hashable {
    /// The age or birth date, resting and maximum heart rate and FTP, as they were. An age from a
    /// birth date is the age on the workout's day.
    public var athlete: AthleteProfile
    /// Six power zones or Coggan's seven.
    public var powerZoneModel: PowerZoneModel
    /// Heart-rate reserve, percent of maximum or percent of LTHR (reserve for workouts stored
    /// before the store kept it, which had no other).
    public var heartRateZoneModel: HeartRateZoneModel

    public init(
        athlete: AthleteProfile = AthleteProfile(), powerZoneModel: PowerZoneModel = .sixZones,
        heartRateZoneModel: HeartRateZoneModel = .reserve
    ) {
        self.athlete = athlete
        self.powerZoneModel = powerZoneModel
        self.heartRateZoneModel = heartRateZoneModel
    }

    /// The profile and zone models of `preferences`. (Its preferred zones are not kept here:
    /// the zones a workout used are its zone groups' configurations.)
    public init(_ preferences: ZonePreferences) {
        self.init(
            athlete: preferences.profile, powerZoneModel: preferences.powerZoneModel,
            heartRateZoneModel: preferences.heartRateZoneModel)
    }

    /// Preferences with this profile and these models, and no preferred zones: what gives the
    /// workout's system zones again.
    public var preferences: ZonePreferences {
        ZonePreferences(profile: athlete, powerZoneModel: powerZoneModel, heartRateZoneModel: heartRateZoneModel)
    }
}
