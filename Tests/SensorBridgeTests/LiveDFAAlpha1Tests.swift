import Foundation
import SensorCore
import Testing
import Workouts
import Zones

@testable import SensorBridge
import MQTT
@testable import Outputs

/// The rolling DFA α1 live (DESIGN.md §3 "DFA α1"): the dashboard's model keeps the latest window
/// of the RR intervals received while active; the terminal dashboard and the live page's JSON (the
/// SSE `live` event) show it, and a pause ends the run as for the stored workout.
@Suite struct LiveDFAAlpha1Tests {
    /// White-noise RR intervals around 600 ms, one sample per beat at its end, from `start` s.
    static func feed(_ model: inout DashboardModel, beats: Int, from start: Double, seed: UInt64) -> Double {
        var random = SplitMix64(seed: seed)
        var time = start
        for _ in 0..<beats {
            let interval = 0.6 + random.uniform(-0.03, 0.03)
            time += interval
            model.add(Sample(sensor: SensorID(1), type: .rrInterval, value: interval, time: .milliseconds(Int64(time * 1000))))
        }
        return time
    }

    @Test func theDashboardAndTheLivePageShowTheLatestWindow() throws {
        var model = DashboardModel(sensors: [(key: "hr", name: "HRM-Pro")], configurations: [], sensorKeys: [SensorID(1): "hr"])
        // 100 s of beats: no window yet.
        var end = Self.feed(&model, beats: 166, from: 0, seed: 1)
        #expect(model.state(at: .seconds(end)).dfaAlpha1 == nil)
        // 2.5 minutes: windows from 120 s of beats on.
        end = Self.feed(&model, beats: 84, from: end, seed: 2)
        let state = model.state(at: .milliseconds(Int64(end * 1000)))
        let alpha1 = try #require(state.dfaAlpha1)
        #expect(alpha1 > 0.3 && alpha1 < 0.9, "\(alpha1)")
        #expect(LiveFeed.json(state)["dfaAlpha1"]?.doubleValue == (alpha1 * 100).rounded() / 100)
        var renderer = DashboardRenderer()
        let lines = renderer.render(state, width: 80).lines
        let hundredths = Int((alpha1 * 100).rounded())
        let shown = "HRV   DFA α1 \(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) (last 2 min)"
        #expect(lines.contains { $0.hasPrefix(shown) }, "\(lines)")
        // It goes from the screen 30 s after the latest window.
        #expect(model.state(at: .seconds(end + 31)).dfaAlpha1 == nil)
    }

    @Test func aPauseEndsTheRun() {
        var model = DashboardModel(sensors: [(key: "hr", name: "HRM-Pro")], configurations: [], sensorKeys: [SensorID(1): "hr"])
        let before = Self.feed(&model, beats: 166, from: 0, seed: 3)
        model.apply(.event(WorkoutEvent(time: .seconds(before), kind: .pause)))
        model.apply(.event(WorkoutEvent(time: .seconds(before + 5), kind: .resume)))
        // 100 s before the pause and 100 s after it: neither run has the 120 s of beats a window needs.
        let end = Self.feed(&model, beats: 166, from: before + 5, seed: 4)
        #expect(model.state(at: .seconds(end)).dfaAlpha1 == nil)
        // Without the pause the same beats give a window.
        var unpaused = DashboardModel(sensors: [(key: "hr", name: "HRM-Pro")], configurations: [], sensorKeys: [SensorID(1): "hr"])
        let first = Self.feed(&unpaused, beats: 166, from: 0, seed: 3)
        let last = Self.feed(&unpaused, beats: 166, from: first, seed: 4)
        #expect(unpaused.state(at: .seconds(last)).dfaAlpha1 != nil)
    }

    @Test func mqttPublishesEachWindowToHundredths() {
        let topics = MQTTTopics(broker: MQTTBroker(host: "broker", port: 1883, tls: false, prefix: "sensorbridge"))
        let message = topics.dfaAlpha1(0.7349)
        #expect(message.topic.hasSuffix("/dfa_alpha1"))
        #expect(message.topic.hasPrefix(topics.broker.base))
        #expect(String(decoding: message.payload, as: UTF8.self) == "0.73")
        #expect(message.qos == MQTTQoS.atMostOnce)
    }
}
