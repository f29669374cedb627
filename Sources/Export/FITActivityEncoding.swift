import Foundation
import SensorCore
import Workouts
import Zones

/// The work of `FITActivityEncoder.encode`: one workout, written once.
struct FITActivityEncoding {
    private typealias P = FITProfile

    let workout: Workout
    let profile: AthleteProfile?
    let heartRateZoneModel: HeartRateZoneModel
    let timeZone: TimeZone
    private var writer = FITWriter()
    /// The FIT `date_time` of `workout.start`.
    private let startTimestamp: Int64
    /// Messages other than records, with the time they belong at, merged with the records.
    private var pending: [(time: Duration, order: Int, message: FITMessage)] = []

    init(workout: Workout, profile: AthleteProfile?, heartRateZoneModel: HeartRateZoneModel, timeZone: TimeZone) {
        self.workout = workout
        self.profile = profile
        self.heartRateZoneModel = heartRateZoneModel
        self.timeZone = timeZone
        startTimestamp = Int64(workout.startDate.timeIntervalSince1970.rounded(.down)) - P.epochOffset
    }

    /// FIT `date_time` of an offset from the session anchor (whole seconds, truncated).
    private func timestamp(_ time: Duration) -> Int64 {
        startTimestamp + max(0, (time - workout.start).components.seconds)
    }

    mutating func encode() -> [UInt8] {
        writeHeaderMessages()
        writeTargetFieldDescriptions()
        addTimerEvents()
        addHRV()
        let sessionCount = addLapsAndSessions()
        pending.sort { ($0.time, $0.order) < ($1.time, $1.order) }  // sort is not stable: order numbers them
        writeRecords()
        for item in pending { writer.write(item.message) }
        writeActivity(sessionCount: sessionCount)
        return writer.bytes()
    }

    private mutating func add(_ message: FITMessage, at time: Duration) {
        pending.append((time, pending.count, message))
    }

    // MARK: - File and devices

    private mutating func writeHeaderMessages() {
        var file = FITMessage(P.Message.fileID)
        file.add(P.FileID.type, .enum, P.fileActivity)
        file.add(P.FileID.manufacturer, .uint16, P.manufacturerDevelopment)
        file.add(P.FileID.product, .uint16, 0)
        file.add(P.FileID.timeCreated, .uint32, startTimestamp)
        file.add(P.FileID.productName, string: "SensorBridge", size: 16)
        writer.write(file)

        var creator = FITMessage(P.Message.deviceInfo)
        creator.add(P.timestamp, .uint32, startTimestamp)
        creator.add(P.DeviceInfo.deviceIndex, .uint8, 0)
        creator.add(P.DeviceInfo.manufacturer, .uint16, P.manufacturerDevelopment)
        creator.add(P.DeviceInfo.product, .uint16, 0)
        creator.add(P.DeviceInfo.sourceType, .enum, P.sourceTypeLocal)
        creator.add(P.DeviceInfo.productName, string: "SensorBridge", size: 16)
        writer.write(creator)

        // One per sensor, by what it sent: Bluetooth LE heart rate, bike power, or speed and cadence.
        var sent: [SensorID: Set<QuantityType>] = [:]
        for sample in workout.samples { sent[sample.sensor, default: []].insert(sample.type) }
        for (index, (sensor, name)) in workout.sensors.sorted(by: { $0.key.rawValue < $1.key.rawValue }).enumerated() {
            let types = sent[sensor] ?? []
            let deviceType: Int? =
                types.contains(.cyclingPower) ? P.bleBikePower
                : types.contains(.heartRate) ? P.bleHeartRate
                : types.contains(.cyclingCadence) || types.contains(.cyclingSpeed) ? P.bleBikeSpeedCadence : nil
            var device = FITMessage(P.Message.deviceInfo)
            device.add(P.timestamp, .uint32, startTimestamp)
            device.add(P.DeviceInfo.deviceIndex, .uint8, min(index + 1, 254))
            device.add(P.DeviceInfo.deviceType, .uint8, deviceType)
            device.add(P.DeviceInfo.sourceType, .enum, P.sourceTypeBluetoothLowEnergy)
            device.add(P.DeviceInfo.descriptor, string: name, size: 32)
            writer.write(device)
        }
        // The plan ridden, as a workout file holds it; laps name their step (`wkt_step_index`).
        if let plan = workout.plan {
            for message in FITWorkoutFile.messages(plan, zones: workout.zoneGroupsByType.mapValues(\.configuration)) {
                writer.write(message)
            }
        }
    }

