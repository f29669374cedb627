public import Workouts
import Foundation
import SensorCore
import Zones

/// A workout as a Garmin Training Center (TCX) file: TrainingCenterDatabase v2 with the
/// ActivityExtension v2 power fields, valid against both published schemas
/// (`Tests/Fixtures/tcx/`).
///
/// One `Activity` per activity of the workout (`Sport` Biking for cycling, Running for running,
/// Other for the rest; its `Id` is its start), one `Lap` per lap of the workout within it, and a
/// `Trackpoint` at every whole second that is not paused and at which a value holds (a new `Track`
/// after each pause or gap), with the held values of `WorkoutSeconds`:
/// - Trackpoint: `HeartRateBpm` (1 to 255 bpm), `Cadence` (rpm, at most 254), `DistanceMeters`
///   (cumulative, when the workout has wheel speed), and `ns3:TPX` with `Speed` (m/s) and `Watts`
///   (W, negative power as 0).
/// - Lap: `TotalTimeSeconds` (the lap's time not paused, as a device's timer), `DistanceMeters`
///   (required by the schema: the held speed summed over the lap's seconds, 0 without speed),
///   `Calories` (kcal, taken equal to the lap's mechanical work in kJ, the usual rule for cycling
///   with about 24 % efficiency; 0 without power), average and maximum heart rate, `Intensity`
///   Active, average non-zero `Cadence`, `TriggerMethod` (Time for a lap an auto-lap or a plan's timed step ended, else
///   Manual: the person's lap, the end of the activity or workout), and `ns3:LX` with `AvgSpeed`,
///   `AvgWatts` and `MaxWatts`. Averages and maxima are over the samples received while not paused,
///   as `WorkoutStatistics`.
public struct TCXEncoder: Sendable {
    public static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    public static let activityExtensionNamespace = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

    public init() {}

    /// The `Sport` attribute for an activity type.
    public static func sport(_ type: WorkoutActivityType) -> String {
        switch type {
        case .cycling: "Biking"
        case .running: "Running"
        default: "Other"
        }
    }

