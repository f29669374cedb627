/// The activities a multisport workout is meant to go through, in order (`record --activities
/// cycling,running`), and which of them is under way: what "next activity" (the dashboard's key,
/// the page's button, `serve`'s signal) begins. Between two activities that are not transitions a
/// `transition` is put unless asked not to, so that the time between them (changing shoes) is kept
/// as its own activity, as HealthKit's and FIT's multisport workouts keep it. Pure.
public struct ActivityPlan: Sendable, Equatable {
    /// The activities in order, transitions included; never empty.
    public let activities: [WorkoutActivityType]
    /// The index in `activities` of the one under way.
    public private(set) var position = 0

    /// A plan of `activities` (the first is the workout's first), with a transition between two
    /// neighbours that are not transitions when `transitions`. An empty list is one `.cycling`.
    public init(_ activities: [WorkoutActivityType], transitions: Bool = true) {
        var planned: [WorkoutActivityType] = []
        for type in activities {
            if transitions, let last = planned.last, last != .transition, type != .transition { planned.append(.transition) }
            planned.append(type)
        }
        self.activities = planned.isEmpty ? [.cycling] : planned
    }

    /// The activity under way.
    public var current: WorkoutActivityType { activities[position] }
    /// The activity "next" begins; nil after the last.
    public var next: WorkoutActivityType? { position + 1 < activities.count ? activities[position + 1] : nil }
    /// Whether more than one activity is planned.
    public var isMultisport: Bool { activities.count > 1 }

    /// Begins the next activity, or one of `type`: the plan moves on to the first activity after the
    /// current one of that type (skipping what lies between), and stays where it is for a type it
    /// does not hold. The type begun; nil when no type is given and none is next.
    public mutating func advance(to type: WorkoutActivityType? = nil) -> WorkoutActivityType? {
        guard let type = type ?? next else { return nil }
        if let index = activities[(position + 1)...].firstIndex(of: type) { position = index }
        return type
    }
}
