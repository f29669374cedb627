public import SensorCore
public import Zones

/// A target zone range for one quantity of a workout (`record --target-hr-zone 2-3`): the zones
/// the rider means to stay in, by index of the workout's zones for that quantity (0-based here,
/// 1-based on the command line and on screen).
public struct WorkoutTarget: Sendable, Hashable {
    public var quantityType: QuantityType
    public var zones: ClosedRange<Int>

    public init(quantityType: QuantityType, zones: ClosedRange<Int>) {
        self.quantityType = quantityType
        self.zones = zones
    }

    /// `2-3`, or `2` for one zone, 1-based.
    public var zonesText: String {
        zones.count == 1 ? "\(zones.lowerBound + 1)" : "\(zones.lowerBound + 1)-\(zones.upperBound + 1)"
    }

    /// `heart-rate zones 2-3`, `power zone 4`.
    public var label: String {
        "\(quantityType == .heartRate ? "heart-rate" : "power") zone\(zones.count == 1 ? "" : "s") \(zonesText)"
    }

    /// Time in the target zones of `group` and its share of `activeDuration` (0 when there was no
    /// active time). Zones past the group's last zone count nothing.
    public func timeInTarget(_ group: WorkoutZoneGroup, activeDuration: Duration) -> (time: Duration, share: Double) {
        let time = time(inZones: group.durations)
        return (time, activeDuration > .zero ? time / activeDuration : 0)
    }

    /// The time in the target zones of `durations` (time by zone index); zones past its end count nothing.
    public func time(inZones durations: [Duration]) -> Duration {
        durations.indices.filter(zones.contains).reduce(Duration.zero) { $0 + durations[$1] }
    }
}

/// How long a rider has been out of a target, by the coaching rule (DESIGN.md §3 "Target
/// zones"): out from the first judgement outside it, back in from the first inside it; the time
/// out does not run while paused and starts again from the resume; unknown (no alert) without a
/// judgement (no value, a stale sensor). Shared by target zones (`TargetZoneCoach`) and plan
/// steps (`StepCoach`).
public struct OutOfTargetClock: Sendable, Hashable {
    /// The latest judgement: true in the target, false out, nil unknown.
    public private(set) var inTarget: Bool?
    /// Since when the rider has been out, counting active time only; nil when in, paused or unknown.
    public private(set) var outSince: Duration?
    public private(set) var isPaused = false

    public init() {}

    public mutating func judge(_ inTarget: Bool?, at time: Duration) {
        self.inTarget = inTarget
        if inTarget == false {
            if outSince == nil, !isPaused { outSince = time }
        } else {
            outSince = nil
        }
    }

    public mutating func pause() {
        isPaused = true
        outSince = nil
    }

    public mutating func resume(at time: Duration) {
        isPaused = false
        if inTarget == false { outSince = time }
    }

    /// How long the rider has been out at `now` (nil when not out).
    public func outFor(at now: Duration) -> Duration? { outSince.map { max(now - $0, .zero) } }

    /// Out for `debounce` or longer at `now`.
    public func alerting(at now: Duration, debounce: Duration) -> Bool { outFor(at: now).map { $0 >= debounce } ?? false }
}

/// Whether the rider has been out of a target zone range long enough to be told, by
/// `OutOfTargetClock`'s rule, judged at each zone update of the target's quantity.
public struct TargetZoneCoach: Sendable, Hashable {
    public let target: WorkoutTarget
    /// How long the rider may be out of the target before the alert.
    public let debounce: Duration
    /// The latest current zone, nil for none.
    public private(set) var currentZone: Int?
    private var clock = OutOfTargetClock()

    public static let defaultDebounce = Duration.seconds(10)

    public init(target: WorkoutTarget, debounce: Duration = defaultDebounce) {
        self.target = target
        self.debounce = debounce
    }

    /// Since when the rider has been out of the target (active time only); nil when in it, paused, or without a zone.
    public var outSince: Duration? { clock.outSince }
    /// Paused: the target is not judged (neither in nor out) until the resume.
    public var isPaused: Bool { clock.isPaused }

    /// A zone update of the target's quantity at `time`.
    public mutating func zone(_ index: Int?, at time: Duration) {
        currentZone = index
        clock.judge(index.map(target.zones.contains), at: time)
    }

    public mutating func pause() { clock.pause() }

    public mutating func resume(at time: Duration) { clock.resume(at: time) }

    /// How long the rider has been out of the target at `now` (nil when not out).
    public func outFor(at now: Duration) -> Duration? { clock.outFor(at: now) }

    /// Whether to alert at `now`: out of the target for the debounce time or longer.
    public func alerting(at now: Duration) -> Bool { clock.alerting(at: now, debounce: debounce) }
}
