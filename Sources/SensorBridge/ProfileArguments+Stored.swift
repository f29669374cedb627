import Zones

extension ProfileArguments {
    /// A stored profile with the values the flags give replacing its own: `--age` or
    /// `--birth-date` replaces both the age and the birth date, each other flag its one value.
    static func profile(from arguments: CommandArguments, updating stored: AthleteProfile) throws(UsageError)
        -> AthleteProfile
    {
        let given = try profile(from: arguments)
        var profile = stored
        if given.age != nil || given.birthDate != nil {
            profile.age = given.age
            profile.birthDate = given.birthDate
        }
        profile.restingHeartRate = given.restingHeartRate ?? profile.restingHeartRate
        profile.maximumHeartRate = given.maximumHeartRate ?? profile.maximumHeartRate
        profile.functionalThresholdPower = given.functionalThresholdPower ?? profile.functionalThresholdPower
        return profile
    }
}
