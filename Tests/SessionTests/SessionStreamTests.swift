import Foundation
import Synchronization
import GATT
import SampleRing
import SensorCore
@testable import Session
import Testing
import Workouts
import Zones

/// The session's event stream and controls, and the validity rules of its decode path, driven
/// without BlueZ: items pushed into rings as a source would.
@Suite struct SessionStreamTests {
    static func session() throws -> WorkoutSession {
        var machine = WorkoutStateMachine(activityType: .cycling)
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140]))
        machine.sensors = [SensorID(1): "hr"]
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_793_620_800))
        return WorkoutSession(builder: builder)
    }

    static func heartRate(_ bpm: Double, at seconds: Double) -> SessionItem {
        .sample(Sample(sensor: SensorID(1), type: .heartRate, value: bpm, time: .milliseconds(Int64(seconds * 1000))))
    }

    /// A subscriber that reads nothing until the end: the consumer never waits for it; it loses
    /// samples and statistics first, keeps the zone updates and state changes, and is told how
    /// many events it lost.
    @Test func aSlowSubscriberDropsSamplesFirstAndSaysSo() throws {
        let session = try Self.session()
        let slow = session.subscribe(capacity: 16)
        let ring = session.makeRing()
        let result = session.run(producers: [{
            for i in 0..<2_000 { _ = ring.push(Self.heartRate(i % 200 < 100 ? 110 : 150, at: Double(i) * 0.5)) }
            _ = ring.push(.control(SessionControl(.end, at: .seconds(1000))))
        }])
        let workout = try result.get()
        var events: [SessionEvent] = []
        while let event = slow.next(timeout: .zero) { events.append(event) }
        #expect(slow.isFinished)
        let dropped = events.reduce(0) { if case .dropped(let n) = $1 { $0 + n } else { $0 } }
        #expect(dropped > 1_000)
        let kept = events.filter { if case .dropped = $0 { false } else { true } }
        #expect(kept.count <= 16 + 1)
        // The last state changes are there; the samples went first.
        let states = kept.compactMap { event -> WorkoutBuilderState? in
            if case .output(.state(let state)) = event { state } else { nil }
        }
        #expect(states.suffix(2) == [.ended, .finished])
        #expect(workout.samples.count == 2_000)
    }

    /// A subscriber that keeps up sees every sample and zone update, in order.
    @Test func aSubscriberThatKeepsUpSeesEverything() throws {
        let session = try Self.session()
        let reader = session.subscribe(capacity: 64)
        let seen = Mutex<[SessionEvent]>([])
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !reader.isFinished { if let event = reader.next(timeout: .milliseconds(50)) { seen.withLock { $0.append(event) } } }
            done.signal()
        }
        let ring = session.makeRing()
        let workout = try session.run(producers: [{
            for i in 0..<200 {
                _ = ring.push(Self.heartRate(i % 20 < 10 ? 110 : 150, at: Double(i)))
                if i % 10 == 0 { Thread.sleep(forTimeInterval: 0.001) }
            }
            _ = ring.push(.control(SessionControl(.end, at: .seconds(200))))
        }]).get()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let events = seen.withLock { $0 }
        #expect(!events.contains { if case .dropped = $0 { true } else { false } })
        let samples = events.compactMap { if case .sample(let s) = $0 { s } else { nil } }
        #expect(samples == workout.samples)
        let updates = events.compactMap { if case .output(.zoneUpdate(let u)) = $0 { u } else { nil } }
        #expect(updates == workout.zoneUpdates)
    }

    /// Controls from another thread reach the workout as manual pauses, resumes and laps, stamped
    /// with the session's clock; each is seen by `onControl` (the trace writer).
    @Test func controlsFromAnyThread() throws {
        let session = try Self.session()
        let clock = Mutex(Duration.zero)
        let pushed = Mutex<[SessionControl.Kind]>([])
        let controls = session.makeControls(
            clock: { clock.withLock { $0 } }, end: {}, onControl: { control in pushed.withLock { $0.append(control.kind) } })
        let ring = session.makeRing()
        let workout = try session.run(producers: [{
            for i in 0..<40 {
                clock.withLock { $0 = .seconds(i) }
                _ = ring.push(Self.heartRate(130, at: Double(i)))
                switch i {
                case 10: controls.togglePause()
                case 20: controls.togglePause()
                case 30: controls.lap()
                default: break
                }
                // Let the consumer apply the control before the next toggle reads the state.
                Thread.sleep(forTimeInterval: 0.01)
            }
            _ = ring.push(.control(SessionControl(.end, at: .seconds(40))))
        }]).get()
        let controlled = workout.events.compactMap { e -> String? in
            switch e.kind {
            case .pause, .resume, .lap: "\(e.name) \(e.cause.rawValue) \(Int(e.time.seconds))"
            default: nil
            }
        }
        #expect(controlled == ["pause manual 10", "resume manual 20", "lap manual 30"])
        #expect(pushed.withLock { $0 } == [.pause, .resume, .lap])
    }

    /// The one decode path: a strap without contact or with an implausible heart rate gives no
    /// sample, and says so once until a value counts again; a power of 0 W counts.
    @Test func onlyValidValuesCount() throws {
        var decoder = NotificationDecoder()
        var items: [SessionItem] = []
        let hr = BluetoothUUID(0x2A37), power = BluetoothUUID(0x2A63)
        func decode(_ hex: String, _ uuid: BluetoothUUID, _ sensor: UInt16, at t: Int64) {
            decoder.decode(try! Hex.decode(hex), uuid: uuid, from: SensorID(sensor), at: .seconds(t)) { items.append($0) }
        }
        decode("0678", hr, 1, at: 0)  // contact detected, 120 bpm
        decode("0400", hr, 1, at: 1)  // contact supported, not detected, 0 bpm
        decode("0448", hr, 1, at: 2)  // not detected, 72 bpm
        decode("06ff", hr, 1, at: 3)  // detected, 255 bpm: implausible
        decode("0100d5d5", hr, 1, at: 4)  // uint16 54,709 bpm
        decode("0048", hr, 1, at: 5)  // contact not supported, 72 bpm: counts
        decode("00000000", power, 2, at: 6)  // 0 W: coasting, counts
        let described = items.map { item -> String in
            switch item {
            case .sample(let s): "\(s.type.identifier) \(Int(s.value))"
            case .control(let c): "\(c.kind) \(c.time.components.seconds)"
            }
        }
        #expect(described == [
            "heartRate 120", "noContact 1", "invalidValues 3", "heartRate 72", "cyclingPower 0",
        ])
    }
}
