public import Zones

/// The heart-rate variability thresholds of a ramp from its DFA α1 windows (DESIGN 3, "DFA α1"):
/// HRVT1, where α1 falls to 0.75 (near the first ventilatory threshold, the aerobic threshold), and
/// HRVT2, where it falls to 0.5 (near the second), by Rogers et al.'s (2021) linear regression of α1
/// against heart rate, and against power alike.
///
/// The rule, for each quantity over the windows that have its held value, in time order: the fit
/// ends at the first window with α1 below 0.5 (else the last window) and begins at the last window
/// before that with α1 at least 1.0 (else the first), so it covers α1's fall from correlated to
/// uncorrelated and leaves out a warm-up's level stretch. α1 = a + b × value by least squares over
/// those windows (at least `minimumWindows`, b negative); a threshold T is (T − a) / b, given only
/// when the fitted windows' α1 reach from T or above to below T (α1 was seen to cross it) and the
/// value lies within the values of all the windows (what was ridden: a ride that is no ramp gives
/// a line that reaches the thresholds far outside it).
public struct DFAThresholds: Sendable, Hashable {
    /// α1 at the first threshold (HRVT1).
    public static let first = 0.75
    /// α1 at the second threshold (HRVT2).
    public static let second = 0.5
    /// The α1 from which the fit begins.
    public static let correlated = 1.0
    /// The fewest windows a fit needs.
    public static let minimumWindows = 3

    /// HRVT1 and HRVT2 in count/min.
    public var heartRate1: Double?
    public var heartRate2: Double?
    /// The power at each, in W.
    public var power1: Double?
    public var power2: Double?
    /// The windows behind the heart-rate fit (0 without a fit).
    public var heartRateWindows: Int

    public init(heartRate1: Double? = nil, heartRate2: Double? = nil, power1: Double? = nil, power2: Double? = nil, heartRateWindows: Int = 0) {
        self.heartRate1 = heartRate1
        self.heartRate2 = heartRate2
        self.power1 = power1
        self.power2 = power2
        self.heartRateWindows = heartRateWindows
    }

    /// The thresholds of the windows `points`, in time order.
    public init(_ points: [DFAAlpha1Point]) {
        let heartRate = Self.fit(points.compactMap { point in point.heartRate.map { (point.alpha1, $0) } })
        let power = Self.fit(points.compactMap { point in point.power.map { (point.alpha1, $0) } })
        self.init(
            heartRate1: heartRate?.value(at: Self.first), heartRate2: heartRate?.value(at: Self.second),
            power1: power?.value(at: Self.first), power2: power?.value(at: Self.second), heartRateWindows: heartRate?.windows ?? 0)
    }

    /// A fitted line α1 = intercept + slope × value, and the α1 range of its windows.
    struct Fit {
        var intercept: Double
        var slope: Double
        var highest: Double
        var lowest: Double
        var values: ClosedRange<Double>
        var windows: Int

        /// The value where the line reaches `alpha1`; nil when the windows did not cross it or the
        /// value is outside all the windows' values.
        func value(at alpha1: Double) -> Double? {
            guard highest >= alpha1, lowest < alpha1 else { return nil }
            let value = (alpha1 - intercept) / slope
            return values.contains(value) ? value : nil
        }
    }

    /// The rule's fit over `windows` (α1, value) in time order; nil for too few windows or a slope
    /// that is not negative.
    static func fit(_ windows: [(alpha1: Double, value: Double)]) -> Fit? {
        guard !windows.isEmpty else { return nil }
        let end = windows.firstIndex { $0.alpha1 < second } ?? windows.count - 1
        let begin = windows[...end].lastIndex { $0.alpha1 >= correlated } ?? 0
        let fitted = windows[begin...end]
        guard fitted.count >= minimumWindows,
            let line = LeastSquaresLine(x: fitted.map(\.value), y: fitted.map(\.alpha1)), line.slope < 0
        else { return nil }
        return Fit(
            intercept: line.intercept, slope: line.slope, highest: fitted.map(\.alpha1).max() ?? 0,
            lowest: fitted.map(\.alpha1).min() ?? 0,
            values: (windows.map(\.value).min() ?? 0)...(windows.map(\.value).max() ?? 0), windows: fitted.count)
    }
}

/// Why a workout's DFA α1 gives no heart-rate zones.
public enum DFAZoneError: Error, Sendable, Equatable {
    /// The workout has no RR intervals (a strap that sends none, or an optical sensor).
    case noRRIntervals
    /// No window had enough normal beats (`DFAAlpha1Windows`); `refused` were refused.
    case noWindows(refused: Int)
    /// α1 was not seen to fall through 0.75 and 0.5 against heart rate; `windows` gave values,
    /// of which the highest and lowest α1.
    case noCrossing(windows: Int, highest: Double, lowest: Double)
    /// The thresholds leave no room for five distinct zones (each boundary 1 count/min above the last).
    case thresholdsTooClose(heartRate1: Int, heartRate2: Int)
}

extension DFAAlpha1Series {
    /// Five heart-rate zones from HRVT1 and HRVT2, each rounded to whole count/min (halves away from
    /// zero), by Friel's cycling zones with his estimates replaced by the thresholds measured: zone 2
    /// ends at HRVT1 (Friel's 90 % of LTHR, near the aerobic threshold), zone 4 at HRVT2 (his LTHR,
    /// near the second threshold), zone 3 at their midpoint, zone 1 at 81 % of HRVT2 (his zone 1). In
    /// the three-zone model of Seiler and of Gronwald and Rogers, zones 1-2 are below HRVT1 and
    /// zone 5 above HRVT2.
    ///
    /// - Throws: `DFAZoneError` when no window gave α1, α1 did not cross both thresholds, or they
    ///   leave no room for five zones.
    public func heartRateZoneConfiguration() throws(DFAZoneError) -> WorkoutZoneConfiguration {
        guard intervalCount > 0 else { throw .noRRIntervals }
        guard !points.isEmpty else { throw .noWindows(refused: refusedWindows) }
        guard let heartRate1 = thresholds.heartRate1, let heartRate2 = thresholds.heartRate2 else {
            let alphas = points.map(\.alpha1)
            throw .noCrossing(windows: points.count, highest: alphas.max() ?? 0, lowest: alphas.min() ?? 0)
        }
        let first = Int(heartRate1.rounded()), second = Int(heartRate2.rounded())
        let boundaries = [
            Int((0.81 * Double(second)).rounded()), first, Int((Double(first + second) / 2).rounded()), second,
        ]
        guard zip(boundaries, boundaries.dropFirst()).allSatisfy({ $0 < $1 }),
            let configuration = try? WorkoutZoneConfiguration(
                quantityType: .heartRate, boundaryValues: boundaries.map(Double.init), source: .system)
        else { throw .thresholdsTooClose(heartRate1: first, heartRate2: second) }
        return configuration
    }
}
