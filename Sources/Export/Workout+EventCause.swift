import Workouts

extension Workout {
    /// The cause of the first `kind` event (pause, resume or lap) at `time`: what ended a lap or
    /// stopped or started the timer there. `.manual` when there is none (a lap that ends where an
    /// activity does, a workout built without events).
    func cause(of kind: WorkoutEvent.Kind, at time: Duration) -> WorkoutEvent.Cause {
        events.first { $0.kind == kind && $0.time == time }?.cause ?? .manual
    }
}
