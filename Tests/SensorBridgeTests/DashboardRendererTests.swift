import BlueZ
import Foundation
import SensorCore
import Testing
import Workouts
import Zones

@testable import SensorBridge
import Outputs

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

    /// Heart rate and power at `second` to `machine` and `model`, then the machine's outputs to the
    /// model, as the session's stream gives them in `record`.
    static func feed(
        heartRate: Double, power: Double, at second: Int, _ machine: inout WorkoutStateMachine, _ model: inout DashboardModel
    ) {
        for sample in [
            Sample(sensor: SensorID(1), type: .heartRate, value: heartRate, time: .seconds(second)),
            Sample(sensor: SensorID(2), type: .cyclingPower, value: power, time: .seconds(second)),
        ] {
            machine.add(sample)
            model.add(sample)
        }
        while let output = machine.nextOutput() { model.apply(output) }
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
        let wide = renderer.render(state, width: 80, height: 24).lines.map(Self.visible)
        // Zone 3 has the most time (1 s + 1 s + 0.5 s so far): the full bar, 80 - 35 columns.
        let zone3 = try #require(wide.first { $0.hasPrefix("> Zone 3") })
        #expect(zone3.hasSuffix(String(repeating: "█", count: 45)))
        #expect(zone3.contains("0:03"))
        #expect(wide.contains("Heart rate  125 bpm   zone 3 for 0:03"))
    }

    @Test func theCurrentZoneIsHighlightedAndItsTimeRunsOn() throws {
        let model = try Self.model(heartRates: [105, 135])
        var renderer = DashboardRenderer()
        let lines = renderer.render(model.state(at: Self.t(4)), width: 80, height: 24).lines
        // Zone 4 in the palette's yellow (#fdd835, xterm 221), black on it: the figure and the bar.
        let highlighted = lines.filter { $0.hasPrefix("\u{1B}[30;48;5;221m") }.map(Self.visible)
        #expect(highlighted == ["Heart rate  135 bpm   zone 4 for 0:02", "> Zone 4  130-140 bpm        0:02  " + String(repeating: "█", count: 45)])
        // Entered at t = 2, drawn at t = 4: 2 s in zone 4, extrapolated from the last update.
        #expect(model.state(at: Self.t(4)).zones[0].durations[3] == .seconds(2))
        #expect(model.state(at: Self.t(4)).zones[0].inZoneFor == .seconds(2))
    }

    @Test func withoutZonesTheDashboardSaysHowToGetThem() throws {
        let model = try Self.model(heartRates: [140, 141], zones: [])
        var renderer = DashboardRenderer()
        let frame = renderer.render(model.state(at: Self.t(2.5)), width: 80, height: 13)
        #expect(frame.lines.contains("Heart rate  141 bpm"))
        #expect(frame.lines.contains { $0.hasPrefix("No zones: give --hr-zones") })
        #expect(!frame.lines.contains { $0.contains("Zone 1") || $0.contains("\u{1B}[") })
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
        #expect(renderer.render(model.state(at: Self.t(7)), width: 80, height: 24).lines.contains { Self.visible($0).hasPrefix("Heart rate  -- bpm") })
    }

    /// The relay's line follows its events: registered, advertising, apps connecting and
    /// subscribing, one leaving, BlueZ going away, a failure.
    @Test func theRelayLineFollowsItsEvents() throws {
        var model = try Self.model(heartRates: [120])
        var status = RelayStatus(name: "Bike 2")
        var renderer = DashboardRenderer()
        func line() -> String? {
            model.relay = status
            return renderer.render(model.state(at: Self.t(1.5)), width: 200).lines.first { $0.hasPrefix("Relay") }
        }
        #expect(line() == "Relay 'Bike 2': waiting for BlueZ")
        status.apply(.registered(adapter: "/org/bluez/hci0"))
        #expect(line() == "Relay 'Bike 2': registered; advertising once the first value comes")
        for event: GattRelayEvent in [
            .advertising(name: "Bike 2"), .central(address: "C0:FF:EE:00:00:01", connected: true),
            .central(address: "C0:FF:EE:00:00:00", connected: true), .subscribers(uuid: 0x2A63, count: 2), .subscribers(uuid: 0x2A37, count: 2),
        ] {
            status.apply(event)
        }
        #expect(line() == "Relay 'Bike 2': advertising; 2 apps connected (C0:FF:EE:00:00:00, C0:FF:EE:00:00:01); subscribed: heart rate 2, power 2")
        status.apply(.central(address: "C0:FF:EE:00:00:01", connected: false))
        status.apply(.subscribers(uuid: 0x2A37, count: 1))
        #expect(line() == "Relay 'Bike 2': advertising; 1 app connected (C0:FF:EE:00:00:00); subscribed: heart rate 1, power 2")
        #expect(status.json["centrals"] == .array([.string("C0:FF:EE:00:00:00")]))
        status.apply(.bluezGone)
        #expect(line() == "Relay 'Bike 2': waiting for BlueZ")
        status.apply(.failed(.noAdvertisingSlots(adapter: "/org/bluez/hci0")))
        #expect(line()?.hasPrefix("Relay 'Bike 2': the Bluetooth adapter /org/bluez/hci0 has no advertising slot left") == true)
        // Narrow: wrapped, never cut.
        model.relay = status
        let narrow = renderer.render(model.state(at: Self.t(1.5)), width: 40).lines
        #expect(narrow.contains { $0.hasPrefix("Relay 'Bike 2'") } && narrow.contains { $0.contains("--adapter") })
    }

    /// Heart rate through a real state machine with a target of zones 2-3 (0-based 1...2) and a
    /// debounce of 10 s; returns the bell of a frame drawn at each second.
    @Test func aTargetAlertRingsOnceAfterTheDebounceAndNeverWhilePaused() throws {
        var machine = WorkoutStateMachine()
        try machine.setCustomZoneConfiguration(Self.heartZones)
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        let target = WorkoutTarget(quantityType: .heartRate, zones: 1...2)
        var model = DashboardModel(
            sensors: Self.sensors, configurations: [Self.heartZones], targets: [TargetZoneCoach(target: target)])
        var renderer = DashboardRenderer()
        var bells: [Int] = []
        var alertLines: [String] = []
        // Zones change every second in the target (no bell), then zone 4 from t = 10 to 35 with
        // a pause from 14 to 30, then back in target.
        for second in 1...40 {
            if second == 14 { try machine.pause(at: .seconds(second)) }
            if second == 30 { try machine.resume(at: .seconds(second)) }
            let value: Double = second < 10 ? (second % 2 == 0 ? 115 : 125) : second < 36 ? 135 : 125
            machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: value, time: .seconds(second)))
            while let output = machine.nextOutput() { model.apply(output) }
            let frame = renderer.render(model.state(at: .seconds(second)), width: 80, height: 30)
            if frame.bell { bells.append(second) }
            alertLines += frame.lines.filter { $0.hasPrefix(DashboardRenderer.alertOn) }.map(Self.visible)
        }
        // Out from 10 to the pause at 14 (4 s), then from the resume at 30 to 36 (6 s): never
        // 10 s in a row of active time, so no alert and no bell.
        #expect(bells.isEmpty)
        #expect(alertLines.isEmpty)
        // Out for 12 s without a pause: one bell at the 10th second, the line highlighted until back.
        var coach = TargetZoneCoach(target: target)
        coach.zone(3, at: .seconds(50))
        #expect(!coach.alerting(at: .seconds(59.9)) && coach.alerting(at: .seconds(60)))
        model.apply(.zoneUpdate(try Self.update(zone: 3, at: 50)))
        let ringing = (50...62).filter { renderer.render(model.state(at: .seconds($0)), width: 80, height: 30).bell }
        #expect(ringing == [60])
        let line = renderer.render(model.state(at: .seconds(61)), width: 80, height: 30).lines.first { $0.hasPrefix(DashboardRenderer.alertOn) }
        #expect(line.map(Self.visible) == "Target heart-rate zones 2-3: OUT 0:11, too high (zone 4)")
        model.apply(.zoneUpdate(try Self.update(zone: 1, at: 63)))
        #expect(renderer.render(model.state(at: .seconds(64)), width: 80, height: 30).lines.map(Self.visible).contains("Target heart-rate zones 2-3: in (zone 2)"))
    }

    /// A plan on the dashboard: the step under way with its time left, target and the next; the
    /// bell once as each step begins and once when its alert starts (out of 190-210 W for 10 s),
    /// the step's beginning told; the key line says the lap key ends the step.
    @Test func aPlansStepsAreDrawnAndRingAsTheyBeginAndDrift() throws {
        let plan = WorkoutPlan(name: "P", entries: [
            .step(PlanStep(name: "Steady", length: .time(.seconds(30)), target: .watts(190...210))),
            .step(PlanStep(length: .time(.seconds(20)), target: .powerOfFTP(0.5...0.5))),
        ])
        var machine = WorkoutStateMachine()
        machine.plan = plan
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        var model = DashboardModel(
            sensors: Self.sensors, configurations: [Self.powerZones], functionalThresholdPower: 250,
            steps: StepCoach(plan: plan, functionalThresholdPower: 250, zones: [Self.powerZones]))
        model.keys = true
        var renderer = DashboardRenderer()
        var bells: [Int] = []
        var frames: [Int: [String]] = [:]
        // 200 W for 10 s, 240 W from 10 s (out, the alert at 20 s), the second step from 30 s at 125 W (in).
        for second in 1...40 {
            Self.feed(heartRate: 120, power: second < 10 ? 200 : second < 30 ? 240 : 125, at: second, &machine, &model)
            let frame = renderer.render(model.state(at: .seconds(second)), width: 100, height: 30)
            if frame.bell { bells.append(second) }
            frames[second] = frame.lines.map(Self.visible)
        }
        #expect(bells == [20, 30], "the alert at 20 s, the second step at 30 s")
        #expect(frames[5]?.contains("Step 1/2 Steady  0:05, 0:25 left  190-210 W") == true, "\(frames[5] ?? [])")
        #expect(frames[5]?.contains("  in target   next: 0:20, 50% of FTP (125 W)") == true, "\(frames[5] ?? [])")
        #expect(frames[25]?.contains("  OUT 0:15, too high   next: 0:20, 50% of FTP (125 W)") == true, "\(frames[25] ?? [])")
        #expect(frames[35]?.contains("Step 2 of 2: 0:20, 50% of FTP (125 W)") == true, "\(frames[35] ?? [])")
        #expect(frames[35]?.contains("  in target   last step") == true && frames[35]?.contains { $0.contains("l next step") } == true)
    }

    /// The ride: 12 s, a pause of 6 s, then 28 s more, with a lap before the pause and a
    /// zone held across it. At the end, the live zone durations, the active time and the lap clock
    /// equal what the builder saves (they said 28 s of 40 when only time after the resume counted).
    @Test func liveFiguresAtTheEndEqualTheSavedWorkoutsAcrossAPause() throws {
        var machine = WorkoutStateMachine()
        for configuration in [Self.heartZones, Self.powerZones] { try machine.setCustomZoneConfiguration(configuration) }
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        var model = DashboardModel(sensors: Self.sensors, configurations: [Self.heartZones, Self.powerZones])
        var seen: [Duration] = []
        for second in 1...46 {
            if second == 10 { try machine.lap(at: .seconds(second)) }
            if second == 12 { try machine.pause(at: .seconds(second)) }
            if second == 18 { try machine.resume(at: .seconds(second)) }
            // Heart rate in zone 3 from t = 5 to the end (one zone across the pause), power changing zone at 30.
            let heartRate: Double = second < 5 ? 115 : 125
            let power: Double = second < 30 ? 180 : 260
            // The sensors go on sending while paused, as they do.
            Self.feed(heartRate: heartRate, power: power, at: second, &machine, &model)
            // While paused nothing runs: the figures at 15 are those at 12.
            if second == 12 || second == 15 { seen.append(model.state(at: .seconds(second)).zones[0].durations.reduce(.zero, +)) }
        }
        let live = model.state(at: .seconds(46))
        try machine.endCollection(at: .seconds(46))
        let workout = try machine.finishWorkout()
        #expect(seen.count == 2 && seen[0] == seen[1])
        #expect(live.active == .seconds(40) && live.active == workout.activeDuration)
        for zones in live.zones {
            let saved = try #require(workout.zoneGroupsByType[zones.configuration.quantityType])
            #expect(zones.durations == saved.durations, "\(zones.configuration.quantityType)")
        }
        #expect(live.zones[0].durations.reduce(.zero, +) == .seconds(45) - .seconds(6))
        // Heart rate entered zone 3 at 5 and stayed there through the pause: 35 s of active time.
        #expect(live.zones[0].current == 2 && live.zones[0].inZoneFor == .seconds(35))
        let lastLap = try #require(workout.lapSummaries().last)
        #expect(live.lap == 2 && live.lapElapsed == lastLap.timerTime && live.lapElapsed == .seconds(30))
    }

    /// A multisport ride begun live: cycling, a transition at 20 s, running at 26 s with a pause in
    /// it. Just before each switch and at the end, each activity's live time in zone equals what
    /// the builder saves for that activity; each activity begins a lap, and the dashboard names the
    /// activity under way and the next.
    @Test func eachActivityGetsItsOwnLiveZoneTimeEqualToTheSavedOne() throws {
        let zones = [Self.heartZones, Self.powerZones]
        let plan = ActivityPlan([.cycling, .running])
        var machine = WorkoutStateMachine(activityType: .cycling)
        for configuration in zones { try machine.setCustomZoneConfiguration(configuration) }
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        var model = DashboardModel(sensors: Self.sensors, configurations: zones, activities: plan)
        #expect(model.state(at: .zero).activity == DashboardState.Activity(type: .cycling, number: 1, elapsed: .zero, next: .transition))
        var live: [[[Duration]]] = []
        for second in 1...50 {
            if second == 20 || second == 26 || second == 50 {
                live.append(try model.state(at: .seconds(second)).zones.map { try #require($0.activityDurations) })
            }
            if second == 20 { try machine.beginActivity(.transition, at: .seconds(second)) }
            if second == 26 { try machine.beginActivity(.running, at: .seconds(second)) }
            if second == 35 { try machine.pause(at: .seconds(second)) }
            if second == 40 { try machine.resume(at: .seconds(second)) }
            // Heart rate changes zone within each activity and holds across the switches.
            let heartRate: Double = second < 8 ? 105 : second < 17 ? 125 : second < 23 ? 135 : second < 31 ? 145 : 115
            let power: Double = second < 20 ? 210 : 0
            Self.feed(heartRate: heartRate, power: power, at: second, &machine, &model)
        }
        let end = model.state(at: .seconds(50))
        try machine.endCollection(at: .seconds(50))
        let workout = try machine.finishWorkout()
        #expect(workout.activities.map(\.activityType) == [.cycling, .transition, .running] && live.count == 3)
        for (activity, durations) in zip(workout.activities, live) {
            for (configuration, live) in zip(zones, durations) {
                let saved = activity.zoneGroupsByType[configuration.quantityType]?.durations ?? []
                #expect(live == saved, "\(activity.activityType) \(configuration.quantityType)")
            }
        }
        // The workout's own zone time is the activities' together.
        #expect(end.zones[0].durations == workout.zoneGroupsByType[.heartRate]?.durations)
        #expect(end.activity == DashboardState.Activity(type: .running, number: 3, elapsed: .seconds(19), next: nil))
        #expect(end.lap == 3 && end.lapElapsed == .seconds(19))
        var renderer = DashboardRenderer()
        var keyed = end
        keyed.keys = true
        let lines = renderer.render(keyed, width: 100).lines.map(Self.visible)
        #expect(lines.contains { $0.hasPrefix("Activity 3  running 0:19") }, "\(lines)")
        #expect(lines.contains { $0.contains("workout  activity") }, "\(lines)")
        var cycling = DashboardModel(sensors: Self.sensors, configurations: zones, activities: plan)
        cycling.keys = true
        let first = renderer.render(cycling.state(at: .seconds(1)), width: 100).lines.map(Self.visible)
        #expect(first.contains { $0.hasPrefix("Activity 1  cycling 0:01   next: transition") }, "\(first)")
        #expect(first.contains("space pause/resume   l lap   n transition   q end and save"), "\(first)")
    }

    /// A paused dashboard does not judge a target: not "in" while a zone-4 effort goes on.
    @Test func aPausedTargetIsNeitherInNorOut() throws {
        let target = WorkoutTarget(quantityType: .heartRate, zones: 1...1)
        var model = DashboardModel(
            sensors: Self.sensors, configurations: [Self.heartZones], targets: [TargetZoneCoach(target: target)])
        var renderer = DashboardRenderer()
        func line(at seconds: Int) -> String? {
            renderer.render(model.state(at: .seconds(seconds)), width: 80, height: 30).lines.map(Self.visible)
                .first { $0.hasPrefix("Target") }
        }
        model.apply(.zoneUpdate(try Self.update(zone: 3, at: 1)))
        #expect(line(at: 2) == "Target heart-rate zone 2: OUT 0:01, too high (zone 4)")
        model.apply(.event(WorkoutEvent(time: .seconds(3), kind: .pause, cause: .manual)))
        #expect(line(at: 4) == "Target heart-rate zone 2: paused")
        #expect(model.state(at: .seconds(4)).targets.first?.paused == true)
        model.apply(.event(WorkoutEvent(time: .seconds(5), kind: .resume, cause: .manual)))
        #expect(line(at: 6) == "Target heart-rate zone 2: OUT 0:01, too high (zone 4)")
    }

    /// A zone update of the heart-rate zones entering `zone` at `seconds`.
    static func update(zone: Int, at seconds: Int) throws -> ZoneUpdate {
        var machine = WorkoutStateMachine()
        try machine.setCustomZoneConfiguration(heartZones)
        try machine.beginCollection(at: .zero, date: Date(timeIntervalSince1970: 0))
        let value = [105.0, 115, 125, 135, 145][zone]
        machine.add(Sample(sensor: SensorID(1), type: .heartRate, value: value, time: .seconds(seconds)))
        while let output = machine.nextOutput() {
            if case .zoneUpdate(let update) = output { return update }
        }
        throw CancellationError()
    }

    /// 60 columns by 15 rows: the sensors and the whole message stay on screen, the zones shrink
    /// to a line each; a large screen gets big digits; messages go after 15 s.
    @Test func theLayoutFitsSmallScreensAndUsesLargeOnes() throws {
        var model = try Self.model(heartRates: [105, 115, 125, 125, 125])
        model.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: 210, time: Self.t(5)))
        model.connected("hr")
        model.connected("power")
        let advice = "the heart-rate strap reports no skin contact: wet the electrodes and wear the strap snugly below the chest"
        model.show(advice, at: Self.t(5))
        var renderer = DashboardRenderer()
        let small = renderer.render(model.state(at: Self.t(5.5)), width: 60, height: 15).lines
        #expect(small.count <= 15)
        for line in small { #expect(Self.visible(line).count <= 60, "\(line)") }
        let visible = small.map(Self.visible)
        #expect(visible.contains("HRM-Pro (hr)  connected") && visible.contains("Assioma (power)  connected"))
        #expect(visible.joined(separator: " ").contains(advice))
        #expect(visible.contains { $0.hasPrefix("HR zones  1 0:01  2 0:01 >3 0:03") })
        // A large screen: digits five rows high, heart rate on the left and power on the right.
        let large = renderer.render(model.state(at: Self.t(5.5)), width: 100, height: 50).lines.map(Self.visible)
        #expect(large[1] == "  " + " █  ███ ███" + String(repeating: " ", count: 17) + "███  █  ███")
        #expect(large.contains { $0.hasPrefix("> Zone 3") })
        // The message has gone 15 s later.
        #expect(!renderer.render(model.state(at: Self.t(20)), width: 60, height: 15).lines.map(Self.visible).joined().contains("skin"))
    }

    /// A sensor that is lost blanks its values at once, and its 3 s power with them.
    @Test func aLostSensorShowsDashesAtOnce() {
        var model = DashboardModel(
            sensors: Self.sensors, configurations: [], sensorKeys: [SensorID(1): "hr", SensorID(2): "power"])
        model.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: 210, time: .seconds(1)))
        model.add(Sample(sensor: SensorID(1), type: .heartRate, value: 130, time: .seconds(1)))
        #expect(model.state(at: .seconds(1.5)).power == 210)
        model.lost("power", retryAt: .seconds(3))
        let state = model.state(at: .seconds(1.5))
        #expect(state.power == nil && state.power3s == nil && state.power10s == nil && state.heartRate == 130)
        var renderer = DashboardRenderer()
        let lines = renderer.render(state, width: 80, height: 13).lines
        #expect(lines.contains("Power  -- W") && lines.contains("3 s -- W  10 s -- W  cadence -- rpm"))
    }

    /// Lap and ride averages with NP, kJ, %FTP and IF.
    @Test func lapAndRideAveragesWithPercentOfFTP() throws {
        var model = DashboardModel(sensors: Self.sensors, configurations: [], functionalThresholdPower: 200)
        for second in 0..<90 {
            model.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: second < 30 ? 100 : 300, time: .seconds(second)))
            if second == 30 { model.apply(.event(WorkoutEvent(time: .seconds(30), kind: .lap))) }
        }
        let state = model.state(at: .seconds(89))
        #expect(state.ride.power.map { abs($0 - 7000.0 / 30) < 1e-9 } == true && state.lapFigures.power == 300)
        var renderer = DashboardRenderer()
        let lines = renderer.render(state, width: 100, height: 13).lines
        #expect(lines.contains("Power  300 W  150 % FTP") && lines.contains("3 s 300 W  10 s 300 W  cadence -- rpm"))
        #expect(lines.contains { $0.hasPrefix("Lap   avg -- bpm  300 W  NP 300 W  ") })
        let np = try #require(state.ride.normalizedPower)
        #expect(lines.contains { $0.hasPrefix("Ride  avg -- bpm  233 W  NP \(Int(np.rounded())) W  IF " + String(format: "%.2f", np / 200)) })
    }

    @Test func threeSecondPowerIsTheMeanOfTheLastThreeSeconds() {
        var model = DashboardModel(sensors: Self.sensors, configurations: [])
        for (second, watts) in [(1, 100.0), (2, 200), (3, 300), (4, 400)] {
            model.add(Sample(sensor: SensorID(2), type: .cyclingPower, value: watts, time: .seconds(second)))
        }
        model.add(Sample(sensor: SensorID(2), type: .cyclingCadence, value: 88, time: .seconds(4)))
        let state = model.state(at: .seconds(4))
        #expect(state.power == 400 && state.power3s == 300 && state.power10s == 250 && state.cadence == 88)
        var renderer = DashboardRenderer()
        let lines = renderer.render(state, width: 80, height: 13).lines
        #expect(lines.contains("Power  400 W") && lines.contains("3 s 300 W  10 s 250 W  cadence 88 rpm"))
    }
}
