// PLACEHOLDER: replaced by the fit branch at merge.
public import Workouts
public import Zones

/// The FIT activity encoder; this placeholder keeps the branch building until the fit branch's file replaces it.
public struct FITActivityEncoder: Sendable {
    public init(profile: AthleteProfile? = nil) {}
    public func encode(_ workout: Workout) -> [UInt8] { [] }
}
