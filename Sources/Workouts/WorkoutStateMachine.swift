public import Foundation
public import SensorCore
public import Zones

/// The live workout builder's logic as a pure state machine: inputs in, outputs queued for
/// `nextOutput()`. No I/O, no clock, no locks; `LiveWorkoutBuilder` wraps it for threads.
///
/// Inputs must come in time order per source. Samples are kept in order per quantity type: one
/// stamped earlier than the latest sample of its type, or than the latest pause, resume, lap,
/// activity change or end, is treated as arriving at that time, so the zone attribution never
/// runs backwards. Samples of different types need no order between them (two sensors' rings are
/// drained one after the other). A control event is treated as arriving no earlier than
/// anything already processed.
public struct WorkoutStateMachine: Sendable {
    public private(set) var state = WorkoutBuilderState.notStarted
    /// Zones set for this workout only, before collection begins: source `.custom` when set with
    /// `setCustomZoneConfiguration`, the source they had when given to `init` (to rebuild a recorded workout).
    public private(set) var customConfigurations: [QuantityType: WorkoutZoneConfiguration]
    /// The person's preferred and system zones.
    public let preferences: ZonePreferences
    /// The first activity's type.
    public let activityType: WorkoutActivityType
    /// Holds for zone attribution, by quantity type (defaults: 5 s heart rate, 3 s power).
    public let maximumHolds: [QuantityType: Duration]
    /// The day system zones are computed for (an age from a birth date depends on it): the
    /// workout's day. `beginCollection` sets it from its date when nobody has.
    public var zonesDate: CalendarDate?

    private var startDate = Date(timeIntervalSince1970: 0)
    private var start = Duration.zero
    /// The latest time of anything processed.
    private var latest = Duration.zero
    /// The latest control event's time: no sample may be placed before it.
    private var controlTime = Duration.zero
    /// The latest sample's time of each quantity type.
    private var latestSample = QuantityTypeMap<Duration>()
    /// The sensor of the latest sample of each quantity type: whose hold a refused value ends.
    private var latestSampleSensor = QuantityTypeMap<SensorID>()
    private var classifiers: [QuantityType: ZoneClassifier] = [:]
    private var statistics = StatisticsAccumulator(start: .zero)
    private var activities: [WorkoutActivity] = []
    /// Zone groups at the current activity's start, to subtract at its end.
    private var activityStartGroups: [QuantityType: WorkoutZoneGroup] = [:]
    /// Zoned quantities that had samples in the workout, and in the current activity: only those
    /// get zone groups (a run with no power meter has no power zones).
    private var sampledTypes: QuantityTypeSet = []
    private var activitySampledTypes: QuantityTypeSet = []
    private var pauses: [Range<Duration>] = []
    private var pausedAt: Duration?
    private var laps: [Range<Duration>] = []
    private var lapStart = Duration.zero
    private var events: [WorkoutEvent] = []
    private var zoneUpdates: [ZoneUpdate] = []
    private var samples: [Sample] = []
    private var lastStatisticsOutput: Duration?
    private var outputs: [WorkoutBuilderOutput] = []
    private var outputHead = 0
    public var sensors: [SensorID: String] = [:]
    /// Auto-pause: the workout pauses when nothing moves (no power above 0 W, no crank or wheel
    /// turning) for this long, and resumes at the next movement; nil: off. Only once a power
    /// meter, cadence or speed sensor has sent something, and not while one of them is lost; the
    /// stillness is counted from its return. A cadence or speed held between revolutions
    /// (`Sample.isHeld`) is no movement: the crank turned last at its latest revolution.
    public var autoPause: Duration?
    /// Auto-lap: a lap ends every this much active (not paused) time; nil: off.
    public var autoLap: Duration?
    private var sensorStates = SensorStateTracker()
    private var pauseCause: WorkoutEvent.Cause?
    /// The latest sample that showed movement (power above 0, cadence or speed above 0).
    private var lastMovement = Duration.zero
    /// Sensors that sent power, cadence or speed: what auto-pause listens to.
    private var movementSensors: Set<SensorID> = []
    /// The active time at the current lap's start, for auto-lap and the plan's steps.
    private var lapActiveStart = Duration.zero
    /// The structured workout ridden (`record --plan`), set before collection begins: each of its
    /// steps is a lap; a timed step ends when its active time is up (a lap of cause `.step` at that
    /// instant), any step at the lap key (DESIGN.md §3 "Workout plans"). Nil: no plan.
    public var plan: WorkoutPlan? {
        didSet { planSteps = plan?.sequence ?? [] }
    }
    private var planSteps: [WorkoutPlan.Planned] = []
    /// The step under way, by its place in `plan.sequence` (the lap under way while the plan
    /// runs); the steps' count once the plan is done.
    public private(set) var stepIndex = 0

