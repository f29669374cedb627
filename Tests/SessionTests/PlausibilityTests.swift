import Foundation
import GATT
import SensorCore
@testable import Session
import Testing
import Workouts
import Zones

/// Values a person could not produce do not count (issue 32, item 4), through the session's one
/// decode path: notifications decoded by `NotificationDecoder`, pushed into a ring and consumed
/// by a `WorkoutSession` as live values and replayed ones are.
@Suite struct PlausibilityTests {
    static let hr = SensorID(1), power = SensorID(2), csc = SensorID(3)

    struct Notification {
        var sensor: SensorID
        var uuid: BluetoothUUID
        var bytes: [UInt8]
        var time: Duration
    }

    static func power(_ watts: Int16, at seconds: Double) -> Notification {
        let w = UInt16(bitPattern: watts)
        return Notification(
            sensor: power, uuid: BluetoothUUID(0x2A63), bytes: [0, 0, UInt8(w & 0xFF), UInt8(w >> 8)],
            time: .milliseconds(Int64(seconds * 1000)))
    }

    /// Contact detected (`contact: true`) or not detected.
    static func heartRate(_ bpm: UInt8, at seconds: Double, contact: Bool = true) -> Notification {
        Notification(sensor: hr, uuid: BluetoothUUID(0x2A37), bytes: [contact ? 0x06 : 0x04, bpm], time: .seconds(seconds))
    }

