import Foundation
public import Zones

/// An athlete removed from a store, and when (milliseconds since 1970): kept so that `sync` removes
/// them from the other store too, unless they changed there later.
public struct RemovedAthlete: Sendable, Hashable {
    public var name: AthleteName
    public var removed: Int64
}

/// An athlete as stored, with when their profile, zones or sensors last changed (ms since 1970;
/// 0: not since the store kept it, migration 15).
public struct StampedAthlete: Sendable, Hashable {
    public var record: AthleteRecord
    public var changed: Int64
}

/// The people of a store as `sync` compares them: its own profile and preferred zones, its
/// athletes and the athletes it removed, each with when it last changed.
public struct StorePeople: Sendable, Equatable {
    public var own: ZonePreferences
    /// When `own` last changed; 0 when it never was (a store's default profile).
    public var ownChanged: Int64
    public var athletes: [StampedAthlete]
    public var removed: [RemovedAthlete]

    func athlete(_ name: AthleteName) -> StampedAthlete? { athletes.first { $0.record.name == name } }
    func removal(_ name: AthleteName) -> RemovedAthlete? { removed.first { $0.name == name } }
}

/// What a store takes from the other in a sync: each thing whose latest change was made there.
public struct PeopleChanges: Sendable, Equatable {
    /// The other store's own profile and zones, and when they changed.
    public var own: (preferences: ZonePreferences, changed: Int64)?
    /// Athletes added or changed there later than here, with their stamps.
    public var athletes: [StampedAthlete] = []
    /// Athletes removed there after their last change here (or removals to keep and pass on).
    public var removed: [RemovedAthlete] = []

    public var isEmpty: Bool { own == nil && athletes.isEmpty && removed.isEmpty }

    public static func == (a: PeopleChanges, b: PeopleChanges) -> Bool {
        a.own?.preferences == b.own?.preferences && a.own?.changed == b.own?.changed && a.athletes == b.athletes
            && a.removed == b.removed
    }

    /// What `target` takes from `source`: for each person the latest change wins (a later stamp;
    /// at the same millisecond, the record that sorts after the other in `canonical` order, so both
    /// directions agree), a removal wins over changes made before it, and a change made after a
    /// removal brings the athlete back. Pure; nothing that was never changed (stamp 0) is sent.
    public static func taken(by target: StorePeople, from source: StorePeople) -> PeopleChanges {
        var changes = PeopleChanges()
        if source.ownChanged > 0,
            wins(source.ownChanged, canonical(source.own), over: target.ownChanged, canonical(target.own))
        {
            changes.own = (source.own, source.ownChanged)
        }
        for athlete in source.athletes where athlete.changed > 0 || target.athlete(athlete.record.name) == nil {
            if let here = target.athlete(athlete.record.name) {
                if wins(athlete.changed, canonical(athlete.record), over: here.changed, canonical(here.record)) {
                    changes.athletes.append(athlete)
                }
            } else if target.removal(athlete.record.name).map({ $0.removed < athlete.changed }) ?? true {
                changes.athletes.append(athlete)
            }
        }
        for removal in source.removed {
            if let here = target.athlete(removal.name) {
                if removal.removed > here.changed { changes.removed.append(removal) }
            } else if target.removal(removal.name).map({ $0.removed < removal.removed }) ?? true {
                // Kept there too, so that a third store syncing with it hears of it.
                changes.removed.append(removal)
            }
        }
        return changes
    }

    private static func wins(_ stamp: Int64, _ text: String, over otherStamp: Int64, _ otherText: String) -> Bool {
        stamp > otherStamp || (stamp == otherStamp && text > otherText)
    }

    /// A record as text in a fixed order (no dictionary's order): what breaks a tie of stamps.
    static func canonical(_ preferences: ZonePreferences) -> String {
        let p = preferences.profile
        let zones = preferences.preferredConfigurations.values.sorted { $0.quantityType.rawValue < $1.quantityType.rawValue }
            .map { "\($0.quantityType.rawValue):\($0.boundaryValues)" }
        return "\(p.birthDate?.description ?? "-") \(p.age ?? -1) \(p.restingHeartRate ?? -1) \(p.maximumHeartRate ?? -1) "
            + "\(p.functionalThresholdPower ?? -1) \(p.lactateThresholdHeartRate ?? -1) \(preferences.powerZoneModel.rawValue) "
            + "\(preferences.heartRateZoneModel.rawValue) \(zones) \(p.sex?.rawValue ?? "-") \(p.weight ?? -1)"
    }

    static func canonical(_ record: AthleteRecord) -> String {
        canonical(record.preferences) + " " + record.sensors.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
            .joined(separator: ",")
    }
}

extension WorkoutStore {
    /// This store's people with their stamps, for `PeopleChanges.taken`.
    public func people() throws(WorkoutStoreError) -> StorePeople {
        let own = try preferences()
        return try perform {
            let ownChanged = try connection.statement("SELECT changed_ms FROM profile WHERE id = 1").firstRow { $0.int64(0) } ?? 0
            var changed: [Int64: Int64] = [:]
            try connection.statement("SELECT id, changed_ms FROM athletes").forEachRow { changed[$0.int64(0)] = $0.int64(1) }
            let athletes = try storedAthletes().sorted { $0.name < $1.name }.map { stored in
                StampedAthlete(record: try record(id: stored.id, name: stored.name), changed: changed[stored.id] ?? 0)
            }
            return StorePeople(own: own, ownChanged: ownChanged, athletes: athletes, removed: try removedAthletes())
        }
    }

    /// Takes `changes` (from another store) in one transaction, each with the stamp it had there,
    /// so that a sync run again finds nothing to do.
    public func take(_ changes: PeopleChanges) throws(WorkoutStoreError) {
        guard !changes.isEmpty else { return }
        try performTransaction {
            if let own = changes.own { try writePreferences(own.preferences, changed: own.changed) }
            for removal in changes.removed {
                if let stored = try storedAthlete(removal.name) {
                    try deleteAthlete(stored, removed: removal.removed)
                } else {
                    try keepRemoval(of: removal.name, at: removal.removed)
                }
            }
            for athlete in changes.athletes {
                let record = athlete.record
                let id: Int64
                if let stored = try storedAthlete(record.name) {
                    id = stored.id
                    try writeAthletePreferences(record.preferences, id: id)
                    try connection.statement("DELETE FROM athlete_sensors WHERE athlete_id = ?").run(id)
                } else {
                    id = try insertAthlete(record.name, preferences: record.preferences, changed: athlete.changed)
                }
                for (role, address) in record.sensors.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    try assign(address, role: role, to: id, changed: athlete.changed)
                }
                try stamp(id, athlete.changed)
            }
        }
    }
}
