import Foundation
import SensorCore
public import Zones

/// The profile's named values, as the command line's flags (`--age`, `--resting-hr`, ...) and the
/// API's `POST /api/profile` (`{"age": 40, "resting-hr": 50}`) give them: age or birth-date,
/// resting-hr, max-hr, lthr, ftp, power-model, hr-model, sex, weight.
public enum ProfileValues {
    public static let options: Set<String> = [
        "age", "birth-date", "resting-hr", "max-hr", "lthr", "ftp", "power-model", "hr-model", "sex", "weight",
    ]

    /// The flags that give a heart rate of the profile.
    public static let heartRateOptions = ["age", "birth-date", "resting-hr", "max-hr", "lthr"]

    /// The profile the flags give (empty when none is given).
    public static func profile(from arguments: RequestValues) throws(RequestError) -> AthleteProfile {
        var profile = AthleteProfile(
            age: try arguments.wholeNumber("age", in: AthleteProfile.ageRange, example: "40 (years)"),
            restingHeartRate: try arguments.wholeNumber("resting-hr", in: AthleteProfile.heartRateRange, example: "50 (bpm)"),
            maximumHeartRate: try arguments.wholeNumber("max-hr", in: AthleteProfile.heartRateRange, example: "185 (bpm)"),
            functionalThresholdPower: try arguments.wholeNumber(
                "ftp", in: AthleteProfile.functionalThresholdPowerRange, example: "250 (W)"),
            lactateThresholdHeartRate: try arguments.wholeNumber("lthr", in: AthleteProfile.heartRateRange, example: "165 (bpm)"),
            weight: try arguments.wholeNumber("weight", in: AthleteProfile.weightRange, example: "72 (kg)"))
        if let text = arguments["sex"] {
            guard let sex = AthleteProfile.Sex(rawValue: text.lowercased()) else {
                throw RequestError("\(arguments.spelled("sex")) takes female or male (for calories from heart rate), not '\(text)'")
            }
            profile.sex = sex
        }
        if let text = arguments["birth-date"] {
            guard profile.age == nil else { throw RequestError("give \(arguments.spelled("age")) or \(arguments.spelled("birth-date")), not both") }
            guard let birthDate = CalendarDate(iso8601: text) else {
                throw RequestError("\(arguments.spelled("birth-date")) needs a date as YYYY-MM-DD, like 1985-04-23, not '\(text)'")
            }
            profile.birthDate = birthDate
        }
        return profile
    }

    /// Whether any heart-rate profile flag (or `--hr-model`) was given.
    public static func wantsHeartRate(_ arguments: RequestValues) -> Bool {
        (heartRateOptions + ["hr-model"]).contains { arguments[$0] != nil }
    }

    /// When profile flags were given for a model, the model must work on `date`: a resting heart
    /// rate above the maximum is a usage error, not a workout without zones.
    public static func checkModels(
        _ preferences: ZonePreferences, _ arguments: RequestValues, on date: CalendarDate?
    ) throws(RequestError) {
        let checks: [(Bool, QuantityType)] = [
            (wantsHeartRate(arguments), .heartRate), (arguments["ftp"] != nil, .cyclingPower),
        ]
        for (wanted, type) in checks where wanted {
            do {
                _ = try preferences.systemConfiguration(for: type, on: date)
            } catch {
                throw RequestError(advice(for: error, profile: preferences.profile))
            }
        }
    }

    /// The power model `--power-model` names, or nil when it is not given.
    public static func givenPowerZoneModel(_ arguments: RequestValues) throws(RequestError) -> PowerZoneModel? {
        guard let text = arguments["power-model"] else { return nil }
        guard let model = PowerZoneModel(rawValue: text) else {
            throw RequestError("\(arguments.spelled("power-model")) takes 6 (six zones) or 7 (Coggan's seven), not '\(text)'")
        }
        return model
    }

    /// The heart-rate model `--hr-model` names, or nil when it is not given.
    public static func givenHeartRateZoneModel(_ arguments: RequestValues) throws(RequestError) -> HeartRateZoneModel? {
        guard let text = arguments["hr-model"] else { return nil }
        guard let model = HeartRateZoneModel(rawValue: text) else {
            throw RequestError(
                "\(arguments.spelled("hr-model")) takes reserve (heart-rate reserve, Karvonen), max (percent of maximum) or lthr "
                    + "(Friel's percent of lactate-threshold heart rate), not '\(text)'")
        }
        return model
    }

