public import BlueZ
public import SensorCore
public import Workouts
public import Zones

/// The live dashboard's inputs folded into what it shows: samples as they are decoded, the
/// builder's outputs (zone updates, which come only on a change, pause/resume, sensor states), and
/// the sensors' link events. Each sensor's state comes from the session's stream by the rule MQTT
/// publishes (`SensorStates`); link events add only when the next connection attempt is due and
/// the battery. Pure: times are offsets from the session anchor, and `state(at:)`
/// extrapolates the zone totals of the last update to the moment drawn.
public struct DashboardModel: Sendable {
    /// How long a value stays on screen without a newer sample: the zone rule's hold of its
    /// quantity (5 s for heart rate, 3 s for power and cadence), so a value and its zone go together.
    public static func staleAfter(_ type: QuantityType) -> Duration { ZoneClassifier.defaultMaximumHold(for: type) }
    /// The windows of the rolling power means.
    public static let powerWindow = Duration.seconds(3)
    public static let longPowerWindow = Duration.seconds(10)
    /// How long the latest DFA α1 stays on screen: windows come every 5 s of beats while the run goes on.
    public static let alpha1Lifetime = Duration.seconds(30)
    /// How long a message stays on screen.
    public static let messageLifetime = Duration.seconds(15)

    private struct ZoneTrack {
        var group: WorkoutZoneGroup
        var current: Int?
        /// When `current` was entered (the update's time).
        var since: Duration
    }

    private var zones: [ZoneTrack]
    private var latest: [QuantityType: Sample] = [:]
    /// Power samples of the last `longPowerWindow`, oldest first.
    private var recentPower: [Sample] = []
    /// The session's key of each sensor, to blank its values as soon as it is lost.
    private let sensorKeys: [SensorID: String]
    private let functionalThresholdPower: Int?
    private let maximumHeartRate: Double?
    /// For calories from heart rate (sex, weight and age on `day`) and W/kg.
    private let profile: AthleteProfile?
    private let day: CalendarDate?
    /// Class points by heart-rate zone.
    private let zonePoints: ZonePoints
    /// Figures of the ride and of the lap under way (samples while not paused, as the stored ones).
    private var ride = StatisticsAccumulator(start: .zero)
    private var lapStatistics = StatisticsAccumulator(start: .zero)
    private var coaches: [TargetZoneCoach]
    /// The plan's steps under way, with `--plan`.
    private var stepCoach: StepCoach?
    /// The rolling DFA α1 of the RR intervals while active (`DFAAlpha1Windows`: a pause or the
    /// strap's values stopping end the run, as for the stored workout's), and its latest window.
    private var dfa = DFAAlpha1Windows()
    private var latestAlpha1: DFAAlpha1Window?
    private var rrSensor: SensorID?
    /// The sensors in display order (their `link` is made from `sensorStates` when drawn).
    private var sensors: [DashboardState.Sensor]
    /// Each sensor's state, from the session's samples and events (what MQTT publishes).
    private var sensorStates: SensorStates
    /// When each lost sensor's next connection attempt is due.
    private var retryAt: [String: Duration] = [:]
    private var pausedAt: Duration?
    /// The pauses that ended, in order: active time is the time outside them and `pausedAt`.
    private var pauses: [Range<Duration>] = []
    private var pauseCause: WorkoutEvent.Cause?
    private var lap = 1
    private var lapStart = Duration.zero
    /// The activities planned and which is under way, its number from 1 and when it began; each
    /// zone track's durations when it began (its own zone time is what came since).
    private var activities: ActivityPlan
    private var activity = (type: WorkoutActivityType.cycling, number: 1, start: Duration.zero)
    private var zonesAtActivityStart: [[Duration]]
    /// Whether the dashboard's keys work (standard input is the terminal).
    public var keys = false
    /// The relay's state, with `--relay`.
    public var relay: RelayStatus?
    private var message: (text: String, at: Duration)?

