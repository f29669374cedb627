import Foundation
import SensorCore
import Testing
import Workouts
import Zones

@testable import SensorBridge

/// The live dashboard, drawn from fixed states: the model fed as `record` feeds it (samples, the
/// builder's real outputs, link events), frames checked line by line.
@Suite struct DashboardRendererTests {
    static let heartZones = try! WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [110, 120, 130, 140])
    static let powerZones = try! WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [100, 150, 200, 250, 300])
    static let sensors = [(key: "hr", name: "HRM-Pro"), (key: "power", name: "Assioma")]

    static func t(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }

    /// Heart rate at `values` once a second from t = 1 through a real state machine; its outputs
    /// (zone updates only on change) go to the model, as the builder's stream does in `record`.
    static func model(heartRates values: [Double], zones: [WorkoutZoneConfiguration] = [heartZones, powerZones])
        throws -> DashboardModel
    {
        var machine = WorkoutStateMachine()
        for configuration in zones { try machine.setCustomZoneConfiguration(configuration) }
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        var model = DashboardModel(sensors: sensors, configurations: zones)
        for (index, value) in values.enumerated() {
            let sample = Sample(sensor: SensorID(1), type: .heartRate, value: value, time: t(Double(index + 1)))
            machine.add(sample)
            model.add(sample)
            while let output = machine.nextOutput() { model.apply(output) }
        }
        return model
    }

    /// A line without its ANSI escapes, as wide as it shows.
    static func visible(_ line: String) -> String {
        line.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    }

    @Test func everyLineFitsTheWidthAndBarsUseWhatIsLeft() throws {
        var model = try Self.model(heartRates: [105, 115, 125, 125, 125])
        model.connected("hr")
        model.battery("hr", percent: 87)
        let state = model.state(at: Self.t(5.5))
        for width in [20, 40, 80, 132] {
            var renderer = DashboardRenderer()
            let lines = renderer.render(state, width: width).lines
            for line in lines { #expect(Self.visible(line).count <= width, "width \(width): \(line)") }
            #expect(lines.contains { Self.visible($0).hasPrefix("HRM-Pro (hr)  connected  battery 87 %".prefix(width)) })
        }
        var renderer = DashboardRenderer()
        let wide = renderer.render(state, width: 80).lines.map(Self.visible)
        // Zone 3 has the most time (1 s + 1 s + 0.5 s so far): the full bar, 80 - 35 columns.
        let zone3 = try #require(wide.first { $0.hasPrefix("> Zone 3") })
        #expect(zone3.hasSuffix(String(repeating: "█", count: 45)))
        #expect(zone3.contains("0:03"))
        #expect(wide.contains("Heart rate  125 bpm   zone 3 for 0:03"))
    }

    @Test func theCurrentZoneIsHighlightedAndItsTimeRunsOn() throws {
        let model = try Self.model(heartRates: [105, 135])
        var renderer = DashboardRenderer()
        let lines = renderer.render(model.state(at: Self.t(4)), width: 80).lines
        let highlighted = lines.filter { $0.hasPrefix(DashboardRenderer.highlightOn) }
        #expect(highlighted.count == 1)
        #expect(highlighted.first.map(Self.visible)?.hasPrefix("> Zone 4  130-140 bpm") == true)
        // Entered at t = 2, drawn at t = 4: 2 s in zone 4, extrapolated from the last update.
        #expect(model.state(at: Self.t(4)).zones[0].durations[3] == .seconds(2))
        #expect(model.state(at: Self.t(4)).zones[0].inZoneFor == .seconds(2))
    }

    @Test func withoutZonesTheDashboardSaysHowToGetThem() throws {
        let model = try Self.model(heartRates: [140, 141], zones: [])
        var renderer = DashboardRenderer()
        let frame = renderer.render(model.state(at: Self.t(2.5)), width: 80)
        #expect(frame.lines.contains("Heart rate  141 bpm"))
        #expect(frame.lines.contains { $0.hasPrefix("No zones: give --hr-zones") })
        #expect(!frame.lines.contains { $0.contains("Zone 1") || $0.contains(DashboardRenderer.highlightOn) })
        #expect(!frame.bell)
    }

    @Test func aLostSensorCountsDownToItsNextAttempt() throws {
        var model = try Self.model(heartRates: [120])
        model.connected("hr")
        model.connected("power")
        model.battery("power", percent: 40)
        model.lost("power", retryAt: Self.t(11))
        var renderer = DashboardRenderer()
        #expect(renderer.render(model.state(at: Self.t(10.2)), width: 80).lines.contains("Assioma (power)  lost, reconnecting in 1 s  battery 40 %"))
        #expect(renderer.render(model.state(at: Self.t(11.5)), width: 80).lines.contains("Assioma (power)  lost, reconnecting  battery 40 %"))
        model.attemptFailed("power", retryAt: Self.t(13.5))
        #expect(renderer.render(model.state(at: Self.t(11.5)), width: 80).lines.contains("Assioma (power)  lost, reconnecting in 2 s  battery 40 %"))
        model.connected("power")
        #expect(renderer.render(model.state(at: Self.t(14)), width: 80).lines.contains("Assioma (power)  connected  battery 40 %"))
        // A sensor never reached yet is connecting, with its own countdown after a failure.
        var fresh = DashboardModel(sensors: Self.sensors, configurations: [])
        fresh.attemptFailed("hr", retryAt: Self.t(3))
        #expect(DashboardRenderer.describe(fresh.state(at: Self.t(1)).sensors[0].link) == "connecting, next try in 2 s")
        // Values go stale: nothing for more than 5 s shows dashes.
        #expect(renderer.render(model.state(at: Self.t(7)), width: 80).lines.contains { $0.hasPrefix("Heart rate  -- bpm") })
    }

    @Test func aZoneChangeRingsTheBellOnce() throws {
        var machine = WorkoutStateMachine()
        try machine.setCustomZoneConfiguration(Self.heartZones)
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        var model = DashboardModel(sensors: Self.sensors, configurations: [Self.heartZones])
        var renderer = DashboardRenderer()
        var bells: [Bool] = []
        // 115 enters zone 2 (bell), 117 stays (no update, no bell), 125 moves to zone 3 (bell).
        for (second, value) in [(1, 115.0), (2, 117), (3, 125)] {
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: value, time: .seconds(second)))
            while let output = machine.nextOutput() { model.apply(output) }
            bells.append(renderer.render(model.state(at: .seconds(second)), width: 80).bell)
            bells.append(renderer.render(model.state(at: .seconds(second) + .milliseconds(250)), width: 80).bell)
        }
        #expect(bells == [true, false, false, false, true, false])
    }

    @Test func threeSecondPowerIsTheMeanOfTheLastThreeSeconds() {
        var model = DashboardModel(sensors: Self.sensors, configurations: [])
        for (second, watts) in [(1, 100.0), (2, 200), (3, 300), (4, 400)] {
            model.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: watts, time: .seconds(second)))
        }
        model.add(Sample(sensor: SensorID(2), type: .cyclingCadence, value: 88, time: .seconds(4)))
        let state = model.state(at: .seconds(4))
        #expect(state.power == 400 && state.power3s == 300 && state.cadence == 88)
        var renderer = DashboardRenderer()
        #expect(renderer.render(state, width: 80).lines.contains("Power  400 W  3 s 300 W  cadence 88 rpm"))
    }
}
