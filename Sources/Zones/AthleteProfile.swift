/// What the default zone models need to know about a person (DESIGN.md §3 "Zones", default models).
///
/// Values are whole numbers, as people know them (40 years, 50 bpm, 250 W), which also makes the
/// models exact: boundaries are computed in integers and rounded to the nearest whole number with
/// halves away from zero, never through a binary fraction such as 0.7.
public struct AthleteProfile: Sendable, Hashable {
    /// The birth date; when present it gives the age and `age` is not used.
    public var birthDate: CalendarDate?
    /// Age in whole years, used when there is no birth date.
    public var age: Int?
    /// Resting heart rate in count/min (beats per minute).
    public var restingHeartRate: Int?
    /// Measured maximum heart rate in count/min; without it the maximum is estimated from the age.
    public var maximumHeartRate: Int?
    /// Functional threshold power in W.
    public var functionalThresholdPower: Int?
    /// Lactate-threshold heart rate in count/min (the %LTHR model's reference).
    public var lactateThresholdHeartRate: Int?
    /// For calories from heart rate (`HeartRateCalories`), which differ by sex.
    public var sex: Sex?
    /// Body weight in whole kilograms: for calories from heart rate and W/kg.
    public var weight: Int?

    /// What the calorie equations tell apart.
    public enum Sex: String, Sendable, Hashable, CaseIterable {
        case female, male
    }

    public init(
        birthDate: CalendarDate? = nil, age: Int? = nil, restingHeartRate: Int? = nil, maximumHeartRate: Int? = nil,
        functionalThresholdPower: Int? = nil, lactateThresholdHeartRate: Int? = nil, sex: Sex? = nil, weight: Int? = nil
    ) {
        self.birthDate = birthDate
        self.age = age
        self.restingHeartRate = restingHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.functionalThresholdPower = functionalThresholdPower
        self.lactateThresholdHeartRate = lactateThresholdHeartRate
        self.sex = sex
        self.weight = weight
    }

    /// Ages the models accept, in years.
    public static let ageRange = 1...120
    /// Resting, maximum and lactate-threshold heart rates the models accept, in count/min.
    public static let heartRateRange = 20...250
    /// Functional threshold powers the models accept, in W (from 20 W the six or seven zones are distinct).
    public static let functionalThresholdPowerRange = 20...2500
    /// Body weights the profile takes, in kg.
    public static let weightRange = 20...300
    /// The least heart-rate reserve (maximum - resting, count/min) that keeps five distinct zones.
    public static let minimumHeartRateReserve = 10
    /// The heart-rate zone boundaries in percent of the heart-rate reserve (Karvonen), increasing.
    public static let heartRateReservePercentages = HeartRateZoneModel.reserve.percentages
    /// The least lactate-threshold heart rate (count/min) whose seven %LTHR zones are distinct:
    /// below 25, 103 % and 106 % round to the same count/min.
    public static let minimumLactateThresholdHeartRate = 25

    /// The age in whole years on `date`: from the birth date when there is one (then `date` is
    /// needed), else `age`.
    public func age(on date: CalendarDate?) throws(ZoneProfileError) -> Int {
        let years: Int
        if let birthDate {
            guard let date else { throw .missingDate }
            guard birthDate <= date else { throw .birthDateAfterDate(birthDate: birthDate, date: date) }
            years = birthDate.wholeYears(until: date)
        } else {
            guard let age else { throw .missingAge }
            years = age
        }
        try Self.check(.age, years, in: Self.ageRange)
        return years
    }

    /// The maximum heart rate in count/min: the measured one, else Tanaka's 208 - 0.7 x age (not rounded).
    public func maximumHeartRate(on date: CalendarDate? = nil) throws(ZoneProfileError) -> Double {
        Double(try maximumHeartRateTenths(on: date)) / 10
    }

