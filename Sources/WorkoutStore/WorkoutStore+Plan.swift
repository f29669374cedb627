import SensorCore
import Workouts

extension WorkoutStore {
    /// Stores the plan `workout` is ridden to (`workout_plans`, migration 16) in its JSON form;
    /// the caller holds a transaction.
    func insertPlan(_ plan: WorkoutPlan?, workout: Int64) throws {
        guard let plan else { return }
        try connection.statement("INSERT INTO workout_plans (workout_id, plan) VALUES (?, ?)").run(workout, plan.jsonForm.serialized)
    }

    /// The plan `workout` was ridden to, nil for none.
    func plan(of workout: Int64) throws -> WorkoutPlan? {
        let text = try connection.statement("SELECT plan FROM workout_plans WHERE workout_id = ?").firstRow(workout) { $0.text(0) }
        guard let text else { return nil }
        do {
            return try WorkoutPlan(jsonForm: JSONValue(parsing: text))
        } catch {
            throw WorkoutStoreError.invalidData(path: path, reason: "the plan of workout \(workout) does not read: \(error)")
        }
    }

    /// Stores the steps of `workout` as ridden (`workout_steps`), after its plan.
    func insertSteps(_ steps: [WorkoutStepResult], workout: Int64) throws {
        guard !steps.isEmpty else { return }
        let statement = try connection.statement("INSERT INTO workout_steps (workout_id, lap, step, in_target_ns) VALUES (?, ?, ?, ?)")
        for step in steps {
            try statement.run(workout, Int64(step.lap), Int64(step.step), step.timeInTarget?.nanoseconds)
        }
    }

    /// The steps of `workout` as ridden, by lap.
    func steps(of workout: Int64) throws -> [WorkoutStepResult] {
        var steps: [WorkoutStepResult] = []
        try connection.statement("SELECT lap, step, in_target_ns FROM workout_steps WHERE workout_id = ? ORDER BY lap")
            .forEachRow(workout) { row in
                steps.append(
                    WorkoutStepResult(lap: Int(row.int64(0)), step: Int(row.int64(1)), timeInTarget: row.optionalInt64(2).map { .nanoseconds($0) }))
            }
        return steps
    }
}