    /// - Parameters:
    ///   - sensors: the session's key and a display name of each sensor, in display order.
    ///   - configurations: the zones the workout uses (none for a quantity without zones).
    ///   - sensorKeys: the session's key of each sensor id, so that a lost sensor's values go at once.
    ///   - functionalThresholdPower: for %FTP and IF, in W.
    ///   - targets: target zones to coach, each with its debounce.
    ///   - activities: the activities planned (a multisport workout's), the first under way.
    ///   - steps: the plan's coach, with `--plan`.
    ///   - maximumHeartRate: for % of maximum (the class screen), in bpm.
    ///   - profile: for calories from heart rate and W/kg, its age taken on `day`.
    ///   - zonePoints: the class points by heart-rate zone.
    public init(
        sensors: [(key: String, name: String)], configurations: [WorkoutZoneConfiguration],
        sensorKeys: [SensorID: String] = [:], functionalThresholdPower: Int? = nil, targets: [TargetZoneCoach] = [],
        activities: ActivityPlan = ActivityPlan([.cycling]), steps: StepCoach? = nil, maximumHeartRate: Double? = nil,
        profile: AthleteProfile? = nil, day: CalendarDate? = nil, zonePoints: ZonePoints = .standard
    ) {
        self.sensors = sensors.map { DashboardState.Sensor(key: $0.key, name: $0.name, link: .connecting(retryIn: nil)) }
        sensorStates = SensorStates(keys: sensorKeys, sensors: sensors.map(\.key))
        zones = configurations.map { ZoneTrack(group: WorkoutZoneGroup(configuration: $0), current: nil, since: .zero) }
        self.sensorKeys = sensorKeys
        self.functionalThresholdPower = functionalThresholdPower
        self.maximumHeartRate = maximumHeartRate
        self.profile = profile
        self.day = day
        self.zonePoints = zonePoints
        coaches = targets
        stepCoach = steps
        self.activities = activities
        activity.type = activities.current
        zonesAtActivityStart = configurations.map { Array(repeating: .zero, count: $0.zones.count) }
    }

    public mutating func add(_ sample: Sample) {
        if let (key, state) = sensorStates.add(sample) { changed(key, to: state) }
        latest[sample.type] = sample
        stepCoach?.add(sample)
        ride.add(sample)
        lapStatistics.add(sample)
        if sample.type == .rrInterval, pausedAt == nil {
            rrSensor = sample.sensor
            if let window = dfa.add(sample.value, at: sample.time).last { latestAlpha1 = window }
        }
        guard sample.type == .cyclingPower else { return }
        recentPower.append(sample)
        if let cut = recentPower.firstIndex(where: { $0.time > sample.time - Self.longPowerWindow }), cut > 0 {
            recentPower.removeFirst(cut)
        }
    }

    public mutating func apply(_ output: WorkoutBuilderOutput) {
        if let (key, state) = sensorStates.apply(output) { changed(key, to: state) }
        if stepCoach?.apply(output) == true, case .event(let event) = output, let coach = stepCoach {
            // A step's beginning is told (the renderer rings for it, the page shows it).
            show(PlanText.beginning(coach), at: event.time)
        }
        switch output {
        case .zoneUpdate(let update):
            guard let index = zones.firstIndex(where: { $0.group.configuration.quantityType == update.quantityType }) else {
                return
            }
            zones[index] = ZoneTrack(group: update.zoneGroup, current: update.currentZoneIndex, since: update.time)
            for coach in coaches.indices where coaches[coach].target.quantityType == update.quantityType {
                coaches[coach].zone(update.currentZoneIndex, at: update.time)
            }
        case .event(let event) where event.kind == .pause:
            pausedAt = event.time
            pauseCause = event.cause
            ride.pause(at: event.time)
            lapStatistics.pause(at: event.time)
            endAlpha1Run()
            for coach in coaches.indices { coaches[coach].pause() }
        case .event(let event) where event.kind == .resume:
            if let pausedAt, event.time > pausedAt { pauses.append(pausedAt..<event.time) }
            pausedAt = nil
            pauseCause = nil
            ride.resume(at: event.time)
            lapStatistics.resume(at: event.time)
            for coach in coaches.indices { coaches[coach].resume(at: event.time) }
        case .event(let event) where event.kind == .lap:
            // A second press at the lap's very start makes no lap (the workout's rule).
            if event.time > lapStart { beginLap(at: event.time) }
        case .event(let event):
            guard case .activity(let type) = event.kind else { break }
            _ = activities.advance(to: type)
            // As the workout's rules: at the very start of an activity its type changes; later a
            // new activity begins, and with it a new lap.
            guard event.time > activity.start else {
                activity.type = type
                break
            }
            activity = (type, activity.number + 1, event.time)
            zonesAtActivityStart = zones.map { zoneTime($0, at: event.time).durations }
            if event.time > lapStart { beginLap(at: event.time) }
        default:
            break
        }
    }