    public func encode(_ workout: Workout) -> String {
        let series = WorkoutSeconds(workout)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="\(Self.namespace)" xmlns:ns3="\(Self.activityExtensionNamespace)" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="\(Self.namespace) \
            http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd \(Self.activityExtensionNamespace) \
            http://www.garmin.com/xmlschemas/ActivityExtensionv2.xsd">
             <Activities>

            """
        xml.reserveCapacity(series.seconds.count * 260)
        let hasSpeed = series.seconds.contains { $0.speed != nil }
        var writer = Writer(workout: workout, series: series, hasSpeed: hasSpeed, xml: xml)
        let activities =
            workout.activities.isEmpty
            ? [WorkoutActivity(activityType: workout.activityType, start: workout.start, end: workout.end, zoneGroupsByType: [:])]
            : workout.activities
        // Each activity's laps, cut to it, with their figures worked out once for all of them
        // (`WorkoutSpanSummary`: the figures of the summary, the JSON and the FIT laps).
        let laps = activities.map { activity in
            let laps = workout.laps.compactMap { lap -> Range<Duration>? in
                let clipped = lap.clamped(to: activity.start..<activity.end)
                return clipped.isEmpty ? nil : clipped
            }
            return laps.isEmpty ? [activity.start..<activity.end] : laps
        }
        var summaries = WorkoutSpanSummary.summaries(
            of: laps.flatMap { $0 }, in: workout, configurations: [:], samplesByType: [:])[...]
        for (activity, count) in zip(activities, laps.map(\.count)) {
            writer.activity(activity, laps: Array(summaries.prefix(count)))
            summaries = summaries.dropFirst(count)
        }
        writer.xml += " </Activities>\n</TrainingCenterDatabase>\n"
        return writer.xml
    }

    /// Appends the activities; keeps the cumulative distance across laps.
    private struct Writer {
        let workout: Workout
        let series: WorkoutSeconds
        let hasSpeed: Bool
        var xml: String
        var distance = 0.0

        func date(_ time: Duration) -> String {
            ISO8601.format(workout.startDate.timeIntervalSince1970 + (time - workout.start).seconds)
        }

        func isActive(_ time: Duration) -> Bool {
            time >= workout.start && time <= workout.end && !workout.pauses.contains { $0.contains(time) }
        }

        mutating func activity(_ activity: WorkoutActivity, laps: [WorkoutSpanSummary]) {
            xml += "  <Activity Sport=\"\(TCXEncoder.sport(activity.activityType))\">\n"
            xml += "   <Id>\(date(activity.start))</Id>\n"
            for lap in laps { self.lap(lap) }
            // One Notes element: the sensors, and the share of active time in each target zone range.
            var notes: [String] = []
            let sensors = workout.sensors.values.sorted()
            if !sensors.isEmpty { notes.append("Sensors: " + sensors.joined(separator: ", ")) }
            for (target, _, share) in workout.timeInTargets() {
                notes.append("Target \(target.label): \(Int((share * 100).rounded())) % of active time")
            }
            if !notes.isEmpty { xml += "   <Notes>\(XMLText.escaped(notes.joined(separator: "; ")))</Notes>\n" }
            xml += """
                   <Creator xsi:type="Device_t">
                    <Name>SensorBridge</Name>
                    <UnitId>0</UnitId>
                    <ProductID>0</ProductID>
                    <Version><VersionMajor>0</VersionMajor><VersionMinor>0</VersionMinor></Version>
                   </Creator>
                  </Activity>

                """
        }

        /// A lap: its time, heart rate, power, cadence and calories (`WorkoutStatistics.calories`, the
        /// workout's profile's for calories from heart rate,
        /// as FIT's total_calories) from its summary; distance and speed from the seconds and speed samples.
        mutating func lap(_ summary: WorkoutSpanSummary) {
            let lap = summary.range
            let statistics = summary.statistics
            // Seconds k with start + k in the lap.
            let seconds = series.seconds[
                series.indices(
                    from: Int(WorkoutSeconds.secondsCeiling(lap.lowerBound - workout.start)),
                    to: Int(WorkoutSeconds.secondsCeiling(lap.upperBound - workout.start)))]
            var lapDistance = 0.0
            var maximumSpeed: Double?
            for second in seconds where second.isActive {
                if let speed = second.speed {
                    lapDistance += speed
                    maximumSpeed = max(maximumSpeed ?? speed, speed)
                }
            }
            var speed = Summary()
            if hasSpeed {
                for sample in workout.samples where sample.type == .cyclingSpeed && lap.contains(sample.time) && isActive(sample.time) {
                    speed.add(sample.value)
                }
            }
            xml += "   <Lap StartTime=\"\(date(lap.lowerBound))\">\n"
            xml += "    <TotalTimeSeconds>\(ExportNumber.text(summary.timerTime.seconds, decimals: 3))</TotalTimeSeconds>\n"
            xml += "    <DistanceMeters>\(ExportNumber.text(lapDistance, decimals: 2))</DistanceMeters>\n"
            if let maximumSpeed { xml += "    <MaximumSpeed>\(ExportNumber.text(maximumSpeed, decimals: 3))</MaximumSpeed>\n" }
            let day = ISO8601.calendarDay(workout.startDate.timeIntervalSince1970)
            let calories = statistics.calories(
                profile: workout.profile?.athlete, on: CalendarDate(year: day.year, month: day.month, day: day.day))
            xml += "    <Calories>\(Self.clamp(calories ?? 0, 0...65535))</Calories>\n"
            if let bpm = (statistics.heartRate?.average).flatMap(Self.beatsPerMinute) {
                xml += "    <AverageHeartRateBpm><Value>\(bpm)</Value></AverageHeartRateBpm>\n"
            }
            if let bpm = (statistics.heartRate?.maximum).flatMap(Self.beatsPerMinute) {
                xml += "    <MaximumHeartRateBpm><Value>\(bpm)</Value></MaximumHeartRateBpm>\n"
            }
            xml += "    <Intensity>Active</Intensity>\n"
            if let rpm = statistics.cadence?.average { xml += "    <Cadence>\(Self.clamp(rpm, 0...254))</Cadence>\n" }
            let trigger = workout.cause(of: .lap, at: lap.upperBound) == .manual ? "Manual" : "Time"
            xml += "    <TriggerMethod>\(trigger)</TriggerMethod>\n"
            var inTrack = false
            var previous: Int?
            for second in seconds {
                // A track is a stretch of consecutive active seconds: a pause or a gap ends it.
                if inTrack, !second.isActive || second.elapsed != (previous ?? 0) + 1 {
                    xml += "    </Track>\n"
                    inTrack = false
                }
                previous = second.elapsed
                guard second.isActive else { continue }
                if !inTrack { xml += "    <Track>\n" }
                inTrack = true
                trackpoint(second)
            }
            if inTrack { xml += "    </Track>\n" }
            let power = statistics.cyclingPower
            if speed.average != nil || power != nil {
                xml += "    <Extensions><ns3:LX>"
                if let average = speed.average { xml += "<ns3:AvgSpeed>\(ExportNumber.text(average, decimals: 3))</ns3:AvgSpeed>" }
                if let average = power?.average { xml += "<ns3:AvgWatts>\(Self.clamp(average, 0...65535))</ns3:AvgWatts>" }
                if let maximum = power?.maximum { xml += "<ns3:MaxWatts>\(Self.clamp(maximum, 0...65535))</ns3:MaxWatts>" }
                xml += "</ns3:LX></Extensions>\n"
            }
            xml += "   </Lap>\n"
        }

        mutating func trackpoint(_ second: WorkoutSeconds.Second) {
            xml += "     <Trackpoint><Time>"
            xml += ISO8601.format(series.startDate.timeIntervalSince1970 + Double(second.elapsed))
            xml += "</Time>"
            if hasSpeed {
                distance += second.speed ?? 0
                xml += "<DistanceMeters>\(ExportNumber.text(distance, decimals: 2))</DistanceMeters>"
            }
            if let bpm = second.heartRate.flatMap(Self.beatsPerMinute) {
                xml += "<HeartRateBpm><Value>\(bpm)</Value></HeartRateBpm>"
            }
            if let rpm = second.cadence { xml += "<Cadence>\(Self.clamp(rpm, 0...254))</Cadence>" }
            if second.speed != nil || second.power != nil {
                xml += "<Extensions><ns3:TPX>"
                if let speed = second.speed { xml += "<ns3:Speed>\(ExportNumber.text(speed, decimals: 3))</ns3:Speed>" }
                if let watts = second.power { xml += "<ns3:Watts>\(Self.clamp(watts, 0...65535))</ns3:Watts>" }
                xml += "</ns3:TPX></Extensions>"
            }
            xml += "</Trackpoint>\n"
        }

        /// A heart rate as the schema's `HeartRateInBeatsPerMinute_t` (unsignedByte, at least 1); nil outside it.
        static func beatsPerMinute(_ value: Double) -> Int? {
            let rounded = value.rounded()
            return (1...255).contains(rounded) ? Int(rounded) : nil
        }

        /// `value` rounded to a whole number within `range`.
        static func clamp(_ value: Double, _ range: ClosedRange<Int>) -> Int {
            guard !value.isNaN else { return range.lowerBound }
            return Int(min(max(value.rounded(), Double(range.lowerBound)), Double(range.upperBound)))
        }
    }

    /// Mean and maximum of a run of values.
    private struct Summary {
        var sum = 0.0
        var count = 0
        var maximum: Double?

        mutating func add(_ value: Double) {
            sum += value
            count += 1
            maximum = max(maximum ?? value, value)
        }

        var average: Double? { count > 0 ? sum / Double(count) : nil }
    }
}
