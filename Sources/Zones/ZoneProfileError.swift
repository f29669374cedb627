public import SensorCore

/// Why a profile cannot give a default zone configuration (DESIGN.md §3 "Zones", default models).
public enum ZoneProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A value of the profile, for messages and for a command line to name its flag.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case age, birthDate, restingHeartRate, maximumHeartRate, functionalThresholdPower, lactateThresholdHeartRate
    }

    /// Heart-rate zones need an age or a birth date, unless the profile has a maximum heart rate.
    case missingAge
    /// Heart-rate zones need a resting heart rate.
    case missingRestingHeartRate
    /// Cycling-power zones need a functional threshold power.
    case missingFunctionalThresholdPower
    /// The %LTHR heart-rate model needs a lactate-threshold heart rate.
    case missingLactateThresholdHeartRate
    /// The lactate-threshold heart rate is below `least`, where the seven %LTHR zones stop being distinct.
    case lactateThresholdTooLow(Int, least: Int)
    /// The value is outside what a person can have.
    case outOfRange(Field, value: Int, allowed: ClosedRange<Int>)
    /// The resting heart rate must be at least `AthleteProfile.minimumHeartRateReserve` below the
    /// maximum (measured or estimated), so that the five zones are distinct.
    case heartRateReserveTooSmall(resting: Int, maximum: Double)
    /// A birth date needs the day the zones are for, to turn it into an age.
    case missingDate
    /// The birth date is after the day the zones are for.
    case birthDateAfterDate(birthDate: CalendarDate, date: CalendarDate)
    /// There is no default model for this quantity type (only heart rate and cycling power have one).
    case noDefaultModel(QuantityType)

    public var description: String {
        switch self {
        case .missingAge:
            "heart-rate zones need an age or a birth date (to estimate the maximum heart rate as "
                + "208 - 0.7 x age), or a measured maximum heart rate"
        case .missingRestingHeartRate: "heart-rate zones need a resting heart rate (heart-rate reserve method)"
        case .missingFunctionalThresholdPower: "cycling-power zones need a functional threshold power (FTP)"
        case .missingLactateThresholdHeartRate:
            "the %LTHR model needs your lactate-threshold heart rate (LTHR)"
        case .lactateThresholdTooLow(let value, let least):
            "a lactate-threshold heart rate of \(value) is too low for seven distinct %LTHR zones; it must be at least \(least)"
        case .outOfRange(let field, let value, let allowed):
            "\(field.rawValue) \(value) is out of range; give a value from \(allowed.lowerBound) to \(allowed.upperBound)"
        case .heartRateReserveTooSmall(let resting, let maximum):
            "the resting heart rate (\(resting)) must be at least \(AthleteProfile.minimumHeartRateReserve) below "
                + "the maximum heart rate (\(maximum.shortText))"
        case .missingDate: "a birth date needs the day the zones are for, to know the age"
        case .birthDateAfterDate(let birthDate, let date): "the birth date \(birthDate) is after \(date)"
        case .noDefaultModel(let type):
            "\(type.identifier) has no default zones; only heartRate and cyclingPower do"
        }
    }
}
