public import SensorCore
import Zones

/// Builds `WorkoutStatistics` from samples, pauses and the end, in time order. Pure and cheap
/// per sample; `statistics` can be read at any time for live figures.
public struct StatisticsAccumulator: Sendable {
    private let start: Duration
    private var active = true
    private var heartRate = Extremes()
    private var power = Extremes()
    private var cadence = Extremes()
    private var powerIntegrator: HeldValueIntegrator
    private var heartRateIntegrator = HeldValueIntegrator(hold: ZoneClassifier.defaultMaximumHold(for: .heartRate))
    private var rr = RRArtefactFilter()
    private var lastEnergyCounter: Double?
    private var energyExpended: Double?
    public var droppedSamples = 0
    public var malformedNotifications = 0

    private struct Extremes: Sendable {
        var sum = 0.0
        var minimum = Double.infinity
        var maximum = -Double.infinity
        var count = 0
        mutating func add(_ value: Double) {
            sum += value
            minimum = min(minimum, value)
            maximum = max(maximum, value)
            count += 1
        }
        var average: Double { sum / Double(count) }
    }

    /// - Parameters:
    ///   - start: the workout's start, from the session anchor.
    ///   - powerHold: how long a power sample stands for energy and normalized power (the zone rule's hold).
    public init(start: Duration, powerHold: Duration = .seconds(3)) {
        self.start = start
        powerIntegrator = HeldValueIntegrator(hold: powerHold)
    }

    private func offset(_ time: Duration) -> Int64 { (time - start).clampedNanoseconds }

    public mutating func add(_ sample: Sample) {
        switch sample.type {
        case .heartRate:
            heartRateIntegrator.add(sample.value, at: offset(sample.time))
            if active { heartRate.add(sample.value) }
        case .cyclingPower:
            powerIntegrator.add(sample.value, at: offset(sample.time))
            if active { power.add(sample.value) }
        case .cyclingCadence:
            if active && sample.value > 0 { cadence.add(sample.value) }
        case .rrInterval:
            if active { rr.add(sample.value) }
        case .energyExpended:
            if let last = lastEnergyCounter {
                // The strap's counter is a uint16 that wraps; a smaller value is a wrap, not a loss.
                let increment = sample.value >= last ? sample.value - last : sample.value + 65536 - last
                energyExpended = (energyExpended ?? 0) + increment
            } else {
                energyExpended = 0
            }
            lastEnergyCounter = sample.value
        case .cyclingSpeed, .accumulatedEnergy, .batteryLevel, .pedalPowerBalance:
            break
        }
    }

    public mutating func pause(at time: Duration) {
        powerIntegrator.pause(at: offset(time))
        heartRateIntegrator.pause(at: offset(time))
        active = false
        rr.endRun()
    }

    public mutating func resume(at time: Duration) {
        powerIntegrator.resume(at: offset(time))
        heartRateIntegrator.resume(at: offset(time))
        active = true
    }

    public mutating func end(at time: Duration) {
        powerIntegrator.end(at: offset(time))
        heartRateIntegrator.end(at: offset(time))
        rr.endRun()
        active = false
    }

    /// The latest sample of `type` stops standing for anything at `time`: its sensor's values
    /// stopped counting (no contact, an invalid value). Power's hold ends there (energy, NP); RR
    /// intervals start a new run (no difference spans the gap).
    public mutating func endHold(of type: QuantityType, at time: Duration) {
        switch type {
        case .cyclingPower: powerIntegrator.endHold(at: offset(time))
        case .heartRate: heartRateIntegrator.endHold(at: offset(time))
        case .rrInterval: rr.endRun()
        default: break
        }
    }

    public var statistics: WorkoutStatistics {
        var s = WorkoutStatistics(droppedSamples: droppedSamples, malformedNotifications: malformedNotifications)
        if heartRate.count > 0 {
            let held = heartRateIntegrator.coveredNanoseconds
            s.heartRate = .init(
                average: heartRate.average, minimum: heartRate.minimum, maximum: heartRate.maximum,
                count: heartRate.count, heldDuration: .nanoseconds(held),
                heldAverage: held > 0 ? heartRateIntegrator.integral / (Double(held) / 1e9) : nil)
        }
        if power.count > 0 {
            s.cyclingPower = .init(
                average: power.average, maximum: power.maximum,
                normalized: powerIntegrator.normalized.value,
                energy: powerIntegrator.integral / 1000, count: power.count)
        }
        if cadence.count > 0 {
            s.cadence = .init(average: cadence.average, maximum: cadence.maximum, count: cadence.count)
        }
        s.energyExpended = energyExpended
        if rr.pairs > 0 {
            s.rmssd = (rr.squares / Double(rr.pairs)).squareRoot()
            s.rrPairCount = rr.pairs
        }
        s.rrIntervalCount = rr.judged
        s.rrArtefactCount = rr.artefacts
        return s
    }
}
