public import Zones

/// The athlete profile and power-zone model in effect when a workout was recorded: what its
/// system zones were computed from, and what its exports carry (FTP, maximum and resting heart
/// rate), however the person's profile changes afterwards.
public struct WorkoutProfile: Sendable, Hashable {
    /// The age or birth date, resting and maximum heart rate and FTP, as they were. An age from a
    /// birth date is the age on the workout's day.
    public var athlete: AthleteProfile
    /// Six power zones or Coggan's seven.
    public var powerZoneModel: PowerZoneModel

    public init(athlete: AthleteProfile = AthleteProfile(), powerZoneModel: PowerZoneModel = .sixZones) {
        self.athlete = athlete
        self.powerZoneModel = powerZoneModel
    }

    /// The profile and power-zone model of `preferences`. (Its preferred zones are not kept here:
    /// the zones a workout used are its zone groups' configurations.)
    public init(_ preferences: ZonePreferences) {
        self.init(athlete: preferences.profile, powerZoneModel: preferences.powerZoneModel)
    }
}
