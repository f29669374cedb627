import Foundation
import SensorCore
import Workouts
import Zones

/// The human summary of a workout: figures, then time per zone as bars.
enum WorkoutSummary {
    static func text(_ workout: Workout, missingZonesHint: String? = nil) -> String {
        var lines: [String] = []
        let date = ISO8601.format(workout.startDate.timeIntervalSince1970)
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
        if let rmssd = s.rmssd { lines.append("  HRV          RMSSD \(whole(rmssd)) ms") }
        if let energy = s.energyExpended { lines.append("  Energy       \(whole(energy)) kJ (strap)") }
        let pauses = workout.pauses.count
        let lost = workout.events.filter { if case .sensorLost = $0.kind { return true } else { return false } }.count
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
        if let missingZonesHint {
            lines.append("")
            lines.append(missingZonesHint)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The zones of `group` with, when `durations`, the time in each as a clock and a bar.
    static func bars(_ group: WorkoutZoneGroup, durations: Bool = true) -> [String] {
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

    static func whole(_ value: Double) -> String { String(Int(value.rounded())) }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
