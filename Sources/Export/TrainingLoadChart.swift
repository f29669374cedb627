import Foundation
public import Workouts

/// A training-load history as a self-contained SVG picture (`workouts load --svg`): the daily load
/// as bars, fitness, fatigue and form as lines, on one axis of stress points with its zero marked,
/// days along the bottom. Elements carry ids (`load-2026-11-02`, `line-fitness`) for tests.
public enum TrainingLoadChart {
    static let width = 960.0
    static let height = 400.0
    static let left = 70.0
    static let right = 24.0
    static let top = 70.0
    static let bottom = 330.0
    /// Colours of the load bars and of the three lines.
    static let loadColor = "#b0bec5"
    static let lines: [(id: String, name: String, color: String, value: @Sendable (TrainingLoadDay) -> Double)] = [
        ("fitness", "Fitness (CTL, 42 d)", "#1e88e5", { $0.fitness }),
        ("fatigue", "Fatigue (ATL, 7 d)", "#d81b60", { $0.fatigue }),
        ("form", "Form (TSB)", "#fb8c00", { $0.form }),
    ]

    /// - Parameter title: the picture's heading.
    public static func render(_ days: [TrainingLoadDay], title: String) -> String {
        var body = SVGChart.text(title, x: left, y: 28, size: 18, weight: "bold")
        var x = left
        for (name, color) in [("Daily load (TSS)", loadColor)] + lines.map({ ($0.name, $0.color) }) {
            body += "<rect x=\"\(x)\" y=\"40\" width=\"12\" height=\"12\" fill=\"\(color)\"/>"
            body += SVGChart.text(name, x: x + 16, y: 51, size: 12)
            x += 40 + Double(name.count) * 6.5
        }
        guard !days.isEmpty else {
            body += SVGChart.text("No days to show.", x: left, y: top + 20, size: 14)
            return document(body)
        }
        let values = days.flatMap { day in [day.load] + lines.map { $0.value(day) } }
        let (low, high, step) = axis(minimum: min(0, values.min()!), maximum: max(10, values.max()!))
        let plotWidth = width - left - right
        let slot = plotWidth / Double(days.count)
        func y(_ value: Double) -> Double { bottom - (value - low) / (high - low) * (bottom - top) }
        func f(_ value: Double) -> String { SVGChart.coordinate(value) }

        var tick = low
        while tick <= high + step / 2 {
            let color = tick == 0 ? "#616161" : "#e0e0e0"
            body += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\" stroke=\"\(color)\"/>"
            body += SVGChart.text(String(format: "%g", tick), x: left - 8, y: y(tick) + 4, size: 11, anchor: "end")
            tick += step
        }
        for (index, day) in days.enumerated() where day.load > 0 {
            let barWidth = max(1, slot * 0.7)
            body += "<rect id=\"load-\(day.day)\" x=\"\(f(left + slot * Double(index) + (slot - barWidth) / 2))\" "
                + "y=\"\(f(y(day.load)))\" width=\"\(f(barWidth))\" height=\"\(f(y(0) - y(day.load)))\" fill=\"\(loadColor)\">"
                + "<title>\(day.day): load \(Int(day.load.rounded()))</title></rect>"
        }
        for line in lines {
            let points = days.enumerated().map { index, day in
                "\(f(left + slot * (Double(index) + 0.5))),\(f(y(line.value(day))))"
            }
            body += "<polyline id=\"line-\(line.id)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" "
                + "points=\"\(points.joined(separator: " "))\"/>"
        }
        // A date under the first day, then every seventh day, and the last.
        let labelEvery = max(7, Int((Double(days.count) / 10).rounded(.up)))
        for (index, day) in days.enumerated() where index % labelEvery == 0 || index == days.count - 1 {
            let x = left + slot * (Double(index) + 0.5)
            body += "<line x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"\(bottom)\" y2=\"\(bottom + 5)\" stroke=\"#616161\"/>"
            body += SVGChart.text(day.day.description, x: x, y: bottom + 18, size: 11, anchor: "middle")
        }
        body += SVGChart.text("day", x: left + plotWidth / 2, y: bottom + 40, size: 12, anchor: "middle")
        body += "<text x=\"18\" y=\"\(f((top + bottom) / 2))\" font-size=\"12\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 18 \(f((top + bottom) / 2)))\">stress points (TSS)</text>"
        return document(body)
    }

    /// Round axis bounds and a step that gives about five ticks.
    static func axis(minimum: Double, maximum: Double) -> (Double, Double, Double) {
        let rough = (maximum - minimum) / 5
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        return ((minimum / step).rounded(.down) * step, (maximum / step).rounded(.up) * step, step)
    }

    static func document(_ body: String, width: Double = width, height: Double = height) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
            + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\">"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>" + body + "</svg>\n"
    }
}
