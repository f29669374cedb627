// `sensorbridge-bench store`: the SQLite workout store against the obvious alternatives, in one run.
import Foundation
import SensorBridge
import SensorCore
import SensorTestSupport
import Workouts
@_spi(Benchmarks) import WorkoutStore
import Zones

/// Three figures, each beside the obvious alternative, median of three rounds, on a store in a
/// temporary folder (WAL, `synchronous = FULL`, as the store runs):
///
/// - samples inserted per second in batches: the store's chunked columns (through the journal of a
///   `WorkoutRecorder`, one transaction) against one row per sample in one transaction with a
///   reused prepared statement, and one autocommitted row per sample;
/// - saving a three-hour ride (about 108,000 samples, zone groups, updates, statistics) against
///   inserting only its samples as one row each;
/// - `workouts zones --quantity heart-rate --by week --normalize 7` over 1,000 stored one-hour rides
///   (the command, in-process), against re-bucketing every workout's raw samples; both must give
///   the same durations.
enum StoreBenchmark {
    static let rounds = 3
    static let insertedSamples = 1_000_000
    static let autocommittedSamples = 300
    static let storedWorkouts = 1000

    static func run(_ json: Bool) {
        do {
            try measure(json)
        } catch {
            FileHandle.standardError.write(Data("sensorbridge-bench store: \(error)\n".utf8))
            exit(1)
        }
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).seconds
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    static func measure(_ json: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sensorbridge-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let day = 86_400.0
        let firstDay = Date(timeIntervalSince1970: 1_767_618_000)  // Monday 2026-01-05 13:00 UTC

        // Inserts.
        let ride = try SyntheticRide.workout(seconds: 3 * 3600, seed: 1, startDate: firstDay)
        var samples: [Sample] = []
        while samples.count < insertedSamples {
            let shift = Duration.seconds(3 * 3600 * (samples.count / ride.samples.count))
            samples += ride.samples.prefix(insertedSamples - samples.count).map {
                Sample(sensor: $0.sensor, type: $0.type, value: $0.value, time: $0.time + shift)
            }
        }
        let baselines = try StoreBaselines(path: path("rows.sqlite"))
        var chunked: [Double] = [], rows: [Double] = [], autocommitted: [Double] = []
        for round in 0..<rounds {
            let recorder = try WorkoutRecorder(
                path: path("chunks.sqlite"),
                start: RecordingStart(startDate: firstDay, start: .zero, activityType: .cycling, zoneConfigurations: [:]),
                flushInterval: .seconds(3600))
            chunked.append(
                Double(insertedSamples)
                    / (try seconds {
                        recorder.record(samples: samples, events: [])
                        try recorder.flush()
                    }))
            try recorder.discard()
            rows.append(
                Double(insertedSamples)
                    / (try seconds { try baselines.insertRows(samples, workout: Int64(2 * round), oneTransaction: true) }))
            autocommitted.append(
                Double(autocommittedSamples)
                    / (try seconds {
                        try baselines.insertRows(
                            Array(samples.prefix(autocommittedSamples)), workout: Int64(2 * round + 1), oneTransaction: false)
                    }))
        }

        // Saving a three-hour ride.
        let store = try WorkoutStore(path: path("workouts.sqlite"))
        var saves: [Double] = [], rowSaves: [Double] = []
        for round in 0..<rounds {
            var copy = ride
            copy.startDate = firstDay.addingTimeInterval(Double(round) * day)
            saves.append(try seconds { try store.save(copy) })
            rowSaves.append(try seconds { try baselines.insertRows(ride.samples, workout: Int64(100 + round), oneTransaction: true) })
        }
        for id in try store.workouts().map(\.id) { try store.deleteWorkout(id) }

        // Weekly zones over 1,000 one-hour rides, one a day.
        let setup = ContinuousClock.now
        var variants: [Workout] = []
        for seed in 0..<7 {
            let shift = Double(2 * seed - 6)
            variants.append(try SyntheticRide.workout(seconds: 3600, seed: UInt64(10 + seed), startDate: firstDay, heartRateShift: shift))
        }
        for index in 0..<storedWorkouts {
            var workout = variants[index % variants.count]
            workout.startDate = firstDay.addingTimeInterval(Double(index) * day)
            try store.save(workout)
        }
        try store.savePreferences(ZonePreferences(profile: AthleteProfile(age: 40, restingHeartRate: 50, functionalThresholdPower: 250)))
        let setupSeconds = (ContinuousClock.now - setup).seconds
        let storeBytes = (try? FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int) ?? 0

        let arguments: [String] = [
            "workouts", "zones", "--quantity", "heart-rate", "--by", "week", "--normalize", "7", "--json", "--store", store.path,
        ]
        var report = JSONValue.null
        var commandRuns: [Double] = [], rebucketingRuns: [Double] = []
        var rebucketed: [[Duration]] = []
        for _ in 0..<rounds {
            commandRuns.append(
                seconds {
                    let context = CommandContext(
                        input: LineReader(text: ""), output: TextOutput(), errors: TextOutput(), environment: ["TZ": "UTC"])
                    guard SensorBridgeCLI.run(arguments, context: context) == .success else { return }
                    report = (try? JSONValue(parsing: context.output.text)) ?? .null
                })
            let bounds = report["configuration"]?["zones"]?.arrayValue?.compactMap { $0["maximum"]?.doubleValue } ?? []
            let configuration = try WorkoutZoneConfiguration(quantityType: .heartRate, boundaryValues: bounds)
            rebucketingRuns.append(try seconds { rebucketed = try rebucketWeekly(store, into: configuration) })
        }
        let reported = report["periods"]?.arrayValue?.map { period in
            period["zoneDurations"]?.arrayValue?.compactMap { $0["duration"]?.doubleValue } ?? []
        }
        guard let reported, reported == rebucketed.map({ $0.map(\.seconds) }), reported.count > 100 else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the command and re-bucketing disagree"])
        }

