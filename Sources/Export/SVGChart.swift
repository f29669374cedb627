public import Workouts
public import Foundation
import SensorCore
import Zones

/// A workout as a self-contained SVG picture (no scripts, no external resources): a title with the
/// local start (`Tue 1 Dec 2026 18:02`), the activity and the duration; a panel per quantity
/// (heart rate, power) with the value over time on its zone bands (the zones of the workout's zone
/// group, in `ZonePalette`'s colours, named in the panel's legend), titled axes, paused time shaded,
/// laps (`L2`, `L3`, ...) and activity changes (`Running`) marked by thin vertical lines; and
/// time-in-zone bars per quantity with the time (`m:ss`, `h:mm:ss` from an hour) and percent of
/// the total.
///
/// The line is the held value of `WorkoutSeconds` averaged over the seconds of each pixel column,
/// broken where nothing holds. Bars and bands carry ids (`bar-heartRate-0`, `band-cyclingPower-3`)
/// so tests and style sheets can find them.
public struct SVGChart: Sendable {
    /// Picture width in CSS pixels; the height follows from the content.
    public static let width = 960
    static let left = 70.0
    static let right = 24.0
    static let panelHeight = 200.0
    static let barsLeft = 330.0
    static let barsWidth = 460.0
    static let rowHeight = 22.0
    /// Room under a panel: the time labels and the time axis's title.
    static let panelGap = 48.0

    /// The time zone of the title's date and time.
    public var timeZone: TimeZone

