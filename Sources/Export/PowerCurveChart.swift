import Foundation
public import Workouts

/// Power-duration curves as a self-contained SVG picture (`workouts best --svg`): mean-maximal
/// power against duration on a logarithmic time axis from 1 s to 60 min, a line per curve (all
/// the workouts, or one per period), each point with a title naming its value. Lines carry ids
/// (`curve-0`, `curve-1`) for tests.
public enum PowerCurveChart {
    static let width = 960.0
    static let height = 420.0
    static let left = 70.0
    static let right = 24.0
    static let top = 70.0
    static let bottom = 350.0
    static let colors = ["#1e88e5", "#d81b60", "#43a047", "#fb8c00", "#8e24aa", "#00897b", "#6d4c41", "#3949ab"]

    /// - Parameters:
    ///   - curves: each curve's name (in the legend) and its efforts, shortest first.
    ///   - title: the picture's heading.
    ///   - unit: the values' unit (`W`, `bpm`).
    public static func render(_ curves: [(name: String, efforts: [BestEffort])], title: String, unit: String) -> String {
        var body = SVGChart.text(title, x: left, y: 28, size: 18, weight: "bold")
        var x = left
        for (index, curve) in curves.enumerated() {
            body += "<rect x=\"\(x)\" y=\"40\" width=\"12\" height=\"12\" fill=\"\(colors[index % colors.count])\"/>"
            body += SVGChart.text(curve.name, x: x + 16, y: 51, size: 12)
            x += 40 + Double(curve.name.count) * 6.5
        }
        let values = curves.flatMap { $0.efforts.map(\.value) }
        guard let highest = values.max() else {
            body += SVGChart.text("No efforts to show.", x: left, y: top + 20, size: 14)
            return TrainingLoadChart.document(body, width: width, height: height)
        }
        let (low, high, step) = TrainingLoadChart.axis(minimum: 0, maximum: max(10, highest))
        let longest = Double(BestEfforts.durations.last!)
        func px(_ seconds: Int) -> Double { left + log(Double(seconds)) / log(longest) * (width - left - right) }
        func py(_ value: Double) -> Double { bottom - (value - low) / (high - low) * (bottom - top) }
        func f(_ value: Double) -> String { SVGChart.coordinate(value) }
        var tick = low
        while tick <= high + step / 2 {
            body += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(f(py(tick)))\" y2=\"\(f(py(tick)))\" stroke=\"#e0e0e0\"/>"
            body += SVGChart.text(String(format: "%g", tick), x: left - 8, y: py(tick) + 4, size: 11, anchor: "end")
            tick += step
        }
        for seconds in [1, 5, 15, 60, 300, 1200, 3600] {
            body += "<line x1=\"\(f(px(seconds)))\" x2=\"\(f(px(seconds)))\" y1=\"\(top)\" y2=\"\(bottom + 5)\" stroke=\"#e0e0e0\"/>"
            body += SVGChart.text(BestEfforts.durationText(seconds), x: px(seconds), y: bottom + 18, size: 11, anchor: "middle")
        }
        for (index, curve) in curves.enumerated() where !curve.efforts.isEmpty {
            let color = colors[index % colors.count]
            let points = curve.efforts.map { "\(f(px($0.seconds))),\(f(py($0.value)))" }
            body += "<polyline id=\"curve-\(index)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
            for effort in curve.efforts {
                body += "<circle cx=\"\(f(px(effort.seconds)))\" cy=\"\(f(py(effort.value)))\" r=\"3\" fill=\"\(color)\">"
                    + "<title>\(XMLText.escaped(curve.name)): \(Int(effort.value.rounded())) \(unit) for \(effort.seconds) s</title></circle>"
            }
        }
        body += SVGChart.text("duration", x: (left + width - right) / 2, y: bottom + 40, size: 12, anchor: "middle")
        body += "<text x=\"18\" y=\"\(f((top + bottom) / 2))\" font-size=\"12\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 18 \(f((top + bottom) / 2)))\">\(unit)</text>"
        return TrainingLoadChart.document(body, width: width, height: height)
    }
}
