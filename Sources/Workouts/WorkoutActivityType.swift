/// What kind of exercise an activity is. The raw value is the name on the command line, in JSON
/// traces (`"activityType":"running"`) and in storage.
public enum WorkoutActivityType: String, Sendable, Hashable, CaseIterable, BitwiseCopyable {
    case cycling, running, walking, hiking, rowing, swimming, other
    /// The time between two activities of a multisport workout (changing shoes, T1 and T2), as
    /// HealthKit's `transition` and FIT's sport 3.
    case transition
    /// A workout of several activities (bike then run); only ever a workout's type, never an activity's.
    case multisport

    /// The types a person can choose for an activity.
    public static let selectable: [WorkoutActivityType] = allCases.filter { $0 != .multisport }

    /// Parses a name (`cycling`, `Running`, `ride`, `bike`, `run`).
    public init?(name: String) {
        switch name.lowercased() {
        case "bike", "ride", "biking", "cycle": self = .cycling
        case "run": self = .running
        case "walk": self = .walking
        case "hike": self = .hiking
        case "row": self = .rowing
        case "swim": self = .swimming
        case let other:
            guard let type = WorkoutActivityType(rawValue: other), type != .multisport else { return nil }
            self = type
        }
    }
}
