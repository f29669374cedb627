public import Captures
import Export
import Session
import SensorCore
import Workouts
import Zones

/// What the fuzz targets run on every trace they get out of their input: the replay pipeline from
/// the trace's records into a workout builder, and every export of the workout it builds.
///
/// The records take `replay`'s path (`TraceReplayer`: the GATT decoders, the sample extraction,
/// the session's application of samples and events to `WorkoutStateMachine`), on the calling
/// thread instead of through the sample ring and its threads. The builder has custom heart-rate
/// and power zones, so the zone classifiers run too. A crash, a hang or an allocation over the
/// fuzzer's limit is the finding; what the pipeline says about bad input is not.
public enum ReplayHarness {
    /// The zones the builder classifies into: 5 heart-rate zones, 6 power zones.
    static let zones = [
        try? WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 155, 170]),
        try? WorkoutZoneConfiguration(quantityType: .cyclingPower, boundaryValues: [138, 188, 225, 263, 300]),
    ].compactMap { $0 }

    /// Replays `reader` into a builder and exports the workout in every format; returns the
    /// number of samples plus bytes exported (something for the caller to keep, so that nothing
    /// is optimised away).
    public static func replay(_ reader: any TraceRecordSource) -> Int {
        let replayer = TraceReplayer(reader: reader)
        var machine = WorkoutStateMachine(activityType: .cycling)
        for configuration in zones { try? machine.setCustomZoneConfiguration(configuration) }
        machine.sensors = replayer.sensorNames
        guard (try? machine.beginCollection(at: .zero, date: reader.header.start)) != nil else { return 0 }
        let warnings = replayer.replay(into: &machine)
        guard let workout = try? machine.finishWorkout() else { return warnings.count }
        var total = workout.samples.count + warnings.count
        for format in ExportFormat.allCases { total += format.encode(workout).count }
        return total
    }
}
