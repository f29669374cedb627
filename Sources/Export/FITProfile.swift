/// The numbers of the Garmin FIT profile (Profile.xlsx, version 21.218) this exporter writes:
/// global message numbers, field definition numbers and enumeration values. Units and scales are
/// given where the fields are written (`FITActivityEncoder`).
enum FITProfile {
    /// `mesg_num`.
    enum Message {
        static let fileID: UInt16 = 0
        static let session: UInt16 = 18
        static let lap: UInt16 = 19
        static let record: UInt16 = 20
        static let event: UInt16 = 21
        static let deviceInfo: UInt16 = 23
        static let activity: UInt16 = 34
        static let hrv: UInt16 = 78
        static let timeInZone: UInt16 = 216
        static let fieldDescription: UInt16 = 206
        static let developerDataID: UInt16 = 207
    }

    /// `developer_data_id` (207) and `field_description` (206).
    enum Developer {
        static let applicationID: UInt8 = 1, developerDataIndex: UInt8 = 3, applicationVersion: UInt8 = 4
        static let fieldDefinitionNumber: UInt8 = 1, baseType: UInt8 = 2, fieldName: UInt8 = 3, units: UInt8 = 8
        /// SensorBridge's `application_id`, a UUID of its own (big-endian bytes).
        static let sensorBridgeApplicationID: [Int64] = [
            0x5e, 0x3b, 0x8f, 0x27, 0x1c, 0x4d, 0x4a, 0x6e, 0x9b, 0x02, 0x53, 0x6e, 0x42, 0x72, 0x69, 0x64,
        ]
    }

    /// Fields many messages share.
    static let messageIndex: UInt8 = 254
    static let timestamp: UInt8 = 253

    /// FIT `date_time`: seconds since 1989-12-31T00:00:00Z, which is this many seconds after 1970.
    static let epochOffset: Int64 = 631_065_600

    /// `file_id` (0).
    enum FileID {
        static let type: UInt8 = 0, manufacturer: UInt8 = 1, product: UInt8 = 2, timeCreated: UInt8 = 4
        static let productName: UInt8 = 8
    }

    /// `device_info` (23).
    enum DeviceInfo {
        static let deviceIndex: UInt8 = 0, deviceType: UInt8 = 1, manufacturer: UInt8 = 2, product: UInt8 = 4
        static let descriptor: UInt8 = 19, sourceType: UInt8 = 25
        static let productName: UInt8 = 27
    }

    /// `event` (21).
    enum Event {
        static let event: UInt8 = 0, eventType: UInt8 = 1, data: UInt8 = 3, eventGroup: UInt8 = 4
    }

    /// `record` (20).
    enum Record {
        static let heartRate: UInt8 = 3, cadence: UInt8 = 4, speed: UInt8 = 6, power: UInt8 = 7
        static let leftRightBalance: UInt8 = 30
    }

    /// `lap` (19) and `session` (18) differ in most numbers; these are the ones this exporter writes.
    struct Summary {
        let event: UInt8 = 0, eventType: UInt8 = 1, startTime: UInt8 = 2
        let totalElapsedTime: UInt8 = 7, totalTimerTime: UInt8 = 8, totalCalories: UInt8 = 11
        var sport: UInt8, subSport: UInt8
        var averageHeartRate: UInt8, maximumHeartRate: UInt8, minimumHeartRate: UInt8
        var averageCadence: UInt8, maximumCadence: UInt8, averagePower: UInt8, maximumPower: UInt8
        var normalizedPower: UInt8, totalWork: UInt8, trigger: UInt8

        static let lap = Summary(
            sport: 25, subSport: 39, averageHeartRate: 15, maximumHeartRate: 16, minimumHeartRate: 63,
            averageCadence: 17, maximumCadence: 18, averagePower: 19, maximumPower: 20, normalizedPower: 33,
            totalWork: 41, trigger: 24)
        static let session = Summary(
            sport: 5, subSport: 6, averageHeartRate: 16, maximumHeartRate: 17, minimumHeartRate: 64,
            averageCadence: 18, maximumCadence: 19, averagePower: 20, maximumPower: 21, normalizedPower: 34,
            totalWork: 48, trigger: 28)
    }

    /// `lap` (19) only.
    enum Lap {
        static let workoutStepIndex: UInt8 = 71
    }

    /// `session` (18) only.
    enum Session {
        static let firstLapIndex: UInt8 = 25, numLaps: UInt8 = 26, thresholdPower: UInt8 = 45
        static let trainingStressScore: UInt8 = 35, intensityFactor: UInt8 = 36
    }

    /// `activity` (34).
    enum Activity {
        static let totalTimerTime: UInt8 = 0, numSessions: UInt8 = 1, type: UInt8 = 2, event: UInt8 = 3
        static let eventType: UInt8 = 4, localTimestamp: UInt8 = 5
    }

    /// `time_in_zone` (216).
    enum TimeInZone {
        static let referenceMessage: UInt8 = 0, referenceIndex: UInt8 = 1
        static let timeInHeartRateZone: UInt8 = 2, timeInPowerZone: UInt8 = 5
        static let heartRateZoneHighBoundary: UInt8 = 6, powerZoneHighBoundary: UInt8 = 9
        static let heartRateCalculationType: UInt8 = 10, maximumHeartRate: UInt8 = 11
        static let restingHeartRate: UInt8 = 12, thresholdHeartRate: UInt8 = 13
        static let powerCalculationType: UInt8 = 14, functionalThresholdPower: UInt8 = 15
    }

    /// `hrv` (78): field 0, `time`, uint16 array, s × 1000.
    enum HRV {
        static let time: UInt8 = 0
        /// RR intervals per message.
        static let intervalsPerMessage = 5
    }

    // Enumeration values.
    /// `file`: activity.
    static let fileActivity = 4
    /// `manufacturer`: development.
    static let manufacturerDevelopment = 255
    /// `event`.
    static let eventTimer = 0, eventSession = 8, eventLap = 9, eventActivity = 26
    /// `event_type`.
    static let eventTypeStart = 0, eventTypeStop = 1, eventTypeStopAll = 4
    /// `timer_trigger`, the `data` (3) of an `event` whose `event` is timer: the person, or the
    /// device's own rule (auto-pause).
    static let timerTriggerManual = 0, timerTriggerAuto = 1
    /// `lap_trigger`: the person's lap, an auto-lap by time, the last lap of a session.
    static let lapTriggerManual = 0, lapTriggerTime = 1, lapTriggerSessionEnd = 7
    /// `session_trigger`.
    static let sessionTriggerActivityEnd = 0, sessionTriggerManual = 1
    /// `activity`: manual.
    static let activityManual = 0
    /// `source_type`: bluetooth_low_energy; `source_type`: local (the recording device itself).
    static let sourceTypeBluetoothLowEnergy = 3, sourceTypeLocal = 5
    /// `ble_device_type`.
    static let bleHeartRate = 1, bleBikePower = 2, bleBikeSpeedCadence = 3
    /// `hr_zone_calc`.
    static let heartRateZoneCustom = 0, heartRateZonePercentMaximum = 1, heartRateZonePercentReserve = 2
    static let heartRateZonePercentLactateThreshold = 3
    /// `pwr_zone_calc`.
    static let powerZoneCustom = 0, powerZonePercentFTP = 1
    /// `left_right_balance`: bit 7 set when the value is the right pedal's share.
    static let leftRightBalanceRight = 0x80
}
