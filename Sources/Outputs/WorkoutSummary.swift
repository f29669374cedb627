public import Foundation
import SensorCore
public import Workouts
import WorkoutStore
public import Zones

/// The human summary of a workout: figures, then time per zone as bars.
public enum WorkoutSummary {
    /// - Parameter profileNow: the rider's profile now, for the training load
    ///   (`Workout.load(now:on:)`): of a workout stored before workouts kept the one they were
    ///   recorded with, and of one recorded without a threshold set since.
    /// - Parameter timeZone: the start is shown in it, with its offset (`TimeText`).
    public static func text(
        _ workout: Workout, missingZonesHint: String? = nil, profileNow: WorkoutProfile? = nil, timeZone: TimeZone
    ) -> String {
        var lines: [String] = []
        let date = TimeText.local(workout.startDate, in: timeZone)
        let activities = workout.activities.map(\.activityType.rawValue).joined(separator: " + ")
        lines.append(
            "\(activities.capitalized) workout, \(date), \(workout.duration.clockText) (active \(workout.activeDuration.clockText))")
        let s = workout.statistics
        if let hr = s.heartRate {
            lines.append("  Heart rate   avg \(whole(hr.average))  min \(whole(hr.minimum))  max \(whole(hr.maximum)) bpm")
        }
        if let p = s.cyclingPower {
            let np = p.normalized.map { "  NP \(whole($0)) W" } ?? ""
            lines.append("  Power        avg \(whole(p.average)) W  max \(whole(p.maximum)) W\(np)  \(whole(p.energy)) kJ")
        }
        if let c = s.cadence { lines.append("  Cadence      avg \(whole(c.average)) rpm  max \(whole(c.maximum)) rpm") }
        if let rmssd = s.rmssd {
            let artefacts = s.rrArtefactShare.map { ", \(whole($0 * 100)) % of beats removed as artefacts" } ?? ""
            lines.append("  HRV          RMSSD \(whole(rmssd)) ms\(artefacts)")
        }
        if let line = dfaAlpha1Line(workout.dfaAlpha1()) { lines.append("  DFA α1       " + line) }
        if let energy = s.energyExpended { lines.append("  Energy       \(whole(energy)) kJ (strap)") }
        let pauses = workout.pauses.count
        let lost = workout.events.filter { if case .sensorLost = $0.kind { return true } else { return false } }.count
        let load = workout.load(now: profileNow, on: CalendarDate(localDayOf: workout.startDate, in: timeZone))
        if let load = loadText(load, activities: workout.activities.map(\.activityType)) {
            lines.append("  Load         " + load)
        }
        for (target, time, share) in workout.timeInTargets() {
            lines.append("  Target       " + targetText(target, time: time, share: share))
        }
        if let plan = workout.plan {
            let ridden = workout.riddenSteps.count
            let share = workout.planShareInTarget.map { ", \(whole($0 * 100)) % of their time in target" } ?? ""
            lines.append("  Plan         \(plan.name): \(ridden) of \(plan.sequence.count) steps\(share)")
        }
        lines.append("  Laps \(workout.laps.count), pauses \(pauses), sensor dropouts \(lost)")
        if s.malformedNotifications > 0 || s.droppedSamples > 0 {
            lines.append(
                "  \(s.malformedNotifications) malformed notifications skipped, \(s.droppedSamples) samples dropped")
        }
        for type in WorkoutStateMachine.zonedTypes {
            guard let group = workout.zoneGroupsByType[type] else { continue }
            lines.append("")
            lines.append(contentsOf: bars(group))
        }
        if workout.laps.count > 1 {
            lines.append("")
            lines.append(contentsOf: lapTable(workout))
        }
        if workout.plan != nil {
            lines.append("")
            lines.append(contentsOf: stepTable(workout))
        }
        if let missingZonesHint {
            lines.append("")
            lines.append(missingZonesHint)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The zones of `group` with, when `durations`, the time in each as a clock and a bar.
    public static func bars(_ group: WorkoutZoneGroup, durations: Bool = true) -> [String] {
        let configuration = group.configuration
        let unit = configuration.quantityType == .heartRate ? "bpm" : "W"
        let title = configuration.quantityType == .heartRate ? "Heart rate" : "Power"
        var lines = ["\(title) zones (\(configuration.source.rawValue))"]
        let longest = group.durations.max() ?? .zero
        let width = 30
        for zone in configuration.zones {
            let range = zone.rangeText(unit: unit)
            guard durations else {
                lines.append("  Zone \(zone.index + 1)  \(range)")
                continue
            }
            let duration = group.durations[zone.index]
            let filled = longest > .zero ? Int((duration / longest * Double(width)).rounded()) : 0
            lines.append(
                "  Zone \(zone.index + 1)  \(range.padding(toLength: 14, withPad: " ", startingAt: 0))"
                    + " \(duration.clockText.leftPadded(8))  " + String(repeating: "█", count: filled))
        }
        return lines
    }

    /// `0.83 mean of 52 windows; HRVT1 (0.75) 142 bpm 205 W, HRVT2 (0.5) 165 bpm 262 W`: DFA α1's
    /// mean over its windows and the thresholds where α1 crossed (`DFAThresholds`); nil without RR
    /// intervals.
    static func dfaAlpha1Line(_ series: DFAAlpha1Series) -> String? {
        guard series.intervalCount > 0 else { return nil }
        guard let mean = series.mean else {
            return "no 2-minute window with \(DFAAlpha1Windows.minimumBeats) beats and under 5 % artefacts"
        }
        let refused = series.refusedWindows > 0 ? " (\(series.refusedWindows) refused)" : ""
        var line = "\(String(format: "%.2f", mean)) mean of \(series.points.count) windows\(refused)"
        let t = series.thresholds
        func threshold(_ name: String, _ alpha1: Double, _ heartRate: Double?, _ power: Double?) -> String? {
            guard heartRate != nil || power != nil else { return nil }
            let values = [heartRate.map { "\(whole($0)) bpm" }, power.map { "\(whole($0)) W" }].compactMap { $0 }
            return "\(name) (\(alpha1 == 0.5 ? "0.5" : "0.75")) " + values.joined(separator: " ")
        }
        let crossings = [
            threshold("HRVT1", DFAThresholds.first, t.heartRate1, t.power1),
            threshold("HRVT2", DFAThresholds.second, t.heartRate2, t.power2),
        ].compactMap { $0 }
        if !crossings.isEmpty { line += "; " + crossings.joined(separator: ", ") }
        return line
    }

    public static func whole(_ value: Double) -> String { String(Int(value.rounded())) }

    /// `heart-rate zones 2-3: 83 % of active time (41:30)`.
    public static func targetText(_ target: WorkoutTarget, time: Duration, share: Double) -> String {
        "\(target.label): \(whole(share * 100)) % of active time (\(time.clockText))"
    }

    /// `TSS 87  IF 0.83 (FTP 250 W)  hrTSS 80  TRIMP 143  hard`, nil when there is nothing to say.
    /// Several activities: `TSS 26 (cycling TSS 14 IF 0.93, running hrTSS 12; FTP 250 W)  hrTSS 22 ...`,
    /// the workout's TSS the sum of each activity's TSS, else its hrTSS. A threshold the load
    /// borrowed from the profile now is said to be set later: `(FTP 250 W set later)`,
    /// `hrTSS 45 (LTHR 165 set later)`.
    public static func loadText(_ load: WorkoutLoad, activities: [WorkoutActivityType] = []) -> String? {
        var parts: [String] = []
        let later = load.thresholdsSetLater.functionalThresholdPower != nil ? " set later" : ""
        if activities.count > 1, load.activities.count == activities.count {
            let each = zip(activities, load.activities).map { type, activity in
                if let tss = activity.trainingStressScore, let intensityFactor = activity.intensityFactor {
                    "\(type.rawValue) TSS \(whole(tss)) IF \(String(format: "%.2f", intensityFactor))"
                } else if let hrTSS = activity.heartRateStressScore {
                    "\(type.rawValue) hrTSS \(whole(hrTSS))"
                } else {
                    "\(type.rawValue) no load"
                }
            }
            let ftp = load.functionalThresholdPower.map { "; FTP \($0) W\(later)" } ?? ""
            if let tss = load.trainingStressScore {
                parts.append("TSS \(whole(tss)) (\(each.joined(separator: ", "))\(ftp))")
            }
        } else if let tss = load.trainingStressScore, let intensityFactor = load.intensityFactor,
            let ftp = load.functionalThresholdPower
        {
            parts.append("TSS \(whole(tss))  IF \(String(format: "%.2f", intensityFactor)) (FTP \(ftp) W\(later))")
        }
        if let hrTSS = load.heartRateStressScore {
            parts.append("hrTSS \(whole(hrTSS))" + (load.thresholdsSetLater.lactateThresholdHeartRate.map { " (LTHR \($0) set later)" } ?? ""))
        }
        if let trimp = load.trimp { parts.append("TRIMP \(whole(trimp))") }
        if let intensity = load.intensity { parts.append(intensity.rawValue) }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
    }

    /// The plan's steps as ridden: number, lap, planned and ridden (active) time, time and share
    /// in target, and the target in words (watts for the FTP the workout was recorded with).
    public static func stepTable(_ workout: Workout) -> [String] {
        let ftp = workout.profile?.athlete.functionalThresholdPower
        var lines = ["Steps of \(workout.plan?.name ?? "the plan")", "  Step  Lap   Planned    Ridden      In target  Target"]
        for step in workout.riddenSteps {
            let planned = step.planned.step.timeLength?.clockText ?? "open"
            let inTarget =
                step.timeInTarget.map { time in time.clockText.leftPadded(8) + "\(step.share.map { whole($0 * 100) } ?? "-") %".leftPadded(7) }
                ?? "-".leftPadded(15)
            lines.append(
                String(step.number).leftPadded(6) + String(step.lap + 1).leftPadded(5) + planned.leftPadded(10)
                    + step.activeDuration.clockText.leftPadded(10) + inTarget + "  "
                    + PlanText.describe(step.planned.step, ftp: ftp))
        }
        return lines
    }

    /// The laps: start, active time (without pauses, what the lap's figures and zones count),
    /// elapsed time (start to end, pauses included), heart rate, power and NP, then time in each
    /// zone by lap. The web page's lap table has the same columns.
    public static func lapTable(_ workout: Workout) -> [String] {
        let laps = workout.lapSummaries()
        func figure(_ value: Double?, _ width: Int) -> String { (value.map(whole) ?? "-").leftPadded(width) }
        var lines = ["Laps", "  Lap    Start    Active   Elapsed  Avg HR  Max HR  Avg W   NP W"]
        for (index, lap) in laps.enumerated() {
            let s = lap.statistics
            lines.append(
                String(index + 1).leftPadded(5) + (lap.range.lowerBound - workout.start).clockText.leftPadded(9)
                    + lap.timerTime.clockText.leftPadded(10)
                    + (lap.range.upperBound - lap.range.lowerBound).clockText.leftPadded(10) + figure(s.heartRate?.average, 8)
                    + figure(s.heartRate?.maximum, 8) + figure(s.cyclingPower?.average, 7)
                    + figure(s.cyclingPower?.normalized, 7))
        }
        for type in WorkoutStateMachine.zonedTypes {
            guard let zones = workout.zoneGroupsByType[type]?.configuration.zones else { continue }
            lines.append("\(type == .heartRate ? "Heart-rate" : "Power") zones by lap")
            lines.append("  Lap" + zones.map { "Z\($0.index + 1)".leftPadded(9) }.joined())
            for (index, lap) in laps.enumerated() {
                let durations = lap.zoneGroups[type]?.durations ?? []
                lines.append(
                    String(index + 1).leftPadded(5)
                        + zones.map { zone in
                            let duration = zone.index < durations.count ? durations[zone.index] : .zero
                            return (duration > .zero ? duration.clockText : "-").leftPadded(9)
                        }.joined())
            }
        }
        return lines
    }
}

extension String {
    public func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension Double {
    /// `72` for integral values, else the shortest round-trip text.
    public var formatted: String {
        rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : description
    }
}