    /// The quantities whose values above 0 mean the rider moves.
    static let movementTypes: QuantityTypeSet = [.cyclingPower, .cyclingCadence, .cyclingSpeed]

    /// - Parameter zoneConfigurations: zones to use as given, whatever their source, before the
    ///   preferred and system ones: those a recorded workout used, to rebuild it from its samples
    ///   (WorkoutStore's recovery). Only heart rate and cycling power are kept.
    public init(
        activityType: WorkoutActivityType = .cycling, preferences: ZonePreferences = ZonePreferences(),
        maximumHolds: [QuantityType: Duration] = [:], zoneConfigurations: [QuantityType: WorkoutZoneConfiguration] = [:]
    ) {
        self.activityType = activityType
        self.preferences = preferences
        self.maximumHolds = maximumHolds
        self.customConfigurations = zoneConfigurations.filter {
            Self.zonedTypes.contains($0.key) && $0.value.quantityType == $0.key
        }
    }

    /// The quantity types whose time in zone is kept.
    /// Target zones the rider is coached to; kept with the finished workout.
    public var targets: [WorkoutTarget] = []

    public static let zonedTypes: [QuantityType] = [.heartRate, .cyclingPower]

    // MARK: Zones

    /// Sets zones for this workout only (source `.custom`). Only before `beginCollection`.
    public mutating func setCustomZoneConfiguration(_ configuration: WorkoutZoneConfiguration) throws(WorkoutBuilderError) {
        guard Self.zonedTypes.contains(configuration.quantityType) else {
            throw .unsupportedZoneQuantity(configuration.quantityType)
        }
        guard state == .notStarted else { throw .customZonesAfterStart(configuration.quantityType) }
        customConfigurations[configuration.quantityType] = configuration.withSource(.custom)
    }

    /// The zones a workout uses: custom, else preferred, else system (when the profile allows), else nil.
    public func zoneConfiguration(for quantityType: QuantityType) -> WorkoutZoneConfiguration? {
        customConfigurations[quantityType] ?? preferences.zoneConfiguration(for: quantityType, on: zonesDate)
    }

    // MARK: Lifecycle

    /// Starts collecting at `time` (offset from the session anchor), which is `date` on the wall clock.
    public mutating func beginCollection(at time: Duration, date: Date) throws(WorkoutBuilderError) {
        guard state == .notStarted else { throw .invalidTransition(action: "begin collecting", state: state) }
        start = time
        latest = time
        controlTime = time
        startDate = date
        if zonesDate == nil {
            let day = ISO8601.calendarDay(date.timeIntervalSince1970)
            zonesDate = CalendarDate(year: day.year, month: day.month, day: day.day)
        }
        lapStart = time
        lastMovement = time
        for sensor in sensors.keys { sensorStates.set(sensor, .connecting, at: time) }
        statistics = StatisticsAccumulator(start: time, powerHold: maximumHolds[.cyclingPower] ?? .seconds(3))
        for type in Self.zonedTypes {
            if let configuration = zoneConfiguration(for: type) {
                classifiers[type] = ZoneClassifier(configuration: configuration, maximumHold: maximumHolds[type], start: time)
            }
        }
        activities = [WorkoutActivity(activityType: activityType, start: time, end: time, zoneGroupsByType: [:])]
        activityStartGroups = classifiers.mapValues { WorkoutZoneGroup(configuration: $0.configuration) }
        setState(.collecting)
    }

