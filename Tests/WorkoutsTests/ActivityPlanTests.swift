import Testing
import Workouts

/// The activities of a multisport workout begun live, in the order planned.
@Suite struct ActivityPlanTests {
    @Test func aTransitionComesBetweenTwoActivitiesUnlessAskedNot() {
        #expect(ActivityPlan([.swimming, .cycling, .running]).activities == [.swimming, .transition, .cycling, .transition, .running])
        #expect(ActivityPlan([.cycling, .running], transitions: false).activities == [.cycling, .running])
        // Transitions named in the list are not doubled.
        #expect(ActivityPlan([.cycling, .transition, .running]).activities == [.cycling, .transition, .running])
        #expect(ActivityPlan([.running]).activities == [.running] && !ActivityPlan([.running]).isMultisport)
        #expect(ActivityPlan([]).activities == [.cycling])
    }

    @Test func nextStepsThroughThePlanAndStopsAfterTheLast() {
        var plan = ActivityPlan([.cycling, .running])
        #expect(plan.current == .cycling && plan.next == .transition)
        #expect(plan.advance() == .transition && plan.current == .transition && plan.next == .running)
        #expect(plan.advance() == .running && plan.next == nil)
        #expect(plan.advance() == nil && plan.current == .running)
    }

    /// A type given at the switch begins that type: the plan skips to it when it holds it later,
    /// and stays where it is when it does not.
    @Test func aTypeGivenAtTheSwitchSkipsToItOrLeavesThePlanWhereItIs() {
        var plan = ActivityPlan([.swimming, .cycling, .running])
        #expect(plan.advance(to: .cycling) == .cycling && plan.current == .cycling && plan.next == .transition)
        #expect(plan.advance(to: .walking) == .walking && plan.current == .cycling)
        // A type behind the current one is not gone back to.
        #expect(plan.advance(to: .swimming) == .swimming && plan.current == .cycling)
        var single = ActivityPlan([.cycling])
        #expect(single.advance() == nil && single.advance(to: .running) == .running)
    }
}
