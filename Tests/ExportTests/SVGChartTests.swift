import Export
import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import SensorCore
import SensorTestSupport
import Testing
import Workouts
import Zones

@Suite struct SVGChartTests {
    static let chromium = ExternalTool.path("chromium")
    static let python = ExternalTool.path("python3")

    /// The attributes of the element with `id`, as numbers where they are numbers.
    static func attributes(of id: String, in svg: String) -> [String: Double] {
        guard let start = svg.range(of: "id=\"\(id)\"") else { return [:] }
        let element = svg[start.upperBound...].prefix { $0 != ">" }
        var result: [String: Double] = [:]
        for part in element.split(separator: " ") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, let value = Double(pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"/"))) {
                result[String(pair[0])] = value
            }
        }
        return result
    }

    @Test func structureBandsBarsAndNothingActive() throws {
        let workout = try SyntheticRide.workout(seconds: 3600, seed: 8, startDate: CSVEncoderTests.startDate)
        let svg = SVGChart().render(workout)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(!svg.lowercased().contains("<script") && !svg.contains("href") && !svg.contains(" on"))
        #expect(svg.contains("<path id=\"line-heartRate\"") && svg.contains("<path id=\"line-cyclingPower\""))
        for type in [QuantityType.heartRate, .cyclingPower] {
            let group = try #require(workout.zoneGroupsByType[type])
            let longest = group.durations.map(\.seconds).max() ?? 0
            for (index, duration) in group.durations.enumerated() {
                #expect(svg.contains("id=\"band-\(type.identifier)-\(index)\""))
                // Each bar is as long as its zone's time against the longest (460 px), to the 0.1 px.
                let width = try #require(Self.attributes(of: "bar-\(type.identifier)-\(index)", in: svg)["width"])
                #expect(abs(width - duration.seconds / longest * 460) <= 0.05)
                #expect(svg.contains("Zone \(index + 1)</text>"))
            }
        }
        // Each bar is labelled with its time as m:ss (never decimal minutes), then its share.
        for group in workout.zoneGroupsByType.values {
            for duration in group.durations { #expect(svg.contains(">\(duration.clockText) (")) }
        }
        #expect(!svg.contains(" min"))
        // The bands and bars are in the palette's colours.
        for (index, hex) in ZonePalette.hexColors(count: 5).enumerated() {
            #expect(svg.contains("id=\"bar-heartRate-\(index)\"") && svg.contains("fill=\"\(hex)\""))
        }
    }

    /// The title in the given time zone, to the minute; axis titles; a line and label at each lap
    /// after the first and at the change to running; time in zone from an hour as h:mm:ss; and
    /// the whole is well-formed XML.
    @Test func titleAxesLapsActivitiesAndClockTimes() throws {
        let workout = try SyntheticRide.workout(seconds: 3731, seed: 11, startDate: CSVEncoderTests.startDate, runAfter: 2400)
        // 2026-11-02T17:30:00Z was a Monday, 18:30 in Paris (UTC+1 in November).
        let paris = SVGChart(timeZone: try #require(TimeZone(identifier: "Europe/Paris")))
        #expect(workout.duration == .seconds(3731) && workout.activeDuration.clockText == "59:43")
        #expect(paris.title(workout) == "Mon 2 Nov 2026 18:30 · Multisport · 1:02:11 (active 59:43)")
        let utc = SVGChart(timeZone: try #require(TimeZone(identifier: "UTC")))
        #expect(utc.title(workout).hasPrefix("Mon 2 Nov 2026 17:30 · "))
        let svg = paris.render(workout)
        #expect(svg.contains("<title>Mon 2 Nov 2026 18:30 · Multisport · 1:02:11 (active 59:43)</title>"))
        #expect(!svg.contains("2026-11-02T"))
        for axis in ["heart rate (bpm)", "power (W)", "time (h:mm)"] { #expect(svg.contains(">\(axis)</text>"), "\(axis)") }

        // Marks in both panels, where the time axis puts them: 70 px + offset / duration x 866 px.
        #expect(workout.laps.count > 3 && workout.activities.map(\.activityType) == [.cycling, .running])
        let marks = workout.laps.enumerated().dropFirst().map { ("lap-\($0 + 1)", "L\($0 + 1)", $1.lowerBound) }
            + [("activity-2", "Running", workout.activities[1].start)]
        for (id, label, time) in marks {
            #expect(svg.contains(">\(label)</text>"), "\(label)")
            for type in ["heartRate", "cyclingPower"] {
                let x = try #require(Self.attributes(of: "\(id)-\(type)", in: svg)["x1"], "\(id)-\(type)")
                #expect(abs(x - (70 + (time - workout.start).seconds / 3731 * 866)) <= 0.05)
            }
        }
        #expect(!svg.contains("id=\"lap-1-") && !svg.contains("id=\"activity-1-"))

        // An hour in one zone reads h:mm:ss.
        var long = workout
        var group = try #require(long.zoneGroupsByType[.heartRate])
        group = try WorkoutZoneGroup(configuration: group.configuration, durations: [.seconds(3725)] + group.durations.dropFirst().map { _ in .zero })
        long.zoneGroupsByType[.heartRate] = group
        #expect(paris.render(long).contains(">1:02:05 (100 %)</text>"))

        #if canImport(FoundationXML)
            final class Errors: NSObject, XMLParserDelegate {
                var error: (any Error)?
                func parser(_ parser: XMLParser, parseErrorOccurred error: any Error) { self.error = error }
            }
            let parser = XMLParser(data: Data(svg.utf8))
            let errors = Errors()
            parser.delegate = errors
            #expect(parser.parse(), "\(String(describing: errors.error))")
        #endif
    }

    @Test func aWorkoutWithoutHeartRateOrPowerSaysSo() throws {
        var workout = try SyntheticRide.workout(seconds: 120, seed: 9, startDate: CSVEncoderTests.startDate)
        workout.samples = []
        workout.zoneGroupsByType = [:]
        let svg = SVGChart().render(workout)
        #expect(svg.contains("No heart rate or power was recorded."))
        #expect(!svg.contains("<path"))
    }

    /// Renders the chart in headless Chromium and reads the PNG back: not blank, many colours,
    /// each time-in-zone bar in its zone's colour where the SVG puts it, and the heart-rate line
    /// in the middle of its panel.
    @Test(
        .enabled(if: chromium != nil && python != nil, "needs chromium and python3 (Debian chromium, in .ci/debian-packages)"),
        .timeLimit(.minutes(10)))
    func chromiumRendersItAndThePixelsAreWhereTheChartPutsThem() throws {
        let workout = try SyntheticRide.workout(seconds: 3600, seed: 10, startDate: CSVEncoderTests.startDate)
        let svg = SVGChart().render(workout)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("chart.svg"), png = folder.appendingPathComponent("chart.png")
        try svg.write(to: file, atomically: true, encoding: .utf8)
        let root = svg.components(separatedBy: " height=\"")[1]
        let height = try #require(Int(root.prefix { $0.isNumber }))
        let render = try ExternalTool.run(
            try #require(Self.chromium),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                "--user-data-dir=\(folder.appendingPathComponent("profile").path)", "--screenshot=\(png.path)",
                "--window-size=\(SVGChart.width),\(height)", file.absoluteString,
            ], timeout: .seconds(90))
        try #require(render.status == 0 && FileManager.default.fileExists(atPath: png.path), "\(render.output)")

        // Points: the middle of every bar, then a column through the middle of the heart-rate panel.
        let group = try #require(workout.zoneGroupsByType[.heartRate])
        var points: [(Int, Int)] = []
        for index in group.durations.indices {
            let bar = Self.attributes(of: "bar-heartRate-\(index)", in: svg)
            let (x, y, w, h) = (bar["x"] ?? 0, bar["y"] ?? 0, bar["width"] ?? 0, bar["height"] ?? 0)
            points.append((Int(x + w / 2), Int(y + h / 2)))
        }
        let band = Self.attributes(of: "band-heartRate-0", in: svg)
        let panelTop = Int(try #require(Self.attributes(of: "band-heartRate-\(group.durations.count - 1)", in: svg)["y"]))
        let panelBottom = Int((band["y"] ?? 0) + (band["height"] ?? 0))
        let column = Int(SVGChart.width / 2)
        points += (panelTop..<panelBottom).map { (column, $0) }
        let pixels = try ExternalTool.run(
            try #require(Self.python),
            [ExternalTool.fixtures.appendingPathComponent("svg/png-pixels.py").path, png.path]
                + points.map { "\($0.0),\($0.1)" })
        let result = try JSONValue(parsing: pixels.output)
        #expect(result["width"]?.integerValue == SVGChart.width && result["height"]?.integerValue == height)
        #expect((result["distinctColors"]?.integerValue ?? 0) > 50)
        #expect(Double(result["nonWhite"]?.integerValue ?? 0) > 0.2 * Double(SVGChart.width * height))
        let colors = try #require(result["pixels"]?.arrayValue).map { pixel in
            (pixel.arrayValue ?? []).compactMap(\.integerValue)
        }
        for (index, hex) in ZonePalette.hexColors(count: group.durations.count).enumerated() where group.durations[index] > .seconds(30) {
            let expected = stride(from: 1, to: 7, by: 2).map { Int(hex.dropFirst($0).prefix(2), radix: 16) ?? -1 }
            #expect(colors[index] == expected, "bar of zone \(index + 1)")
        }
        // The line (#b71c1c) crosses the middle column: some pixel there is close to it.
        let line = [0xb7, 0x1c, 0x1c]
        let crossing = colors.dropFirst(group.durations.count).contains { pixel in
            pixel.count == 3 && zip(pixel, line).allSatisfy { abs($0 - $1) <= 60 }
        }
        #expect(crossing, "no heart-rate line in column \(column)")
    }
}
