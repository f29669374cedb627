import Foundation

/// Detrended fluctuation analysis (Peng et al. 1995) of RR intervals, and its short-term scaling
/// exponent α1 (DESIGN 3, "DFA α1"), as Gronwald, Rogers et al. (2020-2021) and Kubios use it for
/// exercise: the series' deviations from its mean are summed into a profile, the profile is cut into
/// non-overlapping boxes of n beats from its start (a remainder shorter than a box is left out),
/// each box is detrended by its least-squares line, F(n) is the root mean square of the residuals
/// over the boxes, and α1 is the least-squares slope of log F(n) against log n for n = 4...16.
///
/// White noise gives α1 ≈ 0.5, 1/f noise ≈ 1, Brownian motion ≈ 1.5: at rest and easy effort the
/// heart's RR series is correlated (α1 about 1), and the correlation falls with intensity, through
/// 0.75 near the first ventilatory threshold and 0.5 near the second.
public enum DFAAlpha1 {
    /// The box sizes of the short-term exponent, in beats.
    public static let boxSizes = 4...16

    /// The profile of `series`: y(k) = Σ_{i ≤ k} (x_i − mean), for each k.
    public static func profile(of series: [Double]) -> [Double] {
        guard !series.isEmpty else { return [] }
        let mean = series.reduce(0, +) / Double(series.count)
        var sum = 0.0
        return series.map { value in
            sum += value - mean
            return sum
        }
    }

    /// F(n) of a profile: the profile cut into `profile.count / boxSize` boxes of `boxSize` points
    /// from its start, each detrended by its least-squares line against the point's index, and the
    /// root mean square of all residuals. Nil for a box size below 2 or longer than the profile.
    public static func fluctuation(ofProfile profile: [Double], boxSize: Int) -> Double? {
        let boxes = boxSize >= 2 ? profile.count / boxSize : 0
        guard boxes > 0 else { return nil }
        let n = Double(boxSize)
        let meanX = (n - 1) / 2
        let sumXX = n * (n * n - 1) / 12  // Σ (x − x̄)² for x = 0 ..< n
        var squares = 0.0
        for box in 0..<boxes {
            let first = box * boxSize
            var sumY = 0.0
            for index in first..<(first + boxSize) { sumY += profile[index] }
            let meanY = sumY / n
            var sumXY = 0.0
            for x in 0..<boxSize { sumXY += (Double(x) - meanX) * (profile[first + x] - meanY) }
            let slope = sumXY / sumXX
            for x in 0..<boxSize {
                let residual = profile[first + x] - meanY - slope * (Double(x) - meanX)
                squares += residual * residual
            }
        }
        return (squares / Double(boxes * boxSize)).squareRoot()
    }

    /// α of `series` over `boxSizes`: the least-squares slope of ln F(n) against ln n. Nil when the
    /// series is shorter than the largest box, or some F(n) is zero (a series without fluctuation).
    public static func alpha(of series: [Double], boxSizes: ClosedRange<Int> = boxSizes) -> Double? {
        guard boxSizes.count >= 2, series.count >= boxSizes.upperBound else { return nil }
        let profile = profile(of: series)
        var logN: [Double] = []
        var logF: [Double] = []
        for size in boxSizes {
            guard let f = fluctuation(ofProfile: profile, boxSize: size), f > 0, f.isFinite else { return nil }
            logN.append(log(Double(size)))
            logF.append(log(f))
        }
        return LeastSquaresLine(x: logN, y: logF)?.slope
    }
}