    /// Adds a sample. Samples before the start or after the end are ignored; while paused they
    /// are kept, and the part of their hold after the resume counts. A sample showing movement
    /// resumes a workout auto-pause paused, before it counts.
    public mutating func add(_ sample: Sample) {
        guard state == .collecting || state == .paused, sample.time >= start else { return }
        // A step that ended before this sample ends at its own instant, not at a later tick's.
        endSteps(until: sample.time)
        setSensorState(sample.sensor, .notifying, at: sample.time)
        if Self.movementTypes.contains(sample.type) {
            movementSensors.insert(sample.sensor)
            if sample.value > 0, !sample.isHeld {
                lastMovement = max(lastMovement, sample.time)
                if state == .paused, pauseCause == .auto { try? resume(at: sample.time, cause: .auto) }
            }
        }
        defer { applyRules(at: sample.time) }
        var sample = sample
        sample.time = max(sample.time, controlTime, latestSample[sample.type] ?? start)
        latestSample[sample.type] = sample.time
        latestSampleSensor[sample.type] = sample.sensor
        latest = max(latest, sample.time)
        samples.append(sample)
        statistics.add(sample)
        // Another quantity whose hold ran out before this sample goes to no zone first, so zone
        // updates come in time order however the samples were batched (a tick after each batch
        // alone would date them right but list them after this sample's).
        for type in classifiers.keys where type != sample.type {
            classifiers[type]?.tick(at: sample.time)
            takeZoneUpdates(type)
        }
        if classifiers[sample.type] != nil {
            sampledTypes.insert(sample.type)
            activitySampledTypes.insert(sample.type)
            // In place (no copy of the classifier); order and phase are checked here.
            try? classifiers[sample.type]?.add(sample.value, at: sample.time)
            takeZoneUpdates(sample.type)
        }
    }

    public mutating func pause(at time: Duration, cause: WorkoutEvent.Cause = .manual) throws(WorkoutBuilderError) {
        guard state == .collecting else { throw .invalidTransition(action: "pause", state: state) }
        endSteps(until: time)
        let time = clamp(time)
        for type in classifiers.keys { try? classifiers[type]?.pause(at: time) }
        statistics.pause(at: time)
        pausedAt = time
        pauseCause = cause
        record(WorkoutEvent(time: time, kind: .pause, cause: cause))
        setState(.paused)
    }

    /// Resumes a paused workout; a manual resume of an auto-pause gives the rider `autoPause`
    /// again before it can pause anew.
    public mutating func resume(at time: Duration, cause: WorkoutEvent.Cause = .manual) throws(WorkoutBuilderError) {
        guard state == .paused else { throw .invalidTransition(action: "resume", state: state) }
        let time = clamp(time)
        for type in classifiers.keys { try? classifiers[type]?.resume(at: time) }
        statistics.resume(at: time)
        if let pausedAt { pauses.append(pausedAt..<time) }
        pausedAt = nil
        pauseCause = nil
        if cause == .manual { lastMovement = max(lastMovement, time) }
        record(WorkoutEvent(time: time, kind: .resume, cause: cause))
        setState(.collecting)
    }

    /// Ends the current lap at `time` and starts the next (and the auto-lap count again). With a
    /// plan it ends the step under way too, unless it is a second press at the lap's very start.
    public mutating func lap(at time: Duration, cause: WorkoutEvent.Cause = .manual) throws(WorkoutBuilderError) {
        guard state == .collecting || state == .paused else { throw .invalidTransition(action: "mark a lap in", state: state) }
        if cause != .step { endSteps(until: time) }
        let time = clamp(time)
        beginLap(at: time)
        record(WorkoutEvent(time: time, kind: .lap, cause: cause))
    }

