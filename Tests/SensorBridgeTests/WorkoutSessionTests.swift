import Foundation
import SampleRing
import SensorBridge
import Session
import SensorCore
import Testing
import Workouts
import Zones
import Outputs

@Suite struct WorkoutSessionTests {
    static func builder() throws -> LiveWorkoutBuilder {
        var machine = WorkoutStateMachine()
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140]))
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 250]))
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        return builder
    }

    static func sample(_ type: QuantityType, _ value: Double, _ t: Double) -> SessionItem {
        .sample(Sample(sensor: SensorID(type == .heartRate ? 1 : 2), type: type, value: value, time: .milliseconds(Int64(t * 1000))))
    }

    /// Two producers on two threads, each with its own ring, one consumer: the workout is the
    /// same as when everything comes through one ring in time order.
    @Test func twoProducersGiveTheSameWorkoutAsOne() throws {
        let heart = (0..<600).map { Self.sample(.heartRate, 110 + Double($0 % 40), Double($0)) }
        let power = (0..<2400).map { Self.sample(.cyclingPower, 100 + Double($0 % 200), Double($0) / 4 + 0.1) }
        let end = SessionItem.control(SessionControl(.end, at: .seconds(600)))

        let merged = (heart + power).sorted { $0.time < $1.time } + [end]
        let single = WorkoutSession(builder: try Self.builder())
        let ring = single.makeRing()
        let one = try single.run(producers: [{ for item in merged { while !ring.hasRoom {}; ring.push(item) } }]).get()

        let double = WorkoutSession(builder: try Self.builder())
        let heartRing = double.makeRing(capacity: 64)
        let powerRing = double.makeRing(capacity: 64)
        let heartDone = DispatchSemaphore(value: 0)
        let two = try double.run(producers: [
            {
                for item in heart { while !heartRing.hasRoom {}; heartRing.push(item) }
                heartDone.signal()
            },
            {
                for item in power { while !powerRing.hasRoom {}; powerRing.push(item) }
                heartDone.wait()  // `end` only after both producers are done
                while !powerRing.hasRoom {}
                powerRing.push(end)
            },
        ]).get()

        #expect(two.zoneGroupsByType == one.zoneGroupsByType)
        #expect(two.statistics == one.statistics)
        #expect(two.samples.count == 3000)
        #expect(two.statistics.droppedSamples == 0)
    }

    /// A producer that pushes `items` in groups, sleeping `pause` after each group, then the end.
    static func paced(_ items: [SessionItem], group: Int, pause: TimeInterval, into ring: SampleRing<SessionItem>) -> @Sendable () -> Void {
        {
            for (index, item) in items.enumerated() {
                while !ring.hasRoom {}
                ring.push(item)
                if (index + 1) % group == 0 { Thread.sleep(forTimeInterval: pause) }
            }
            while !ring.hasRoom {}
            ring.push(.control(SessionControl(.end, at: .seconds(1000))))
        }
    }

    /// Items streaming in (a pair every 2 ms) are taken in naps within the budget, values that
    /// trickle in (one every 100 ms) as they arrive; either way the workout is the one a session
    /// without a budget builds.
    @Test func aLatencyBudgetBatchesAStreamAndNeverATrickle() throws {
        let items: [SessionItem] = (0..<400).map { i in
            let type: QuantityType = i % 2 == 0 ? .heartRate : .cyclingPower
            return Self.sample(type, 100 + Double(i % 90), Double(i))
        }
        let plain = WorkoutSession(builder: try Self.builder())
        let reference = try plain.run(producers: [Self.paced(items, group: 400, pause: 0, into: plain.makeRing())]).get()

        let streaming = WorkoutSession(builder: try Self.builder(), latencyBudget: .milliseconds(20))
        let streamed = try streaming.run(producers: [Self.paced(items, group: 2, pause: 0.002, into: streaming.makeRing())]).get()
        #expect(streamed.statistics == reference.statistics)
        #expect(streamed.zoneGroupsByType == reference.zoneGroupsByType)
        #expect(streaming.consumerNaps > 0, "a stream of pairs 2 ms apart is taken in naps")

        let trickle = Array(items.prefix(6))
        let slow = WorkoutSession(builder: try Self.builder(), latencyBudget: .milliseconds(10))
        let trickled = try slow.run(producers: [Self.paced(trickle, group: 1, pause: 0.1, into: slow.makeRing())]).get()
        #expect(trickled.samples.count == 6)
        #expect(slow.consumerNaps == 0, "one value every 100 ms is applied as it arrives")
    }

    @Test func droppedSamplesReachTheStatistics() throws {
        let session = WorkoutSession(builder: try Self.builder())
        let ring = session.makeRing(capacity: 4)
        let workout = try session.run(producers: [
            {
                // A producer that never waits: pushes into a ring nobody may have drained yet.
                for i in 0..<10_000 { ring.push(Self.sample(.heartRate, 130, Double(i) / 1000)) }
                while !ring.hasRoom {}
                ring.push(.control(SessionControl(.end, at: .seconds(11))))
            }
        ]).get()
        #expect(workout.statistics.droppedSamples == ring.droppedCount)
        #expect(workout.samples.count + workout.statistics.droppedSamples == 10_000)
    }

    @Test func builderOutputsArriveAsAnAsyncSequence() async throws {
        let builder = try Self.builder()
        builder.add([
            Sample(sensor: SensorID(1), type: .heartRate, value: 100, time: .seconds(1)),
            Sample(sensor: SensorID(1), type: .heartRate, value: 130, time: .seconds(2)),
        ])
        try builder.pause(at: .seconds(3))
        try builder.endCollection(at: .seconds(4))
        _ = try builder.finishWorkout()
        var kinds: [String] = []
        for await output in builder.outputs {
            switch output {
            case .state(let state): kinds.append(state.rawValue)
            case .zoneUpdate(let update): kinds.append("zone \(update.currentZoneIndex ?? -1)")
            case .event(let event): kinds.append(event.name)
            case .statistics: kinds.append("statistics")
            }
        }
        // The stream ends after `finished`.
        #expect(kinds == ["collecting", "zone 0", "zone 1", "pause", "paused", "ended", "finished"])
    }
}