    // MARK: - Events, HRV

    /// A timer event; `data` is its `timer_trigger`, auto for an auto-pause and its resume.
    private func timerEvent(_ type: Int, at time: Duration, cause: WorkoutEvent.Cause = .manual) -> FITMessage {
        var event = FITMessage(P.Message.event)
        event.add(P.timestamp, .uint32, timestamp(time))
        event.add(P.Event.event, .enum, P.eventTimer)
        event.add(P.Event.eventType, .enum, type)
        event.add(P.Event.data, .uint32, cause == .auto ? P.timerTriggerAuto : P.timerTriggerManual)
        event.add(P.Event.eventGroup, .uint8, 0)
        return event
    }

    /// Timer start at the start; stop and start around each pause (no start when the workout
    /// ended paused), with the cause of its pause and resume events; stop_all at the end (the
    /// person ended the workout).
    private mutating func addTimerEvents() {
        add(timerEvent(P.eventTypeStart, at: workout.start), at: workout.start)
        for pause in workout.pauses {
            let stop = timerEvent(P.eventTypeStop, at: pause.lowerBound, cause: workout.cause(of: .pause, at: pause.lowerBound))
            add(stop, at: pause.lowerBound)
            if pause.upperBound < workout.end {
                let start = timerEvent(
                    P.eventTypeStart, at: pause.upperBound, cause: workout.cause(of: .resume, at: pause.upperBound))
                add(start, at: pause.upperBound)
            }
        }
        add(timerEvent(P.eventTypeStopAll, at: workout.end), at: workout.end)
    }

    /// Every RR interval in order, 5 to an `hrv` message (s × 1000, uint16), each message placed at
    /// the time of its last interval; the last one padded with invalid values.
    private mutating func addHRV() {
        let intervals = workout.samples.filter { $0.type == .rrInterval && !$0.value.isNaN }
        var index = 0
        while index < intervals.count {
            let chunk = intervals[index..<min(index + P.HRV.intervalsPerMessage, intervals.count)]
            var values: [Int64?] = chunk.map { FITMessage.stored($0.value, scale: 1000, offset: 0) }
            values += Array(repeating: nil, count: P.HRV.intervalsPerMessage - values.count)
            var message = FITMessage(P.Message.hrv)
            message.add(P.HRV.time, .uint16, array: values)
            add(message, at: chunk.last!.time)
            index += P.HRV.intervalsPerMessage
        }
    }

    // MARK: - Records

    /// A record for every whole second from the start that is active (not paused), before the end
    /// and holds a value, with the values `WorkoutSeconds` holds (the CSV's, TCX's and chart's too).
    private mutating func writeRecords() {
        var next = 0
        for second in WorkoutSeconds(workout).seconds where second.isActive {
            let time = workout.start + .seconds(second.elapsed)
            while next < pending.count, pending[next].time <= time {
                writer.write(pending[next].message)
                next += 1
            }
            var record = FITMessage(P.Message.record)
            record.add(P.timestamp, .uint32, timestamp(time))
            record.add(P.Record.heartRate, .uint8, second.heartRate)
            record.add(P.Record.cadence, .uint8, second.cadence)
            record.add(P.Record.speed, .uint16, second.speed, scale: 1000)
            // Negative watts (a coasting hub) are no pedalling: 0 W in a uint16 field.
            record.add(P.Record.power, .uint16, second.power.map { max(0, $0) })
            record.add(P.Record.leftRightBalance, .uint8, second.pedalPowerBalance.flatMap(Self.leftRightBalance))
            writer.write(record)
        }
        pending.removeFirst(next)
    }

    /// FIT `left_right_balance` from the left pedal's share in %: the right pedal's share in whole
    /// percent with bit 7 ("right") set.
    static func leftRightBalance(leftPercent: Double) -> Int? {
        guard (0...100).contains(leftPercent) else { return nil }
        return Int((100 - leftPercent).rounded()) | P.leftRightBalanceRight
    }

