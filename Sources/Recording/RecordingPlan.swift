public import Workouts
public import WorkoutStore
public import Zones

/// What one recording is to be, typed: everything the command line's options (or serve's athlete,
/// or a program) said, resolved (the store opened, the athlete found, the profile's options applied)
/// and checked, with no argument parsing left in it. `Recording` carries it out.
public struct RecordingPlan {
    /// Auto-pause as asked: the rule's default for what records the workout, off, or after a given
    /// stillness.
    public enum AutoPause: Sendable, Equatable {
        /// On (3 s) for a cycling workout that a power meter, cadence or speed sensor records, else off.
        case byDefault
        case off
        case after(Duration)
    }

    /// Where and how the workout is stored.
    public struct Saving {
        /// The store the finished workout goes to.
        public var store: WorkoutStore
        /// Where it is journaled while it records: the store's own file, or for a shared store
        /// (PostgreSQL) this box's own, from which the finished workout is copied.
        public var journalPath: String
        /// A workout without a single value is stored too (else it is not, `Recording.Outcome.empty`).
        public var keepsEmpty: Bool

        public init(store: WorkoutStore, journalPath: String, keepsEmpty: Bool = false) {
            self.store = store
            self.journalPath = journalPath
            self.keepsEmpty = keepsEmpty
        }
    }

    /// The activities the workout goes through (`--activities`); one for a single-sport workout.
    public var activities: ActivityPlan
    /// The workout's first activity.
    public var activity: WorkoutActivityType { activities.activities[0] }
    /// The profile and zone preferences in effect (the athlete's or the box's, with any given changes).
    public var preferences: ZonePreferences
    /// Zones given for this workout alone, which take the place of the preferred ones.
    public var customZones: [WorkoutZoneConfiguration]
    public var targets: [WorkoutTarget]
    /// The structured workout ridden (`--plan`): each step a lap, its target coached; nil for none.
    public var workoutPlan: WorkoutPlan?
    /// How long the rider may be out of a target before the alert.
    public var targetDebounce: Duration
    public var autoLap: Duration?
    public var autoPause: AutoPause
    /// The bridge the stored workout carries.
    public var bridge: BridgeID
    /// The athlete recorded; nil for the box's own profile.
    public var athlete: AthleteRecord?
    /// Nil: the workout is not stored.
    public var saving: Saving?

    public init(
        activities: ActivityPlan = ActivityPlan([.cycling]), preferences: ZonePreferences = ZonePreferences(),
        customZones: [WorkoutZoneConfiguration] = [], targets: [WorkoutTarget] = [], workoutPlan: WorkoutPlan? = nil,
        targetDebounce: Duration = TargetZoneCoach.defaultDebounce, autoLap: Duration? = nil, autoPause: AutoPause = .byDefault,
        bridge: BridgeID = .hostDefault, athlete: AthleteRecord? = nil, saving: Saving? = nil
    ) {
        self.activities = activities
        self.preferences = preferences
        self.customZones = customZones
        self.targets = targets
        self.workoutPlan = workoutPlan
        self.targetDebounce = targetDebounce
        self.autoLap = autoLap
        self.autoPause = autoPause
        self.bridge = bridge
        self.athlete = athlete
        self.saving = saving
    }
}
