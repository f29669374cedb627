import Foundation
import Testing
import Zones

@testable import WorkoutStore

/// `sync`'s people: what each store takes from the other (the latest change wins, removals
/// included), and two stores taking it from each other end the same, a second sync doing nothing.
@Suite struct PeopleSyncTests {
    static func name(_ text: String) -> AthleteName { AthleteName(rawValue: text)! }

    static func athlete(_ text: String, ftp: Int, changed: Int64, sensors: [SensorRole: String] = [:]) -> StampedAthlete {
        StampedAthlete(
            record: AthleteRecord(
                name: name(text), preferences: ZonePreferences(profile: AthleteProfile(functionalThresholdPower: ftp)), sensors: sensors),
            changed: changed)
    }

    static func people(_ athletes: [StampedAthlete], removed: [RemovedAthlete] = [], ftp: Int? = nil, ownChanged: Int64 = 0) -> StorePeople {
        StorePeople(
            own: ZonePreferences(profile: AthleteProfile(functionalThresholdPower: ftp)), ownChanged: ownChanged, athletes: athletes,
            removed: removed)
    }

    @Test func theLatestChangeWinsEachWayAndNeverChangedIsNotSent() {
        let here = Self.people([Self.athlete("Anna", ftp: 250, changed: 10), Self.athlete("Ben", ftp: 200, changed: 30)], ftp: 280)
        let there = Self.people([Self.athlete("anna", ftp: 260, changed: 20), Self.athlete("Carl", ftp: 0, changed: 0)], ftp: 300, ownChanged: 5)
        let sent = PeopleChanges.taken(by: there, from: here)
        let taken = PeopleChanges.taken(by: here, from: there)
        // Ben is new there; Anna changed there later; the profile was never changed here.
        #expect(sent.athletes.map(\.record.name.rawValue) == ["Ben"] && sent.own == nil && sent.removed.isEmpty)
        // Anna (as "anna", the same athlete) and Carl, never changed but new here; the profile changed there.
        #expect(taken.athletes.map(\.record.name.rawValue) == ["anna", "Carl"])
        #expect(taken.own?.changed == 5 && taken.own?.preferences.profile.functionalThresholdPower == 300)
    }

    /// At the same millisecond the two records' text decides, the same way from either side.
    @Test func aTieOfStampsIsBrokenTheSameWayFromBothSides() {
        let here = Self.people([Self.athlete("Anna", ftp: 250, changed: 10)])
        let there = Self.people([Self.athlete("Anna", ftp: 260, changed: 10)])
        let sent = PeopleChanges.taken(by: there, from: here)
        let taken = PeopleChanges.taken(by: here, from: there)
        #expect(sent.athletes.count + taken.athletes.count == 1)
        #expect(PeopleChanges.taken(by: here, from: here).isEmpty)
    }

    /// A removal wins over changes made before it and loses to one made after it; a store that
    /// never had the athlete keeps the removal to pass on.
    @Test func removalsWinOverEarlierChangesAndAreKeptToPassOn() {
        let removed = Self.people([], removed: [RemovedAthlete(name: Self.name("Ben"), removed: 40)])
        #expect(PeopleChanges.taken(by: Self.people([Self.athlete("Ben", ftp: 200, changed: 30)]), from: removed).removed.count == 1)
        let changedLater = Self.people([Self.athlete("Ben", ftp: 210, changed: 50)])
        #expect(PeopleChanges.taken(by: changedLater, from: removed).isEmpty)
        // The later change brings Ben back where he was removed.
        #expect(PeopleChanges.taken(by: removed, from: changedLater).athletes.map(\.changed) == [50])
        #expect(PeopleChanges.taken(by: removed, from: Self.people([Self.athlete("Ben", ftp: 200, changed: 30)])).isEmpty)
        #expect(PeopleChanges.taken(by: Self.people([]), from: removed).removed.map(\.removed) == [40])
        #expect(PeopleChanges.taken(by: removed, from: removed).isEmpty)
    }

    /// Two SQLite stores taking from each other: profile, athletes with zones and sensors, a
    /// sensor moved from one athlete to another and a removal all end the same in both, and a
    /// second sync finds nothing.
    @Test func twoStoresEndTheSameAndASecondSyncDoesNothing() throws {
        let folder = try TemporaryFolder()
        let a = try WorkoutStore(path: folder.file("a.sqlite"))
        let b = try WorkoutStore(path: folder.file("b.sqlite"))
        var zoned = ZonePreferences(profile: AthleteProfile(functionalThresholdPower: 250))
        zoned.setPreferredConfiguration(try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: [120, 140, 160, 175]))
        try a.addAthlete(Self.name("Anna"), preferences: zoned)
        try a.assignSensor("C4:7E:11:22:33:44", role: .heartRate, to: Self.name("Anna"))
        try b.addAthlete(Self.name("Ben"), preferences: ZonePreferences())
        try b.addAthlete(Self.name("Carl"), preferences: ZonePreferences())
        Thread.sleep(forTimeInterval: 0.01)
        try b.savePreferences(ZonePreferences(profile: AthleteProfile(functionalThresholdPower: 280)))
        func sync() throws -> (PeopleChanges, PeopleChanges) {
            let (here, there) = (try a.people(), try b.people())
            let (sent, taken) = (PeopleChanges.taken(by: there, from: here), PeopleChanges.taken(by: here, from: there))
            try b.take(sent)
            try a.take(taken)
            return (sent, taken)
        }
        _ = try sync()
        #expect(try a.people() == b.people())
        #expect(try b.athlete(named: Self.name("anna"))?.preferences == zoned)
        #expect(try a.preferences().profile.functionalThresholdPower == 280)

        // Later: Ben takes Anna's strap on b, Carl is removed on a.
        Thread.sleep(forTimeInterval: 0.01)
        try b.assignSensor("C4:7E:11:22:33:44", role: .heartRate, to: Self.name("Ben"))
        try a.removeAthlete(Self.name("Carl"))
        let (sent, taken) = try sync()
        #expect(sent.removed.map(\.name.rawValue) == ["Carl"] && taken.athletes.map(\.record.name.rawValue) == ["Anna", "Ben"])
        #expect(try a.people() == b.people())
        #expect(try a.athlete(named: Self.name("Ben"))?.sensors == [.heartRate: "C4:7E:11:22:33:44"])
        #expect(try a.athlete(named: Self.name("Anna"))?.sensors == [:] && a.athlete(named: Self.name("Carl")) == nil)
        let (again, back) = try sync()
        #expect(again.isEmpty && back.isEmpty)
    }
}