    private mutating func beginLap(at time: Duration) {
        lap += 1
        lapStart = time
        lapStatistics = StatisticsAccumulator(start: time)
        if pausedAt != nil { lapStatistics.pause(at: time) }
    }

    /// Each sensor's state now, by its session key: what MQTT's `sensor/KEY` says.
    public var sensorStatesNow: [String: SensorState] { sensorStates.states }

    /// `key`'s values count (`notifying`), as the session says with its first value: for a model
    /// fed by hand.
    public mutating func connected(_ key: String) {
        sensorStates.set(key, .notifying)
        changed(key, to: .notifying)
    }

    /// `key` is lost, as the session says when its link drops, and its next attempt is due at `time`:
    /// for a model fed by hand.
    public mutating func lost(_ key: String, retryAt time: Duration) {
        sensorStates.set(key, .lost)
        changed(key, to: .lost)
        retryAt[key] = time
    }

    /// A connection attempt failed; the next is due at `time` (nil: once the sensor advertises).
    public mutating func attemptFailed(_ key: String, retryAt time: Duration?) {
        retryAt[key] = time
    }

    /// `key`'s values went silent (`stale`), as the session says: for a model fed by hand.
    public mutating func stale(_ key: String) {
        sensorStates.set(key, .stale)
        changed(key, to: .stale)
    }

    /// A link event of the sensors (`SensorLinks`), `now` on the session's clock that starts at
    /// `anchor`: when a lost or connecting sensor's next attempt is due, and its battery. Its state
    /// is the session's, which hears of the link's loss and return from the same events.
    public mutating func apply(_ event: SensorLinkEvent, now: Duration, anchor: ContinuousClock.Instant) {
        switch event {
        case .connected(let key, _), .notifying(let key, _): retryAt[key] = nil
        case .lost(let key, let at): retryAt[key] = at - anchor + SensorLinks.minimumBackoff
        case .attemptFailed(let key, _, let retryIn): attemptFailed(key, retryAt: retryIn.map { now + $0 })
        case .value(let key, let uuid, let bytes) where uuid == 0x2A19 && bytes.count == 1: battery(key, percent: Int(bytes[0]))
        case .value, .stale, .socketClosed: break
        }
    }

    public mutating func battery(_ key: String, percent: Int) {
        if let index = sensors.firstIndex(where: { $0.key == key }) { sensors[index].battery = percent }
    }

    /// A message for the person, shown for `messageLifetime` from `now`.
    public mutating func show(_ text: String, at now: Duration) { message = (text, now) }

    /// `key`'s state became `state`: a sensor whose values count again needs no retry; the values
    /// of one that stopped counting go at once, not when they grow stale.
    private mutating func changed(_ key: String, to state: SensorState) {
        guard state != .notifying else {
            retryAt[key] = nil
            return
        }
        for (type, sample) in latest where sensorKeys[sample.sensor] == key { latest[type] = nil }
        recentPower.removeAll { sensorKeys[$0.sensor] == key }
        if let rrSensor, sensorKeys[rrSensor] == key { endAlpha1Run() }
    }

    private mutating func endAlpha1Run() {
        if let window = dfa.endRun().last { latestAlpha1 = window }
    }

    /// The active time (the session's time outside pauses) from the start to `time`, so that a
    /// span's active part is the difference of its ends': what the builder credits to zones and laps.
    private func activeTime(at time: Duration) -> Duration {
        var paused = pauses.reduce(Duration.zero) { total, pause in
            total + max(min(time, pause.upperBound) - pause.lowerBound, .zero)
        }
        if let pausedAt { paused += max(time - pausedAt, .zero) }
        return time - paused
    }

