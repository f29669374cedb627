/// The least-squares line y = intercept + slope × x through points; what the DFA α1 exponent, its
/// thresholds and the critical-power fit each need.
public struct LeastSquaresLine: Sendable, Equatable {
    public var slope: Double
    public var intercept: Double

    /// The line through `x` and `y` (as many of each); nil for fewer than two points or a single x.
    public init?(x: [Double], y: [Double]) {
        guard x.count >= 2, x.count == y.count else { return nil }
        let count = Double(x.count)
        let meanX = x.reduce(0, +) / count
        let meanY = y.reduce(0, +) / count
        var sumXY = 0.0
        var sumXX = 0.0
        for (xi, yi) in zip(x, y) {
            sumXY += (xi - meanX) * (yi - meanY)
            sumXX += (xi - meanX) * (xi - meanX)
        }
        guard sumXX > 0 else { return nil }
        slope = sumXY / sumXX
        intercept = meanY - slope * meanX
    }
}