    /// Ends the current activity at `time` and begins one of `type` (multisport). At the very
    /// start of the current activity it changes that activity's type instead. A new activity
    /// begins a new lap (and the auto-lap count again), so that no lap spans two activities: the
    /// laps are the same in every output, FIT's and TCX's, which nest laps in their activity, too.
    public mutating func beginActivity(_ type: WorkoutActivityType, at time: Duration) throws(WorkoutBuilderError) {
        guard state == .collecting || state == .paused else {
            throw .invalidTransition(action: "begin an activity in", state: state)
        }
        let time = clamp(time)
        if time == activities[activities.count - 1].start {
            activities[activities.count - 1].activityType = type
        } else {
            closeActivity(at: time)
            activities.append(WorkoutActivity(activityType: type, start: time, end: time, zoneGroupsByType: [:]))
            beginLap(at: time)
        }
        record(WorkoutEvent(time: time, kind: .activity(type)))
    }

    public mutating func sensorLost(_ sensor: SensorID, at time: Duration) {
        guard state == .collecting || state == .paused else { return }
        let time = max(time, controlTime)
        sensorStates.set(sensor, .lost, at: time)
        record(WorkoutEvent(time: time, kind: .sensorLost(name(of: sensor))))
    }

    public mutating func sensorRegained(_ sensor: SensorID, at time: Duration) {
        guard state == .collecting || state == .paused else { return }
        let time = max(time, controlTime)
        sensorStates.set(sensor, .connecting, at: time)
        // Nothing was known while it was lost: stillness is counted from its return, so that a
        // power meter coming back does not pause at once a ride that went on meanwhile.
        if movementSensors.contains(sensor) { lastMovement = max(lastMovement, time) }
        record(WorkoutEvent(time: time, kind: .sensorRegained(name(of: sensor))))
    }

    /// A sensor's notifications stopped counting at `time`: `.noContact` or `.invalid` (the
    /// session's decoder says so when a value is refused); its next sample makes it notifying.
    /// The holds of the quantities whose latest sample it sent end there at once (time in zone,
    /// energy and NP; an RR run): a refused value says the one before it no longer stands.
    public mutating func sensorValues(_ sensor: SensorID, _ state: SensorState, at time: Duration) {
        guard self.state == .collecting || self.state == .paused else { return }
        let time = max(time, controlTime)
        setSensorState(sensor, state, at: time)
        for type in QuantityType.allCases where latestSampleSensor[type] == sensor {
            latestSampleSensor[type] = nil
            let end = max(time, latestSample[type] ?? start)
            latestSample[type] = end
            latest = max(latest, end)
            statistics.endHold(of: type, at: end)
            if classifiers[type] != nil {
                try? classifiers[type]?.endHold(at: end)
                takeZoneUpdates(type)
            }
        }
    }

    /// The current state of each sensor, by the session's key for it.
    public var currentSensorStates: [String: SensorState] {
        Dictionary(uniqueKeysWithValues: sensorStates.entries.map { (name(of: $0.key), $0.value.state) })
    }

    /// Counts notifications that did not decode and samples a full ring refused.
    public mutating func count(malformed: Int = 0, dropped: Int = 0) {
        statistics.malformedNotifications += malformed
        statistics.droppedSamples += dropped
    }

    /// Lets stale sensors show "no zone" and turn `stale`, applies auto-pause and auto-lap, and
    /// emits running statistics about once a second.
    public mutating func tick(at now: Duration) {
        guard state == .collecting || state == .paused else { return }
        for type in classifiers.keys {
            classifiers[type]?.tick(at: now)
            takeZoneUpdates(type)
        }
        for (sensor, at) in sensorStates.tick(at: now) {
            recordInTimeOrder(WorkoutEvent(time: at, kind: .sensorState(name(of: sensor), .stale)))
        }
        applyRules(at: now)
        if lastStatisticsOutput.map({ now - $0 >= .seconds(1) }) ?? true {
            lastStatisticsOutput = now
            outputs.append(.statistics(statistics.statistics, at: now))
        }
    }