    /// `track`'s time in each zone at `time`, and how long it has been in its current zone: the
    /// zone's time since its update is the active time since then (before a pause as well as after
    /// it, and none while paused).
    private func zoneTime(_ track: ZoneTrack, at time: Duration) -> (durations: [Duration], inZoneFor: Duration) {
        var durations = track.group.durations
        guard let current = track.current else { return (durations, .zero) }
        let inZoneFor = max(activeTime(at: time) - activeTime(at: track.since), .zero)
        durations[current] += inZoneFor
        return (durations, inZoneFor)
    }

    /// What to draw at `now`.
    public func state(at now: Duration) -> DashboardState {
        var state = DashboardState()
        let active = activeTime(at: now)
        state.elapsed = now
        state.active = active
        func fresh(_ type: QuantityType) -> Double? {
            latest[type].flatMap { now - $0.time <= Self.staleAfter(type) ? $0.value : nil }
        }
        state.heartRate = fresh(.heartRate)
        state.power = fresh(.cyclingPower)
        state.cadence = fresh(.cyclingCadence)
        func mean(_ window: Duration) -> Double? {
            let values = recentPower.filter { $0.time > now - window }.map(\.value)
            return values.isEmpty || state.power == nil ? nil : values.reduce(0, +) / Double(values.count)
        }
        state.power3s = mean(Self.powerWindow)
        state.power10s = mean(Self.longPowerWindow)
        state.ride = DashboardState.Figures(ride.statistics)
        state.dfaAlpha1 = latestAlpha1.flatMap { now - $0.time <= Self.alpha1Lifetime ? $0.alpha1 : nil }
        state.lapFigures = DashboardState.Figures(lapStatistics.statistics)
        state.functionalThresholdPower = functionalThresholdPower
        state.maximumHeartRate = maximumHeartRate
        let statistics = ride.statistics
        state.calories = statistics.calories(profile: profile, on: day)
        state.weight = profile?.weight
        state.step = stepCoach.flatMap { coach in DashboardState.Step(coach, at: now) { fresh($0) != nil } }
        state.targets = coaches.map { coach in
            DashboardState.Target(
                target: coach.target, currentZone: coach.currentZone, outFor: coach.outFor(at: now),
                alert: coach.alerting(at: now), paused: coach.isPaused)
        }
        let multisport = activities.isMultisport || activity.number > 1
        state.zones = zip(zones, zonesAtActivityStart).map { track, atStart in
            let (durations, inZoneFor) = zoneTime(track, at: now)
            return DashboardState.Zones(
                configuration: track.group.configuration, current: track.current, inZoneFor: inZoneFor, durations: durations,
                activityDurations: multisport ? zip(durations, atStart).map { max($0 - $1, .zero) } : nil)
        }
        if multisport {
            state.activity = DashboardState.Activity(
                type: activity.type, number: activity.number, elapsed: max(active - activeTime(at: activity.start), .zero),
                next: activities.next)
        }
        state.zonePoints = state.zones.first { $0.configuration.quantityType == .heartRate }.map { zonePoints.points($0.durations) }
        state.sensors = sensors.map { sensor in
            var sensor = sensor
            let retryIn = retryAt[sensor.key].flatMap { $0 > now ? $0 - now : nil }
            sensor.link =
                switch sensorStates[sensor.key] ?? .connecting {
                case .connecting: .connecting(retryIn: retryIn)
                case .notifying: .connected
                case .stale: .stale
                case .noContact: .noContact
                case .invalid: .invalid
                case .lost: .lost(retryIn: retryIn)
                }
            return sensor
        }
        state.message = message.flatMap { now - $0.at < Self.messageLifetime ? $0.text : nil }
        state.paused = pauseCause
        state.lap = lap
        state.lapElapsed = max(active - activeTime(at: lapStart), .zero)
        state.keys = keys
        state.relay = relay?.summary
        return state
    }
}