    /// The heart-rate model for zones computed from these flags alone: `--hr-model` needs a heart
    /// rate to compute from.
    public static func heartRateZoneModel(_ arguments: RequestValues) throws(RequestError) -> HeartRateZoneModel {
        guard let model = try givenHeartRateZoneModel(arguments) else { return .reserve }
        guard heartRateOptions.contains(where: { arguments[$0] != nil }) else {
            let needs =
                switch model {
                case .reserve: "--resting-hr BPM and --age YEARS (or --max-hr BPM)"
                case .maximum: "--max-hr BPM (or --age YEARS)"
                case .lactateThreshold: "--lthr BPM"
                }
            throw RequestError("\(arguments.spelled("hr-model")) \(model.rawValue) needs \(needs) to compute heart-rate zones")
        }
        return model
    }

    /// The power model for zones computed from these flags alone: `--power-model` needs `--ftp`.
    public static func powerZoneModel(_ arguments: RequestValues) throws(RequestError) -> PowerZoneModel {
        guard let model = try givenPowerZoneModel(arguments) else { return .sixZones }
        guard arguments["ftp"] != nil else { throw RequestError("\(arguments.spelled("power-model")) needs \(arguments.spelled("ftp")) WATTS to compute power zones") }
        return model
    }

    /// A stored profile with the values the flags give replacing its own: `--age` or
    /// `--birth-date` replaces both the age and the birth date, each other flag its one value.
    public static func profile(from arguments: RequestValues, updating stored: AthleteProfile) throws(RequestError)
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
        profile.lactateThresholdHeartRate = given.lactateThresholdHeartRate ?? profile.lactateThresholdHeartRate
        profile.sex = given.sex ?? profile.sex
        profile.weight = given.weight ?? profile.weight
        return profile
    }

    /// `preferences` with what the flags give: the profile's values (`profile(from:updating:)`)
    /// and the heart-rate and power zone models.
    public static func apply(_ arguments: RequestValues, to preferences: inout ZonePreferences) throws(RequestError) {
        preferences.profile = try profile(from: arguments, updating: preferences.profile)
        if let model = try givenPowerZoneModel(arguments) { preferences.powerZoneModel = model }
        if let model = try givenHeartRateZoneModel(arguments) { preferences.heartRateZoneModel = model }
    }

    /// Today's date in the local time zone, for a birth date.
    public static func today() -> CalendarDate? {
        CalendarDate(Date(), in: .current)
    }

    /// What to change on the command line when a model refuses the profile.
    public static func advice(for error: ZoneProfileError, profile: AthleteProfile) -> String {
        switch error {
        case .missingRestingHeartRate:
            return "heart-rate zones need your resting heart rate: add --resting-hr N (beats per minute at rest)"
        case .missingAge:
            return "heart-rate zones need your maximum heart rate: add --age N or --birth-date YYYY-MM-DD to "
                + "estimate it, or --max-hr N if you have measured it"
        case .heartRateReserveTooSmall(let resting, let maximum):
            let least = AthleteProfile.minimumHeartRateReserve
            if profile.maximumHeartRate != nil {
                return "--resting-hr \(resting) must be at least \(least) below --max-hr \(maximum.formatted); check both"
            }
            return "--resting-hr \(resting) must be at least \(least) below the maximum heart rate "
                + "\(maximum.formatted) estimated from the age (208 - 0.7 x age); check --resting-hr, or give your "
                + "measured --max-hr"
        case .missingLactateThresholdHeartRate:
            return "the %LTHR model needs your lactate-threshold heart rate: add --lthr BPM, as in "
                + "'sensorbridge profile set --lthr 165' (the average heart rate of the last 20 minutes of a "
                + "30-minute time trial ridden alone)"
        case .lactateThresholdTooLow(let value, let least):
            return "--lthr \(value) is too low for seven distinct %LTHR zones; give your lactate-threshold heart rate "
                + "(at least \(least) bpm)"
        case .birthDateAfterDate(let birthDate, let date):
            return "--birth-date \(birthDate) is after today (\(date)); give your birth date as YYYY-MM-DD"
        case .outOfRange(.age, let value, let allowed) where profile.birthDate != nil:
            return "--birth-date \(profile.birthDate.map(String.init(describing:)) ?? "") gives an age of \(value); "
                + "the heart-rate model needs an age from \(allowed.lowerBound) to \(allowed.upperBound)"
        default:
            return error.description
        }
    }
}