        let results = (
            insert: median(chunked), rows: median(rows), autocommitted: median(autocommitted), save: median(saves),
            rowSave: median(rowSaves), zones: median(commandRuns), rebucketing: median(rebucketingRuns)
        )
        if json {
            var object = JSONObject()
            object.append("insertSamplesPerSecond", .number(results.insert.rounded()))
            object.append("save3HourRideSeconds", .number((results.save * 1e6).rounded() / 1e6))
            object.append("weeklyZones1000Seconds", .number((results.zones * 1e6).rounded() / 1e6))
            Bench.printJSON(object)
            return
        }
        func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
        func ratio(_ value: Double) -> String { String(format: "%.1fx", value) }
        print("store: SQLite workout store, WAL, synchronous=FULL; median of \(rounds) rounds")
        print(
            "insert samples           chunked columns \(Bench.humanRate(results.insert))   one row each, one transaction "
                + "\(Bench.humanRate(results.rows)) (\(ratio(results.insert / results.rows)))   one row each, autocommit "
                + "\(Bench.humanRate(results.autocommitted)) (\(ratio(results.insert / results.autocommitted)))")
        print(
            "save a 3-hour ride       \(ride.samples.count) samples, everything: \(ms(results.save))   its samples alone "
                + "as rows: \(ms(results.rowSave)) (\(ratio(results.rowSave / results.save)))")
        print(
            "weekly zones, normalize 7, \(storedWorkouts) one-hour rides: \(ms(results.zones))   re-bucketing raw samples: "
                + "\(ms(results.rebucketing)) (\(ratio(results.rebucketing / results.zones))); \(reported.count) weeks agree")
        print(String(format: "setup: %d rides saved in %.1f s, store %.0f MB", storedWorkouts, setupSeconds, Double(storeBytes) / 1e6))
    }

    /// The alternative to the stored time at each value: every workout's raw heart-rate samples
    /// re-bucketed into `configuration`, summed by ISO week (UTC).
    static func rebucketWeekly(_ store: WorkoutStore, into configuration: WorkoutZoneConfiguration) throws -> [[Duration]] {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var weeks: [(start: Date, durations: [Duration])] = []
        for listing in try store.workouts() where listing.isFinished {
            let group = WorkoutZoneGroup(
                rebucketing: try store.samples(of: listing.id), into: configuration, timeline: try store.timeline(of: listing.id))
            guard group.totalDuration > .zero else { continue }
            let week = calendar.dateInterval(of: .weekOfYear, for: listing.startDate)!.start
            if weeks.last?.start != week { weeks.append((week, Array(repeating: .zero, count: configuration.zones.count))) }
            weeks[weeks.count - 1].durations = zip(weeks[weeks.count - 1].durations, group.durations).map(+)
        }
        return weeks.map(\.durations)
    }
}
