import SampleRing
import Synchronization
public import Workouts

/// Control of a running session from any thread: the dashboard's keys, signals, and later the web
/// page and MQTT. Pause, resume, lap and a new activity travel to the consumer as control items,
/// stamped with the session's clock, through a ring of their own (one pusher at a time, under a
/// lock); `end` asks the session's sources to finish, so that the end comes after everything they
/// received.
public final class SessionControls: Sendable {
    private struct State {
        let ring: SampleRing<SessionItem>
        /// Where the workout is in its activities (`nextActivity`).
        var activities: ActivityPlan
    }

    private let state: Mutex<State>
    private let builder: LiveWorkoutBuilder
    private let clock: @Sendable () -> Duration
    private let endSession: @Sendable () -> Void
    private let onControl: @Sendable (SessionControl) -> Void

    init(
        ring: SampleRing<SessionItem>, builder: LiveWorkoutBuilder, activities: ActivityPlan, clock: @escaping @Sendable () -> Duration,
        end: @escaping @Sendable () -> Void, onControl: @escaping @Sendable (SessionControl) -> Void
    ) {
        state = Mutex(State(ring: ring, activities: activities))
        self.builder = builder
        self.clock = clock
        self.endSession = end
        self.onControl = onControl
    }

    public func pause() { push(.pause) }
    public func resume() { push(.resume) }
    public func lap() { push(.lap) }
    /// Resumes a paused workout (paused by the person or by auto-pause), pauses a running one.
    public func togglePause() { push(builder.state == .paused ? .resume : .pause) }
    /// Ends the session: its sources stop and the workout is finished and saved.
    public func end() { endSession() }

    /// Begins the next activity of the plan (`ActivityPlan.advance`), or one of `type`: the
    /// type begun; nil when none is next (a single activity, or the last under way) or the workout
    /// is not under way.
    @discardableResult
    public func nextActivity(_ type: WorkoutActivityType? = nil) -> WorkoutActivityType? {
        guard builder.state == .collecting || builder.state == .paused else { return nil }
        return state.withLock { state in
            var activities = state.activities
            guard let begun = activities.advance(to: type) else { return nil }
            let control = SessionControl(.activity, at: clock(), activityType: begun)
            guard state.ring.push(.control(control)) else { return nil }
            state.activities = activities
            onControl(control)
            return begun
        }
    }

    /// The activity the plan says comes next; nil after the last.
    public var upcomingActivity: WorkoutActivityType? { state.withLock { $0.activities.next } }

    private func push(_ kind: SessionControl.Kind) {
        state.withLock { state in
            let control = SessionControl(kind, at: clock())
            if state.ring.push(.control(control)) { onControl(control) }
        }
    }
}