    // MARK: - Laps and sessions

    /// Adds laps, sessions and their time in zone; returns the number of sessions.
    private mutating func addLapsAndSessions() -> Int {
        let samplesByType = workout.zonedSamplesByType
        let summaries = workout.activitySummaries()
        let sports = workout.activities.count > 1 ? workout.activities.map(\.activityType)
            : [workout.activities.first?.activityType ?? workout.activityType]
        let sessions = Array(zip(summaries, sports)).map { (summary: $0, sport: $1) }
        // Each session's own load: TSS and IF from its NP where it has power and the profile an
        // FTP, else its hrTSS (DESIGN.md §3 "Training load"); the sessions add up to the workout's.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let loads = workout.trainingLoad(
            athlete: profile, on: CalendarDate(workout.startDate, in: calendar), summaries: summaries).activities
        var lapIndex = 0
        // The FIT step index of each lap that was a step of the plan, by the lap's start.
        let stepIndexes = Dictionary(workout.riddenSteps.map { ($0.span.lowerBound, $0.planned.index) }, uniquingKeysWith: { first, _ in first })
        for (sessionIndex, session) in sessions.enumerated() {
            let range = session.summary.range
            var laps = workout.laps.compactMap { WorkoutSpanSummary.clamp($0, to: range) }
            if laps.isEmpty { laps = [range] }
            let summaries = WorkoutSpanSummary.summaries(
                of: laps, in: workout, configurations: session.summary.zoneGroups.mapValues(\.configuration),
                samplesByType: samplesByType)
            for (position, (lap, summary)) in zip(laps, summaries).enumerated() {
                // The last lap ends with its session; the others with a lap, the person's or an auto-lap's.
                let trigger =
                    position == laps.count - 1 ? P.lapTriggerSessionEnd
                    : workout.cause(of: .lap, at: lap.upperBound) == .manual ? P.lapTriggerManual : P.lapTriggerTime
                var message = summaryMessage(summary, isLap: true, index: lapIndex, sport: session.sport, trigger: trigger)
                message.add(P.Lap.workoutStepIndex, .uint16, stepIndexes[lap.lowerBound])
                add(message, at: lap.upperBound)
                addTimeInZone(summary, reference: P.Message.lap, index: lapIndex)
                lapIndex += 1
            }
            var message = summaryMessage(
                session.summary, isLap: false, index: sessionIndex, sport: session.sport,
                trigger: sessionIndex == sessions.count - 1 ? P.sessionTriggerActivityEnd : P.sessionTriggerManual)
            message.add(P.Session.firstLapIndex, .uint16, lapIndex - laps.count)
            message.add(P.Session.numLaps, .uint16, laps.count)
            message.add(P.Session.thresholdPower, .uint16, profile?.functionalThresholdPower)
            let load = sessionIndex < loads.count ? loads[sessionIndex] : nil
            message.add(P.Session.trainingStressScore, .uint16, load?.stressScore, scale: 10)
            message.add(P.Session.intensityFactor, .uint16, load?.intensityFactor, scale: 1000)
            addTargets(to: &message, session.summary)
            add(message, at: range.upperBound)
            addTimeInZone(session.summary, reference: P.Message.session, index: sessionIndex)
        }
        return sessions.count
    }

    /// A `lap` or `session` message (they share this layout with different field numbers).
    private func summaryMessage(
        _ summary: WorkoutSpanSummary, isLap: Bool, index: Int, sport: WorkoutActivityType, trigger: Int
    ) -> FITMessage {
        let fields = isLap ? P.Summary.lap : P.Summary.session
        let s = summary.statistics
        var m = FITMessage(isLap ? P.Message.lap : P.Message.session)
        m.add(P.messageIndex, .uint16, index)
        m.add(P.timestamp, .uint32, timestamp(summary.range.upperBound))
        m.add(fields.event, .enum, isLap ? P.eventLap : P.eventSession)
        m.add(fields.eventType, .enum, P.eventTypeStop)
        m.add(fields.startTime, .uint32, timestamp(summary.range.lowerBound))
        m.add(fields.sport, .enum, Self.sport(sport))
        m.add(fields.subSport, .enum, 0)  // generic
        // s × 1000, uint32.
        m.add(fields.totalElapsedTime, .uint32, (summary.range.upperBound - summary.range.lowerBound).seconds, scale: 1000)
        m.add(fields.totalTimerTime, .uint32, summary.timerTime.seconds, scale: 1000)
        // kcal: the strap's energy expended (kJ) when it counts one, else the work done on the
        // pedals, whose kJ are about kcal burnt (a gross efficiency of 24 %: 1 / (0.24 × 4.184) ≈ 1),
        // else from heart rate for the profile's sex, weight and age.
        m.add(fields.totalCalories, .uint16, s.calories(profile: profile, on: day))
        m.add(fields.averageHeartRate, .uint8, s.heartRate?.average)
        m.add(fields.maximumHeartRate, .uint8, s.heartRate?.maximum)
        m.add(fields.minimumHeartRate, .uint8, s.heartRate?.minimum)
        m.add(fields.averageCadence, .uint8, s.cadence?.average)
        m.add(fields.maximumCadence, .uint8, s.cadence?.maximum)
        m.add(fields.averagePower, .uint16, s.cyclingPower.map { max(0, $0.average) })
        m.add(fields.maximumPower, .uint16, s.cyclingPower.map { max(0, $0.maximum) })
        m.add(fields.normalizedPower, .uint16, s.cyclingPower?.normalized)
        // J.
        m.add(fields.totalWork, .uint32, s.cyclingPower.map { max(0, $0.energy) }, scale: 1000)
        m.add(fields.trigger, .enum, trigger)
        return m
    }

    /// FIT `sport` of an activity type.
    static func sport(_ type: WorkoutActivityType) -> Int {
        switch type {
        case .cycling: 2
        case .running: 1
        case .walking: 11
        case .hiking: 17
        case .rowing: 15
        case .swimming: 5
        case .transition: 3
        case .multisport: 18
        case .other: 0
        }
    }

    /// A `time_in_zone` message for a lap or session with zone groups: time per zone (s × 1000,
    /// uint32), each zone's upper boundary (bpm uint8, W uint16; rounded; the top zone has none,
    /// so it is invalid), how the zones were made (a system zone set is % of heart-rate reserve, of
    /// maximum or of LTHR by the workout's heart-rate model, or % of FTP; any other custom) and the
    /// profile's maximum, resting and threshold heart rate and FTP.
    private mutating func addTimeInZone(_ summary: WorkoutSpanSummary, reference: UInt16, index: Int) {
        guard !summary.zoneGroups.isEmpty else { return }
        let T = P.TimeInZone.self
        var m = FITMessage(P.Message.timeInZone)
        m.add(P.timestamp, .uint32, timestamp(summary.range.upperBound))
        m.add(T.referenceMessage, .uint16, Int(reference))
        m.add(T.referenceIndex, .uint16, index)
        if let group = summary.zoneGroups[.heartRate] {
            m.add(T.timeInHeartRateZone, .uint32, array: Self.milliseconds(group))
            m.add(T.heartRateZoneHighBoundary, .uint8, array: Self.highBoundaries(group))
            m.add(
                T.heartRateCalculationType, .enum,
                group.configuration.source == .system ? Self.calculationType(heartRateZoneModel) : P.heartRateZoneCustom)
        }
        if let group = summary.zoneGroups[.cyclingPower] {
            m.add(T.timeInPowerZone, .uint32, array: Self.milliseconds(group))
            m.add(T.powerZoneHighBoundary, .uint16, array: Self.highBoundaries(group))
            m.add(T.powerCalculationType, .enum, group.configuration.source == .system ? P.powerZonePercentFTP : P.powerZoneCustom)
        }
        m.add(T.maximumHeartRate, .uint8, maximumHeartRate)
        m.add(T.restingHeartRate, .uint8, profile?.restingHeartRate)
        m.add(T.thresholdHeartRate, .uint8, profile?.lactateThresholdHeartRate)
        m.add(T.functionalThresholdPower, .uint16, profile?.functionalThresholdPower)
        add(m, at: summary.range.upperBound)
    }

    /// The profile's maximum heart rate on the workout's day in `timeZone`, as its sessions' loads
    /// take it (measured, else estimated from the age), rounded.
    private var maximumHeartRate: Double? { try? profile?.maximumHeartRate(on: day) }

    /// The workout's day in `timeZone`: an age from a birth date is taken on it.
    private var day: CalendarDate? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return CalendarDate(workout.startDate, in: calendar)
    }

    /// `hr_zone_calc` of system zones made by `model`.
    private static func calculationType(_ model: HeartRateZoneModel) -> Int {
        switch model {
        case .reserve: P.heartRateZonePercentReserve
        case .maximum: P.heartRateZonePercentMaximum
        case .lactateThreshold: P.heartRateZonePercentLactateThreshold
        }
    }

    private static func milliseconds(_ group: WorkoutZoneGroup) -> [Int64?] {
        group.durations.map { FITMessage.stored($0.seconds, scale: 1000, offset: 0) }
    }

    private static func highBoundaries(_ group: WorkoutZoneGroup) -> [Int64?] {
        group.configuration.zones.map { zone in zone.maximum.flatMap { FITMessage.stored($0.value, scale: 1, offset: 0) } }
    }

    // MARK: - Target zones (developer fields)

    /// The developer fields of a target, by quantity: the lowest and highest zone (1-based), the
    /// time in them (s) and its share of the session's timer time (%). FIT has no field of its own
    /// for them; Garmin's SDK and most tools show developer fields by their name.
    private static func targetFields(_ type: QuantityType) -> [(number: UInt8, name: String, type: FITBaseType, units: String)] {
        let (base, name): (UInt8, String) = type == .heartRate ? (0, "hr") : (4, "power")
        return [
            (base, "\(name)_target_low_zone", .uint8, ""), (base + 1, "\(name)_target_high_zone", .uint8, ""),
            (base + 2, "time_in_\(name)_target", .uint32, "s"), (base + 3, "\(name)_target_percent", .uint8, "%"),
        ]
    }

    /// The `developer_data_id` of SensorBridge and a `field_description` for each field of the
    /// workout's targets; nothing for a workout without targets.
    private mutating func writeTargetFieldDescriptions() {
        guard !workout.targets.isEmpty else { return }
        let D = P.Developer.self
        var id = FITMessage(P.Message.developerDataID)
        id.add(D.applicationID, .byte, array: D.sensorBridgeApplicationID)
        id.add(D.developerDataIndex, .uint8, 0)
        writer.write(id)
        for target in workout.targets {
            for field in Self.targetFields(target.quantityType) {
                var description = FITMessage(P.Message.fieldDescription)
                description.add(0, .uint8, 0)  // developer_data_index
                description.add(D.fieldDefinitionNumber, .uint8, Int(field.number))
                description.add(D.baseType, .uint8, Int(field.type.rawValue))
                description.add(D.fieldName, string: field.name, size: 32)
                description.add(D.units, string: field.units, size: 8)
                writer.write(description)
            }
        }
    }

    /// The targets of the workout whose quantity the session has zones of, with their time and share.
    private func addTargets(to message: inout FITMessage, _ summary: WorkoutSpanSummary) {
        for target in workout.targets {
            guard let group = summary.zoneGroups[target.quantityType] else { continue }
            let (time, share) = target.timeInTarget(group, activeDuration: summary.timerTime)
            let values: [Int64] = [
                Int64(target.zones.lowerBound + 1), Int64(target.zones.upperBound + 1), Int64(time.seconds.rounded()),
                Int64((share * 100).rounded()),
            ]
            for (field, value) in zip(Self.targetFields(target.quantityType), values) {
                message.addDeveloper(field.number, field.type, value)
            }
        }
    }

    // MARK: - Activity

    private mutating func writeActivity(sessionCount: Int) {
        let end = timestamp(workout.end)
        let local = end + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(end + P.epochOffset))))
        var m = FITMessage(P.Message.activity)
        m.add(P.timestamp, .uint32, end)
        m.add(P.Activity.totalTimerTime, .uint32, workout.activeDuration.seconds, scale: 1000)
        m.add(P.Activity.numSessions, .uint16, sessionCount)
        m.add(P.Activity.type, .enum, P.activityManual)
        m.add(P.Activity.event, .enum, P.eventActivity)
        m.add(P.Activity.eventType, .enum, P.eventTypeStop)
        m.add(P.Activity.localTimestamp, .uint32, local)
        writer.write(m)
    }
}
