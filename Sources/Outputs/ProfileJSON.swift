public import SensorCore
import Workouts
public import Zones

/// The rider's profile and zones as `profile show --json`, `zones show --json`, a workout's JSON
/// and the API give them.
public enum ProfileJSON {
    public static func profile(_ preferences: ZonePreferences) -> JSONValue {
        let p = preferences.profile
        func number(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        var object = JSONObject()
        object.append("birthDate", p.birthDate.map { .string($0.description) } ?? .null)
        object.append("age", number(p.age))
        object.append("restingHeartRate", number(p.restingHeartRate))
        object.append("maximumHeartRate", number(p.maximumHeartRate))
        object.append("functionalThresholdPower", number(p.functionalThresholdPower))
        object.append("powerZoneModel", .string(preferences.powerZoneModel.rawValue))
        object.append("lactateThresholdHeartRate", number(p.lactateThresholdHeartRate))
        object.append("sex", p.sex.map { .string($0.rawValue) } ?? .null)
        object.append("weight", number(p.weight))
        object.append("heartRateZoneModel", .string(preferences.heartRateZoneModel.rawValue))
        return .object(object)
    }

    /// The zones in effect on `day`, by quantity: `{"heartRate": {...}, "cyclingPower": null}`.
    public static func zones(_ preferences: ZonePreferences, on day: CalendarDate?) -> JSONValue {
        var object = JSONObject()
        for type in WorkoutStateMachine.zonedTypes {
            object.append(type.identifier, preferences.zoneConfiguration(for: type, on: day)?.jsonValue ?? .null)
        }
        return .object(object)
    }
}