    /// - Parameter timeZone: the zone the start is shown in (the machine's by default).
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// `Tue 1 Dec 2026 18:02 · Cycling · 1:02:11`: the start in `timeZone` to the minute, the
    /// activity and the duration, with the active time after it when pauses make it shorter.
    public func title(_ workout: Workout) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEE d MMM yyyy HH:mm"
        var duration = workout.duration.clockText
        if workout.activeDuration.clockText != duration { duration += " (active \(workout.activeDuration.clockText))" }
        return [formatter.string(from: workout.startDate), Self.name(workout.activityType), duration]
            .joined(separator: " · ")
    }

    /// `Cycling`, `Running`: an activity as a title says it.
    static func name(_ activity: WorkoutActivityType) -> String { activity.rawValue.capitalized }

    public func render(_ workout: Workout) -> String {
        let series = WorkoutSeconds(workout)
        let width = Double(Self.width)
        var body = ""
        var y = 44.0
        let title = title(workout)
        body += Self.text(title, x: Self.left, y: 28, size: 18, weight: "bold")
        let panels: [(QuantityType, String, String, KeyPath<WorkoutSeconds.Second, Double?>)] = [
            (.heartRate, "Heart rate", "bpm", \.heartRate), (.cyclingPower, "Power", "W", \.power),
        ]
        var drawn = 0
        for (type, name, unit, value) in panels where series.seconds.contains(where: { $0[keyPath: value] != nil }) {
            body += panel(type: type, name: name, unit: unit, series: series, value: value, workout: workout, top: y + 26)
            y += 26 + Self.panelHeight + Self.panelGap
            drawn += 1
        }
        if drawn == 0 {
            body += Self.text("No heart rate or power was recorded.", x: Self.left, y: y + 20, size: 14)
            y += 40
        }
        for (type, name, unit, _) in panels {
            guard let group = workout.zoneGroupsByType[type] else { continue }
            body += bars(group, type: type, name: name, unit: unit, top: y + 16)
            y += 16 + 24 + Self.rowHeight * Double(group.durations.count) + 12
        }
        let height = Int(y.rounded(.up)) + 8
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.width)" height="\(height)" \
            viewBox="0 0 \(Self.width) \(height)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
            <title>\(XMLText.escaped(title))</title>
            <rect x="0" y="0" width="\(ExportNumber.text(width))" height="\(height)" fill="#ffffff"/>
            \(body)</svg>

            """
    }

    /// One quantity over time on its zone bands, with axes, pauses and a legend above.
    private func panel(
        type: QuantityType, name: String, unit: String, series: WorkoutSeconds,
        value: KeyPath<WorkoutSeconds.Second, Double?>, workout: Workout, top: Double
    ) -> String {
        let plotWidth = Double(Self.width) - Self.left - Self.right
        let bottom = top + Self.panelHeight
        let configuration = workout.zoneGroupsByType[type]?.configuration
        let boundaries = configuration?.boundaryValues ?? []
        let present = series.seconds.compactMap { $0[keyPath: value] }
        var low = min(present.min() ?? 0, boundaries.first ?? .infinity)
        var high = max(present.max() ?? 1, boundaries.last ?? -.infinity)
        if type == .cyclingPower { low = min(low, 0) } else { low -= 10 }
        high += max((high - low) * 0.08, 5)
        low = (low / 10).rounded(.down) * 10
        high = (high / 10).rounded(.up) * 10
        func y(_ value: Double) -> Double { bottom - (value - low) / (high - low) * Self.panelHeight }
        let duration = max(workout.duration.seconds, 1)
        func x(_ time: Duration) -> Double { Self.left + (time - workout.start).seconds / duration * plotWidth }
        var svg = "<g id=\"panel-\(type.identifier)\">\n"
        // Legend: the quantity in its line colour, then a swatch per zone.
        let line = type == .heartRate ? "#b71c1c" : "#0d47a1"
        svg += Self.text("\(name) (\(unit))", x: Self.left, y: top - 8, size: 14, weight: "bold", fill: line)
        if let configuration {
            let colors = ZonePalette.hexColors(count: configuration.zones.count)
            var legendX = Self.left + 150
            for zone in configuration.zones {
                svg += rect(x: legendX, y: top - 19, width: 12, height: 12, fill: colors[zone.index])
                let label = "Z\(zone.index + 1) " + zone.rangeText(unit: unit)
                svg += Self.text(label, x: legendX + 16, y: top - 8, size: 11)
                legendX += 26 + Double(label.count) * 6.2
            }
            for zone in configuration.zones {
                let from = max(low, zone.minimum?.value ?? low), to = min(high, zone.maximum?.value ?? high)
                guard to > from else { continue }
                svg += rect(
                    x: Self.left, y: y(to), width: plotWidth, height: y(from) - y(to), fill: colors[zone.index],
                    opacity: 0.3, id: "band-\(type.identifier)-\(zone.index)")
            }
        }
        for pause in workout.pauses {
            svg += rect(
                x: x(pause.lowerBound), y: top, width: max(x(pause.upperBound) - x(pause.lowerBound), 1),
                height: Self.panelHeight, fill: "#616161", opacity: 0.35)
        }
        // Laps after the first and changes of activity: a thin line at their start, labelled.
        let marks =
            workout.laps.enumerated().dropFirst().map { (time: $1.lowerBound, label: "L\($0 + 1)", id: "lap-\($0 + 1)") }
            + workout.activities.enumerated().dropFirst().map {
                (time: $1.start, label: Self.name($1.activityType), id: "activity-\($0 + 1)")
            }
        for mark in marks where mark.time > workout.start && mark.time < workout.end {
            let markX = Self.coordinate(x(mark.time))
            svg += "<line id=\"\(mark.id)-\(type.identifier)\" x1=\"\(markX)\" y1=\"\(Self.coordinate(top))\" x2=\"\(markX)\" y2=\"\(Self.coordinate(bottom))\" stroke=\"#424242\" stroke-width=\"0.8\" stroke-dasharray=\"3 2\"/>\n"
            svg += Self.text(mark.label, x: x(mark.time) + 3, y: top + 11, size: 10, fill: "#424242")
        }
        // Value axis: the range's ends and each zone boundary, and its title.
        for value in Set([low, high] + boundaries.filter { $0 > low && $0 < high }).sorted() {
            svg += Self.text(ExportNumber.text(value), x: Self.left - 6, y: y(value) + 4, size: 11, anchor: "end")
        }
        let middle = Self.coordinate(top + Self.panelHeight / 2)
        svg += "<text id=\"axis-\(type.identifier)\" x=\"16\" y=\"\(middle)\" font-size=\"11\" fill=\"#424242\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(middle))\">\(XMLText.escaped("\(name.lowercased()) (\(unit))"))</text>\n"
        // Time axis: ticks at a round step giving at most ten labels (whole multiples of 8 hours
        // past 4 hours, however long the workout).
        let step =
            [60.0, 120, 300, 600, 900, 1800, 3600, 7200, 14400].first { duration / $0 <= 10 }
            ?? 28800 * (duration / 28800 / 10).rounded(.up)
        var tick = 0.0
        while tick <= duration {
            let tickX = Self.left + tick / duration * plotWidth
            svg += "<line x1=\"\(Self.coordinate(tickX))\" y1=\"\(Self.coordinate(bottom))\" x2=\"\(Self.coordinate(tickX))\" y2=\"\(Self.coordinate(bottom + 4))\" stroke=\"#424242\"/>\n"
            svg += Self.text(Duration.seconds(tick).hoursAndMinutesText, x: tickX, y: bottom + 16, size: 11, anchor: "middle")
            tick += step
        }
        svg += Self.text("time (h:mm)", x: Self.left + plotWidth / 2, y: bottom + 32, size: 11, fill: "#424242", anchor: "middle")
        // The line: the mean held value of each pixel column's seconds. Column c shows seconds
        // c·n/columns ..< (c+1)·n/columns of the n the workout spans (at least one second each), found
        // by binary search among the seconds that hold values: no work for the seconds that do not.
        let columns = Int(plotWidth)
        let spanned = Int(WorkoutSeconds.secondsCeiling(workout.duration))
        func boundary(_ column: Int) -> Int { columns.dividingFullWidth(column.multipliedFullWidth(by: spanned)).quotient }
        var path = ""
        var drawing = false
        for column in 0..<columns where spanned > 0 {
            let from = boundary(column)
            var sum = 0.0, count = 0
            for index in series.indices(from: from, to: max(boundary(column + 1), from + 1)) {
                if let value = series.seconds[index][keyPath: value] {
                    sum += value
                    count += 1
                }
            }
            guard count > 0 else {
                drawing = false
                continue
            }
            path += (drawing ? "L" : "M") + Self.coordinate(Self.left + Double(column) + 0.5) + " "
                + Self.coordinate(y(sum / Double(count))) + " "
            drawing = true
        }
        if !path.isEmpty {
            svg += "<path id=\"line-\(type.identifier)\" d=\"\(path)\" fill=\"none\" stroke=\"\(line)\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>\n"
        }
        svg += "<rect x=\"\(Self.coordinate(Self.left))\" y=\"\(Self.coordinate(top))\" width=\"\(Self.coordinate(plotWidth))\" height=\"\(Self.coordinate(Self.panelHeight))\" fill=\"none\" stroke=\"#424242\"/>\n"
        return svg + "</g>\n"
    }

    /// Time-in-zone bars of one quantity: a row per zone with its range, a bar as long as its
    /// share of the longest zone, and its time and percent of the total.
    private func bars(_ group: WorkoutZoneGroup, type: QuantityType, name: String, unit: String, top: Double) -> String {
        let colors = ZonePalette.hexColors(count: group.durations.count)
        let total = group.totalDuration.seconds
        let longest = group.durations.map(\.seconds).max() ?? 0
        var svg = "<g id=\"bars-\(type.identifier)\">\n"
        svg += Self.text(
            "\(name): time in zone (\(group.configuration.source.rawValue) zones, \(group.totalDuration.clockText) in zones)",
            x: Self.left, y: top + 14, size: 14, weight: "bold")
        for zone in group.configuration.zones {
            let rowTop = top + 24 + Self.rowHeight * Double(zone.index)
            let seconds = group.durations[zone.index].seconds
            svg += rect(x: Self.left, y: rowTop + 3, width: 14, height: 14, fill: colors[zone.index])
            svg += Self.text("Zone \(zone.index + 1)", x: Self.left + 22, y: rowTop + 15, size: 12, weight: "bold")
            svg += Self.text(zone.rangeText(unit: unit), x: Self.left + 90, y: rowTop + 15, size: 12)
            let barWidth = longest > 0 ? seconds / longest * Self.barsWidth : 0
            svg += rect(
                x: Self.barsLeft, y: rowTop + 2, width: barWidth, height: Self.rowHeight - 6, fill: colors[zone.index],
                id: "bar-\(type.identifier)-\(zone.index)")
            let percent = total > 0 ? " (\(ExportNumber.text(seconds / total * 100)) %)" : ""
            svg += Self.text(group.durations[zone.index].clockText + percent, x: Self.barsLeft + barWidth + 8, y: rowTop + 15, size: 12)
        }
        return svg + "</g>\n"
    }

    /// A coordinate with one decimal.
    static func coordinate(_ value: Double) -> String { ExportNumber.text(value, decimals: 1) }

    static func text(
        _ content: String, x: Double, y: Double, size: Int, weight: String? = nil, fill: String = "#212121",
        anchor: String? = nil
    ) -> String {
        var element = "<text x=\"\(Self.coordinate(x))\" y=\"\(Self.coordinate(y))\" font-size=\"\(size)\" fill=\"\(fill)\""
        if let weight { element += " font-weight=\"\(weight)\"" }
        if let anchor { element += " text-anchor=\"\(anchor)\"" }
        return element + ">\(XMLText.escaped(content))</text>\n"
    }

    private func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, opacity: Double? = nil, id: String? = nil
    ) -> String {
        var element = "<rect"
        if let id { element += " id=\"\(id)\"" }
        element += " x=\"\(Self.coordinate(x))\" y=\"\(Self.coordinate(y))\" width=\"\(Self.coordinate(width))\" height=\"\(Self.coordinate(height))\" fill=\"\(fill)\""
        if let opacity { element += " fill-opacity=\"\(ExportNumber.text(opacity, decimals: 2))\"" }
        return element + "/>\n"
    }
}
