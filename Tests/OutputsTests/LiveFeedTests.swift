import Foundation
import HTTP
@testable import Outputs
import SensorCore
import Session
import Testing
import Workouts
import Zones

/// The live feed's clients: one that stops reading is never waited for; once it has read what was
/// queued it gets a fresh snapshot and then the events again.
@Suite struct LiveFeedTests {
    static func heartRate(_ bpm: Double, at seconds: Double) -> SessionItem {
        .sample(Sample(sensor: SensorID(1), type: .heartRate, value: bpm, time: .milliseconds(Int64(seconds * 1000))))
    }

    /// Everything a stream holds now.
    static func drain(_ stream: HTTPStream) -> String {
        var text = ""
        while let bytes = stream.read(maximum: 1 << 20, timeout: .zero), !bytes.isEmpty { text += String(decoding: bytes, as: UTF8.self) }
        return text
    }

    static func events(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
    }

    @Test(.timeLimit(.minutes(10))) func aClientThatStopsReadingIsResynchronisedWithASnapshot() throws {
        var machine = WorkoutStateMachine(activityType: .cycling)
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140]))
        machine.sensors = [SensorID(1): "hr"]
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_793_620_800))
        let session = WorkoutSession(builder: builder)
        let controls = session.makeControls(clock: { .zero }, end: {})
        let feed = LiveFeed()
        let model = DashboardModel(
            sensors: [(key: "hr", name: "Strap")],
            configurations: WorkoutStateMachine.zonedTypes.compactMap(builder.zoneConfiguration(for:)))
        feed.follow(session, controls: controls, anchor: .now, model: model)
        let slow = feed.connect(capacity: 4096)
        let steady = feed.connect()
        let ring = session.makeRing()
        let next = DispatchSemaphore(value: 0)
        let pushed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = session.run(producers: [{
                // Zone changes, each an event for every client, until the slow one is full.
                for i in 0..<60 { _ = ring.push(Self.heartRate(i % 2 == 0 ? 110 : 150, at: Double(i))) }
                pushed.signal()
                next.wait()
                // A zone change is published once time has moved past it: a second sample.
                _ = ring.push(Self.heartRate(130, at: 61))
                _ = ring.push(Self.heartRate(130, at: 61.5))
                pushed.signal()
                next.wait()
                _ = ring.push(.control(SessionControl(.end, at: .seconds(62))))
            }])
            finished.signal()
        }
        pushed.wait()
        // The steady client reads as it goes; the slow one reads nothing.
        var steadyText = ""
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.events(steadyText).filter({ $0 == "zone" }).count < 60, ContinuousClock.now < deadline {
            steadyText += Self.drain(steady)
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(Self.events(steadyText).filter { $0 == "zone" }.count == 60)
        let behind = Self.drain(slow)
        #expect(behind.utf8.count <= 4096)
        #expect(Self.events(behind).first == "snapshot")
        #expect(Self.events(behind).filter { $0 == "zone" }.count < 60, "the slow client was never cut off")

        // Having read, it gets a snapshot with the state as it is now, then events again.
        next.signal()
        pushed.wait()
        var caughtUp = ""
        while !caughtUp.contains(#""heartRate":130"#) || !Self.events(caughtUp).dropFirst().contains("live"), ContinuousClock.now < deadline {
            caughtUp += Self.drain(slow)
            Thread.sleep(forTimeInterval: 0.01)
        }
        let names = Self.events(caughtUp)
        #expect(names.first == "snapshot", "\(names)")
        // Then the events again, with the state as it is now.
        #expect(caughtUp.contains(#""heartRate":130"#))
        #expect(names.dropFirst().contains("live"), "\(names)")
        next.signal()
        finished.wait()
    }
}