    /// Ends collection at `time`, paused or not.
    public mutating func endCollection(at time: Duration) throws(WorkoutBuilderError) {
        guard state == .collecting || state == .paused else { throw .invalidTransition(action: "end", state: state) }
        endSteps(until: time)
        let time = clamp(time)
        for type in classifiers.keys {
            try? classifiers[type]?.end(at: time)
            takeZoneUpdates(type)
        }
        for (sensor, at) in sensorStates.tick(at: time) {
            recordInTimeOrder(WorkoutEvent(time: at, kind: .sensorState(name(of: sensor), .stale)))
        }
        statistics.end(at: time)
        if let pausedAt { pauses.append(pausedAt..<time) }
        pausedAt = nil
        closeActivity(at: time)
        if time > lapStart || laps.isEmpty { laps.append(lapStart..<time) }
        setState(.ended)
    }

    /// The finished workout, with the profile and power-zone model of `preferences`. Only after `endCollection`.
    public mutating func finishWorkout() throws(WorkoutBuilderError) -> Workout {
        guard state == .ended else { throw .invalidTransition(action: "finish", state: state) }
        setState(.finished)
        let end = latest
        let paused = pauses.reduce(Duration.zero) { $0 + ($1.upperBound - $1.lowerBound) }
        let types = Set(activities.map(\.activityType))
        var workout = Workout(
            startDate: startDate, start: start, end: end, activeDuration: end - start - paused, pauses: pauses,
            activityType: types.count > 1 ? .multisport : activities[0].activityType,
            statistics: statistics.statistics,
            zoneGroupsByType: classifiers.filter { sampledTypes.contains($0.key) }.mapValues(\.zoneGroup),
            activities: activities, laps: laps, events: events, zoneUpdates: zoneUpdates, samples: samples,
            sensors: sensors,
            sensorStates: Dictionary(uniqueKeysWithValues: sensorStates.durations(until: end).map { (name(of: $0.key), $0.value) }),
            profile: WorkoutProfile(preferences), targets: targets, plan: plan)
        if let plan { workout.steps = workout.stepResults(of: plan) }
        return workout
    }

    /// Throws the workout away, from any state but finished.
    public mutating func discard() throws(WorkoutBuilderError) {
        guard state != .finished, state != .discarded else { throw .invalidTransition(action: "discard", state: state) }
        setState(.discarded)
    }

    /// Live statistics so far.
    public var currentStatistics: WorkoutStatistics { statistics.statistics }

    /// Running zone totals so far, by quantity type.
    public var currentZoneGroups: [QuantityType: WorkoutZoneGroup] { classifiers.mapValues(\.zoneGroup) }

    /// The current zone of each zoned quantity (nil: none, or stale).
    public func currentZoneIndex(for type: QuantityType) -> Int? { classifiers[type]?.currentZoneIndex }

    /// The oldest output not yet taken.
    public mutating func nextOutput() -> WorkoutBuilderOutput? {
        guard outputHead < outputs.count else {
            if outputHead > 0 {
                outputs.removeAll(keepingCapacity: true)
                outputHead = 0
            }
            return nil
        }
        defer { outputHead += 1 }
        return outputs[outputHead]
    }

    // MARK: Private

    private func name(of sensor: SensorID) -> String { sensors[sensor] ?? sensor.description }

    /// Moves a sensor to `state`; a change that makes its values stop or start counting (to or
    /// from no contact, invalid or stale) is an event.
    private mutating func setSensorState(_ sensor: SensorID, _ new: SensorState, at time: Duration) {
        // Every sample's case, in one lookup: a notifying sensor heard again before it went stale.
        if new == .notifying, sensorStates.heardAgain(sensor, at: time) { return }
        // A silence no tick saw (a replay drains many values at once) was stale all the same.
        if new != .stale, let stale = sensorStates.staleTime(of: sensor, before: time) {
            sensorStates.set(sensor, .stale, at: stale)
            recordInTimeOrder(WorkoutEvent(time: stale, kind: .sensorState(name(of: sensor), .stale)))
        }
        let old = sensorStates.state(of: sensor)
        guard sensorStates.set(sensor, new, at: time) else { return }
        // A first value, or the first after a connection, is no news: the values started counting.
        if new == .notifying, old == nil || old == .connecting || old == .lost { return }
        recordInTimeOrder(WorkoutEvent(time: time, kind: .sensorState(name(of: sensor), new)))
    }