    /// The workout the session makes of `notifications`, ended at `end` seconds, with power zones
    /// at 150, 250 W and heart-rate zones at 120, 140 bpm.
    static func workout(_ notifications: [Notification], end: Double) throws -> Workout {
        var machine = WorkoutStateMachine(activityType: .cycling)
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140]))
        try machine.setCustomZoneConfiguration(WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [150, 250]))
        machine.sensors = [hr: "hr", power: "power", csc: "csc"]
        let builder = LiveWorkoutBuilder(machine)
        try builder.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 1_793_620_800))
        let session = WorkoutSession(builder: builder)
        let ring = session.makeRing()
        return try session.run(producers: [{
            var decoder = NotificationDecoder()
            for n in notifications {
                decoder.decode(n.bytes, uuid: n.uuid, from: n.sensor, at: n.time) { _ = ring.push($0) }
            }
            _ = ring.push(.control(SessionControl(.end, at: .milliseconds(Int64(end * 1000)))))
        }]).get()
    }

    /// A steady ride around 200 W (180-220 W, one value a second), with `replace` applied.
    static func ride(seconds: Int = 600, replace: [Int: Int16] = [:]) -> [Notification] {
        (0..<seconds).map { t in power(replace[t] ?? Int16(200 + 20 * sin(Double(t) / 7)), at: Double(t)) }
    }

    /// Issue 32's example: a single 1 s value of 4000 W (above the cap), or of 2500 W (a spike
    /// against the seconds before it), in a steady 200 W ride leaves NP within 1 % of the clean
    /// ride's and does not become the maximum; the value is invalid, shown and counted as such.
    @Test(arguments: [Int16(4000), 2500])
    func aOneSecondSpikeDoesNotMoveTheRide(spike: Int16) throws {
        let clean = try Self.workout(Self.ride(), end: 600)
        let spiked = try Self.workout(Self.ride(replace: [300: spike]), end: 600)
        let cleanPower = try #require(clean.statistics.cyclingPower)
        let spikedPower = try #require(spiked.statistics.cyclingPower)
        let np = try #require(spikedPower.normalized), cleanNP = try #require(cleanPower.normalized)
        #expect(abs(np - cleanNP) / cleanNP < 0.01)
        #expect(spikedPower.maximum == cleanPower.maximum)
        #expect(spikedPower.maximum < 221)
        #expect(spikedPower.count == cleanPower.count - 1)
        // No zone holds the spike: the top zone (250 W and above) stays empty.
        #expect(spiked.zoneGroupsByType[.cyclingPower]?.zoneDurations.last?.duration == .zero)
        let states = spiked.events.compactMap { e -> String? in
            if case .sensorState(let name, let state) = e.kind { "\(name) \(state) \(Int(e.time.seconds))" } else { nil }
        }
        #expect(states == ["power invalid 300", "power notifying 301"])
        #expect(spiked.sensorStates["power"]?[.invalid] == .seconds(1))
    }

    /// A real sprint, from 200 W to 1,200 W within a second and held for 10 s, counts from its
    /// first value.
    @Test func aSprintCounts() throws {
        var jump: [Int: Int16] = [:]
        for t in 300..<310 { jump[t] = 1200 }
        let workout = try Self.workout(Self.ride(replace: jump), end: 600)
        #expect(workout.statistics.cyclingPower?.maximum == 1200)
        #expect(workout.statistics.cyclingPower?.count == 600)
        #expect(workout.sensorStates["power"]?[.invalid] == nil)
    }

    /// A strap reporting "no contact" ends its last value's hold at once: time in zone stops at the
    /// no-contact notification's time, not 5 s after the last valid value.
    @Test func noContactEndsTheHoldAtOnce() throws {
        var notifications = (0..<10).map { Self.heartRate(130, at: Double($0)) }
        notifications.append(Self.heartRate(0, at: 10.5, contact: false))
        let workout = try Self.workout(notifications, end: 30)
        let group = try #require(workout.zoneGroupsByType[.heartRate])
        let total = group.zoneDurations.reduce(Duration.zero) { $0 + $1.duration }
        #expect(total == .milliseconds(10_500))
        #expect(group.zoneDurations[1].duration == .milliseconds(10_500))
        let last = try #require(workout.zoneUpdates.last)
        #expect(last.currentZoneIndex == nil)
        #expect(last.time == .milliseconds(10_500))
    }

    /// A power meter's impossible value ends its hold too: the second it stands for belongs to no zone.
    @Test func anInvalidPowerEndsItsHold() throws {
        let notifications = [Self.power(200, at: 0), Self.power(200, at: 1), Self.power(5000, at: 1.5), Self.power(200, at: 2.5)]
        let workout = try Self.workout(notifications, end: 3.5)
        let group = try #require(workout.zoneGroupsByType[.cyclingPower])
        #expect(group.zoneDurations[1].duration == .milliseconds(2_500))  // 0-1.5 s and 2.5-3.5 s
        #expect(workout.statistics.cyclingPower?.energy == 0.5)  // 200 W for 2.5 s, in kJ
    }

    /// Cadence above `SensorState.plausibleCadence` (250 rpm; the rate estimator itself drops
    /// deltas above 300 rpm as a counter reset) makes the measurement invalid; a plausible one counts.
    @Test func implausibleCadenceDoesNotCount() throws {
        var extractor = SampleExtractor(sensor: Self.csc)
        var samples: [Sample] = []
        func csc(revolutions: UInt16, eventTime: UInt16, at seconds: Int64) -> SensorState? {
            let bytes: [UInt8] = [0x02, UInt8(revolutions & 0xFF), UInt8(revolutions >> 8), UInt8(eventTime & 0xFF), UInt8(eventTime >> 8)]
            let value = try! #require(try GATTValue.decode(uuid: BluetoothUUID(0x2A5B), bytes: bytes))
            return extractor.extract(value, at: .seconds(seconds), into: &samples)
        }
        #expect(csc(revolutions: 0, eventTime: 0, at: 0) == nil)
        #expect(csc(revolutions: 1, eventTime: 1024, at: 1) == nil)  // 60 rpm
        #expect(samples.map(\.value) == [60])
        #expect(csc(revolutions: 15, eventTime: 4096, at: 2) == .invalid)  // 14 in 3 s: 280 rpm
        #expect(samples.map(\.value) == [60])
        #expect(csc(revolutions: 16, eventTime: 5120, at: 3) == nil)
        #expect(samples.map(\.value) == [60, 60])
    }
}
