import SampleRing
import Synchronization
import Workouts

/// Control of a running session from any thread: the dashboard's keys, signals, and later the web
/// page and MQTT. Pause, resume and lap travel to the consumer as control items, stamped with the
/// session's clock, through a ring of their own (one pusher at a time, under a lock); `end` asks
/// the session's sources to finish, so that the end comes after everything they received.
public final class SessionControls: Sendable {
    private let ring: Mutex<SampleRing<SessionItem>>
    private let builder: LiveWorkoutBuilder
    private let clock: @Sendable () -> Duration
    private let endSession: @Sendable () -> Void
    private let onControl: @Sendable (SessionControl) -> Void

    init(
        ring: SampleRing<SessionItem>, builder: LiveWorkoutBuilder, clock: @escaping @Sendable () -> Duration,
        end: @escaping @Sendable () -> Void, onControl: @escaping @Sendable (SessionControl) -> Void
    ) {
        self.ring = Mutex(ring)
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

    private func push(_ kind: SessionControl.Kind) {
        ring.withLock { ring in
            let control = SessionControl(kind, at: clock())
            if ring.push(.control(control)) { onControl(control) }
        }
    }
}