    /// Active (not paused) time from the start to `time`.
    private func activeTime(at time: Duration) -> Duration {
        let paused = pauses.reduce(Duration.zero) { $0 + ($1.upperBound - $1.lowerBound) }
        return time - start - paused - (pausedAt.map { max(time - $0, .zero) } ?? .zero)
    }

    /// Auto-pause when nothing has moved for `autoPause` (and no movement sensor is lost), and
    /// auto-lap when the lap's active time reaches `autoLap`.
    private mutating func applyRules(at now: Duration) {
        guard state == .collecting else { return }
        endSteps(until: now)
        if let autoPause, !movementSensors.isEmpty, now - lastMovement >= autoPause,
            !movementSensors.contains(where: { sensorStates.state(of: $0) == .lost })
        {
            try? pause(at: lastMovement + autoPause, cause: .auto)
            return
        }
        if let autoLap, stepIndex >= planSteps.count, activeTime(at: now) - lapActiveStart >= autoLap {
            try? lap(at: now, cause: .auto)
        }
    }

    /// Ends the lap under way at `time` and begins the next, with the plan's next step, unless
    /// `time` is the lap's very start (no lap of no time); the auto-lap count starts again either way.
    private mutating func beginLap(at time: Duration) {
        if time > lapStart {
            laps.append(lapStart..<time)
            lapStart = time
            if stepIndex < planSteps.count { stepIndex += 1 }
        }
        lapActiveStart = activeTime(at: time)
    }

    /// Ends each timed step whose active time is up by `now`, with a lap (cause `.step`) at the
    /// instant it was up: `now` less the time past it (no pause can fall in between, as pauses
    /// end the steps due first). Open steps wait for the lap key.
    private mutating func endSteps(until now: Duration) {
        guard state == .collecting else { return }
        while stepIndex < planSteps.count, let length = planSteps[stepIndex].step.timeLength {
            let over = activeTime(at: now) - lapActiveStart - length
            guard over >= .zero else { return }
            let step = stepIndex
            try? lap(at: now - over, cause: .step)
            // A lap that could not be made (at the lap's very start) still ends the step.
            if stepIndex == step { stepIndex += 1 }
        }
    }

    /// The time a control event takes effect: no earlier than anything processed.
    private mutating func clamp(_ time: Duration) -> Duration {
        latest = max(latest, time)
        controlTime = latest
        return latest
    }

    private mutating func setState(_ new: WorkoutBuilderState) {
        state = new
        outputs.append(.state(new))
    }

    private mutating func record(_ event: WorkoutEvent) {
        events.append(event)
        outputs.append(.event(event))
    }

    /// Records a sensor-state event at its own time, after the events no later than it: a silence
    /// is noticed when a tick or the next value comes, and where it ends up in the workout's events
    /// must not depend on when that was (a live session ticks four times a second, a replay after
    /// each batch).
    private mutating func recordInTimeOrder(_ event: WorkoutEvent) {
        let index = events.lastIndex { $0.time <= event.time }.map { $0 + 1 } ?? 0
        events.insert(event, at: index)
        outputs.append(.event(event))
    }

    private mutating func takeZoneUpdates(_ type: QuantityType) {
        while let update = classifiers[type]?.nextUpdate() {
            zoneUpdates.append(update)
            outputs.append(.zoneUpdate(update))
        }
    }

    private mutating func closeActivity(at time: Duration) {
        let index = activities.count - 1
        activities[index].end = time
        var groups: [QuantityType: WorkoutZoneGroup] = [:]
        var nextStart: [QuantityType: WorkoutZoneGroup] = [:]
        for (type, classifier) in classifiers {
            let atEnd = classifier.zoneGroup(at: time)
            nextStart[type] = atEnd
            if activitySampledTypes.contains(type), let atStart = activityStartGroups[type],
                let group = try? atEnd.subtracting(atStart)
            {
                groups[type] = group
            }
        }
        activities[index].zoneGroupsByType = groups
        activityStartGroups = nextStart
        activitySampledTypes = []
    }
}
