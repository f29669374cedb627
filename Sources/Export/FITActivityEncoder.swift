public import Foundation
import SensorCore
public import Workouts
public import Zones

/// Writes a finished workout as a FIT activity file (Garmin FIT protocol 2.0, profile 21.218),
/// the format Garmin Connect, Strava, intervals.icu, TrainingPeaks and GoldenCheetah import.
///
/// Messages, in time order: `file_id` (type activity), `device_info` for SensorBridge and for each
/// sensor, `event` (timer start at the start, timer stop and start around each pause, timer
/// stop_all at the end; `timer_trigger` auto for an auto-pause and its resume, else manual), a
/// `record` for every whole second of active time (heart rate, power, cadence, speed, left/right
/// pedal balance: each the latest sample within its zone hold, 5 s for heart rate and 3 s for the
/// others, else absent), `hrv` with the RR intervals (5 a message), one `lap` per workout lap
/// (split where a multisport workout changes activity; `lap_trigger` time for an auto-lap or a
/// plan's timed step, manual for the person's, session_end for a session's last; `wkt_step_index`
/// for a step of the plan), one `session` per activity, a `time_in_zone` after each lap and
/// session, and `activity`. A workout ridden to a plan carries it as `workout` and
/// `workout_step` messages (`FITWorkoutFile.messages`) after the devices.
///
/// Sessions carry the stored workout's own statistics and zone durations (for a multisport
/// workout, the activity's zone durations and statistics worked out over its span); laps are
/// worked out from the samples by the same rules. Values that do not exist are written as the
/// base type's invalid value, never as 0. Pure: no I/O.
public struct FITActivityEncoder: Sendable {
    /// Gives `time_in_zone` its maximum and resting heart rate and FTP fields, and `session` its
    /// threshold power, when known. `ExportFormat.fit` gives the workout's own (`Workout.profile`).
    public var profile: AthleteProfile?
    /// How system heart-rate zones were made, for `time_in_zone.hr_calc_type` (percent of
    /// heart-rate reserve, of maximum or of LTHR). `ExportFormat.fit` gives the workout's own.
    public var heartRateZoneModel: HeartRateZoneModel
    /// For `activity.local_timestamp`.
    public var timeZone: TimeZone

    public init(profile: AthleteProfile? = nil, heartRateZoneModel: HeartRateZoneModel = .reserve) {
        self.profile = profile
        self.heartRateZoneModel = heartRateZoneModel
        timeZone = .current
    }

    /// The FIT file of `workout`.
    public func encode(_ workout: Workout) -> [UInt8] {
        var encoding = FITActivityEncoding(
            workout: workout, profile: profile, heartRateZoneModel: heartRateZoneModel, timeZone: timeZone)
        return encoding.encode()
    }
}