    /// The system heart-rate zones of `model`, boundaries rounded to whole count/min, halves away
    /// from zero:
    /// - `.reserve` (Karvonen): `resting + {60, 70, 80, 90} % x (maximum - resting)`. Age 40 and
    ///   resting 50 give a maximum of 180 and boundaries 128, 141, 154, 167.
    /// - `.maximum`: `{60, 70, 80, 90} % x maximum`. A maximum of 180 gives 108, 126, 144, 162.
    /// - `.lactateThreshold` (Friel): `{81, 90, 94, 100, 103, 106} % x LTHR`, seven zones. An LTHR of
    ///   165 gives 134, 149, 155, 165, 170, 175.
    ///
    /// The maximum is the measured one, else Tanaka's 208 - 0.7 x age.
    ///
    /// - Parameter date: the day the zones are for; needed only when the age comes from a birth date.
    /// - Throws: `ZoneProfileError` naming what the model needs and the profile lacks, or what is
    ///   out of range.
    public func heartRateZoneConfiguration(model: HeartRateZoneModel = .reserve, on date: CalendarDate? = nil)
        throws(ZoneProfileError) -> WorkoutZoneConfiguration
    {
        let boundaries: [Int]
        switch model {
        case .reserve:
            guard let resting = restingHeartRate else { throw .missingRestingHeartRate }
            try Self.check(.restingHeartRate, resting, in: Self.heartRateRange)
            let maximumTenths = try maximumHeartRateTenths(on: date)
            let reserveTenths = maximumTenths - 10 * resting
            guard reserveTenths >= 10 * Self.minimumHeartRateReserve else {
                throw .heartRateReserveTooSmall(resting: resting, maximum: Double(maximumTenths) / 10)
            }
            // resting + p/100 x reserveTenths/10, in thousandths of a count/min: exact integers.
            boundaries = model.percentages.map { percent in
                Self.roundedQuotient(1000 * resting + percent * reserveTenths, 1000)
            }
        case .maximum:
            // p/100 x maximumTenths/10; a maximum of at least 20 (or Tanaka's at 120 years, 124)
            // keeps the 10-point steps at least 2 count/min apart.
            let maximumTenths = try maximumHeartRateTenths(on: date)
            boundaries = model.percentages.map { percent in Self.roundedQuotient(percent * maximumTenths, 1000) }
        case .lactateThreshold:
            guard let threshold = lactateThresholdHeartRate else { throw .missingLactateThresholdHeartRate }
            try Self.check(.lactateThresholdHeartRate, threshold, in: Self.heartRateRange)
            guard threshold >= Self.minimumLactateThresholdHeartRate else {
                throw .lactateThresholdTooLow(threshold, least: Self.minimumLactateThresholdHeartRate)
            }
            boundaries = model.percentages.map { percent in Self.roundedQuotient(percent * threshold, 100) }
        }
        return WorkoutZoneConfiguration(
            quantityType: .heartRate, checkedBoundaryValues: boundaries.map(Double.init), source: .system)
    }

    /// The system cycling-power zones: `model`'s percentages of FTP rounded to whole W, halves away
    /// from zero. FTP 250 gives 138, 188, 225, 263, 300 (and 375 for seven zones).
    public func cyclingPowerZoneConfiguration(model: PowerZoneModel = .sixZones) throws(ZoneProfileError)
        -> WorkoutZoneConfiguration
    {
        guard let power = functionalThresholdPower else { throw .missingFunctionalThresholdPower }
        try Self.check(.functionalThresholdPower, power, in: Self.functionalThresholdPowerRange)
        let boundaries = model.percentages.map { percent in Double(Self.roundedQuotient(percent * power, 100)) }
        return WorkoutZoneConfiguration(quantityType: .cyclingPower, checkedBoundaryValues: boundaries, source: .system)
    }

    /// The maximum heart rate in tenths of a count/min, exact: measured x 10, or 2080 - 7 x age.
    private func maximumHeartRateTenths(on date: CalendarDate?) throws(ZoneProfileError) -> Int {
        if let maximumHeartRate {
            try Self.check(.maximumHeartRate, maximumHeartRate, in: Self.heartRateRange)
            return 10 * maximumHeartRate
        }
        return 2080 - 7 * (try age(on: date))
    }

    private static func check(_ field: ZoneProfileError.Field, _ value: Int, in range: ClosedRange<Int>)
        throws(ZoneProfileError)
    {
        guard range.contains(value) else { throw .outOfRange(field, value: value, allowed: range) }
    }

    /// `numerator / denominator` rounded to the nearest integer, halves away from zero
    /// (`.toNearestOrAwayFromZero`), for `numerator >= 0` and `denominator > 0`.
    private static func roundedQuotient(_ numerator: Int, _ denominator: Int) -> Int {
        (2 * numerator + denominator) / (2 * denominator)
    }
}
