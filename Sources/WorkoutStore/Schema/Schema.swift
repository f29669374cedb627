import Workouts

/// The store's schema: its migrations, in order (DESIGN.md §3 "Storage").
///
/// Conventions: times are whole nanoseconds (`_ns`) from the workout's start, except
/// `workouts.anchor_offset_ns`, the start's own offset from the session anchor (the monotonic clock
/// the samples were stamped with). Quantity types are `QuantityType.rawValue` (1 heart rate in
/// count/min, 2 cycling power in W, ...). Tables are STRICT, so a value of the wrong type is refused.
enum Schema {
    static let migrations: [Migration] = [
        Migration(1, "workouts, samples, zone groups and preferences", sql: version1),
        Migration(2, "time at each heart-rate and power value, for zone totals over many workouts") { connection in
            try connection.execute(version2)
            try ValueDurations.backfill(connection)
        },
        Migration(3, "the application id that marks the file as a SensorBridge store", sql: "PRAGMA application_id = \(applicationID)"),
        Migration(4, "what caused pauses, resumes and laps; sensor states and the time in each", sql: version4),
        Migration(5, "the profile and power-zone model each workout was recorded with", sql: version5),
        Migration(6, "the lactate-threshold heart rate and the heart-rate zone model", sql: version6),
        Migration(7, "the target zones a workout was coached to", sql: version7),
        Migration(workoutIDHighWaterVersion, "workout ids are never used again after a delete", sql: workoutIDHighWater),
        Migration(identityVersion, "each workout's UUID and the bridge that recorded it") { connection in
            try connection.execute(version9)
            try backfillIdentities(connection, bridge: .hostDefault)
        },
        Migration(athletesVersion, "athletes with their own profile, preferred zones and sensors; the athlete of a workout", sql: version10),
        Migration(11, "athletes' names up to 1024 code points, so that no name of 64 characters is refused", apply: version11),
        Migration(rrArtefactsVersion, "the RR intervals judged by the artefact filter and the artefacts it removed", sql: version12),
        Migration(bestEffortsVersion, "each workout's best efforts: mean-maximal power and the highest and lowest mean heart rate", sql: version13),
        Migration(14, "the transition between two activities of a multisport workout, an activity type", sql: version14),
        Migration(15, "when each athlete and the profile last changed, and the athletes removed, for sync", sql: version15),
        Migration(16, "the plan a workout was ridden to, the time each step met its target, laps a plan's step ended", sql: version16),
        Migration(sexAndWeightVersion, "the profile's sex and weight, and the time heart rate held, for calories from heart rate", sql: version17),
    ]

    /// The migration that adds `workout_id_high_water`; from it on, new workouts take their id
    /// from there (`WorkoutStore.newWorkoutID()`).
    static let workoutIDHighWaterVersion: Int64 = 8

    /// The migration that adds each workout's UUID and bridge (`WorkoutIdentity`).
    static let identityVersion: Int64 = 9

    /// The migration that adds athletes and the athlete of a workout.
    static let athletesVersion: Int64 = 10

    /// The migration that adds the RR artefact filter's counts to the statistics.
    static let rrArtefactsVersion: Int64 = 12

    /// The migration that adds the profile's sex and weight and the heart rate's held time.
    static let sexAndWeightVersion: Int64 = 17

    /// The migration that adds each workout's best efforts.
    static let bestEffortsVersion: Int64 = 13

    /// The newest schema version this build knows.
    static var version: Int64 { migrations.last!.version }

    /// `PRAGMA application_id` of a store ("SnBr"), set by migration 3: how a file is known to be a
    /// SensorBridge store and not another program's database (`StoreIdentity`).
    static let applicationID: Int32 = 0x536E_4272

    /// Tables every schema version has: how a store from before migration 3 is known.
    static let tablesOfEveryVersion: Set<String> = ["workouts", "recordings", "zone_configurations", "sample_chunks"]

    static let version1 = """
        CREATE TABLE activity_types (
            name TEXT PRIMARY KEY
        ) STRICT, WITHOUT ROWID;
        INSERT INTO activity_types (name) VALUES
            ('cycling'), ('running'), ('walking'), ('hiking'), ('rowing'), ('swimming'), ('other'), ('multisport');

        -- One row per workout, finished or still recording (then `duration_ns` is NULL and it has a
        -- row in `recordings`).
        CREATE TABLE workouts (
            id INTEGER PRIMARY KEY,
            -- The wall-clock start in seconds since 2001-01-01T00:00:00Z (Foundation's reference
            -- date, so that a Date comes back exactly); add 978307200 for Unix time.
            start_date REAL NOT NULL,
            anchor_offset_ns INTEGER NOT NULL,
            duration_ns INTEGER CHECK (duration_ns >= 0),
            active_duration_ns INTEGER CHECK (active_duration_ns >= 0 AND active_duration_ns <= duration_ns),
            activity_type TEXT NOT NULL REFERENCES activity_types (name),
            -- How long a sample stands for its zone when no newer one comes (the zone rule's hold).
            heart_rate_hold_ns INTEGER NOT NULL CHECK (heart_rate_hold_ns > 0),
            power_hold_ns INTEGER NOT NULL CHECK (power_hold_ns > 0),
            CHECK ((duration_ns IS NULL) = (active_duration_ns IS NULL))
        ) STRICT;
        CREATE INDEX workouts_by_start_date ON workouts (start_date);

        -- The journal state of a workout being recorded; deleted when it is finished or discarded.
        CREATE TABLE recordings (
            workout_id INTEGER PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            -- The latest sample or event journaled.
            recorded_until_ns INTEGER NOT NULL CHECK (recorded_until_ns >= 0),
            malformed_notifications INTEGER NOT NULL CHECK (malformed_notifications >= 0),
            dropped_samples INTEGER NOT NULL CHECK (dropped_samples >= 0)
        ) STRICT;

        -- Zone boundaries in the quantity type's canonical unit, as a JSON array of 2 to 8 numbers.
        CREATE TABLE zone_configurations (
            id INTEGER PRIMARY KEY,
            quantity_type INTEGER NOT NULL CHECK (quantity_type IN (1, 2)),
            source TEXT NOT NULL CHECK (source IN ('system', 'user', 'custom')),
            unit TEXT NOT NULL CHECK (unit = CASE quantity_type WHEN 1 THEN 'count/min' ELSE 'W' END),
            boundaries TEXT NOT NULL CHECK (
                json_valid(boundaries) AND json_type(boundaries) = 'array'
                AND json_array_length(boundaries) BETWEEN 2 AND 8),
            UNIQUE (quantity_type, source, boundaries),
            UNIQUE (id, quantity_type)
        ) STRICT;

        -- The zones a recording classifies with, to finish it with the same ones after a crash.
        CREATE TABLE recording_zone_configurations (
            workout_id INTEGER NOT NULL REFERENCES recordings (workout_id) ON DELETE CASCADE,
            quantity_type INTEGER NOT NULL,
            configuration_id INTEGER NOT NULL,
            PRIMARY KEY (workout_id, quantity_type),
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE workout_statistics (
            workout_id INTEGER PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            heart_rate_average REAL,
            heart_rate_minimum REAL,
            heart_rate_maximum REAL,
            heart_rate_count INTEGER CHECK (heart_rate_count > 0),
            power_average REAL,
            power_maximum REAL,
            power_normalized REAL,
            power_energy_kj REAL,
            power_count INTEGER CHECK (power_count > 0),
            cadence_average REAL,
            cadence_maximum REAL,
            cadence_count INTEGER CHECK (cadence_count > 0),
            energy_expended_kj REAL CHECK (energy_expended_kj >= 0),
            rmssd_ms REAL CHECK (rmssd_ms >= 0),
            rr_pair_count INTEGER NOT NULL CHECK (rr_pair_count >= 0),
            dropped_samples INTEGER NOT NULL CHECK (dropped_samples >= 0),
            malformed_notifications INTEGER NOT NULL CHECK (malformed_notifications >= 0),
            CHECK ((heart_rate_count IS NULL) = (heart_rate_average IS NULL)
                AND (heart_rate_count IS NULL) = (heart_rate_minimum IS NULL)
                AND (heart_rate_count IS NULL) = (heart_rate_maximum IS NULL)),
            CHECK ((power_count IS NULL) = (power_average IS NULL)
                AND (power_count IS NULL) = (power_maximum IS NULL)
                AND (power_count IS NULL) = (power_energy_kj IS NULL)
                AND (power_normalized IS NULL OR power_count IS NOT NULL)),
            CHECK ((cadence_count IS NULL) = (cadence_average IS NULL)
                AND (cadence_count IS NULL) = (cadence_maximum IS NULL)),
            CHECK ((rmssd_ms IS NULL) = (rr_pair_count = 0))
        ) STRICT;

        CREATE TABLE activities (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            activity_type TEXT NOT NULL REFERENCES activity_types (name) CHECK (activity_type <> 'multisport'),
            start_ns INTEGER NOT NULL CHECK (start_ns >= 0),
            end_ns INTEGER NOT NULL CHECK (end_ns >= start_ns),
            PRIMARY KEY (workout_id, position)
        ) STRICT, WITHOUT ROWID;

        -- Time in zone of the whole workout (activity_position NULL) or of one activity.
        CREATE TABLE zone_groups (
            id INTEGER PRIMARY KEY,
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            activity_position INTEGER,
            quantity_type INTEGER NOT NULL,
            configuration_id INTEGER NOT NULL,
            FOREIGN KEY (workout_id, activity_position) REFERENCES activities (workout_id, position) ON DELETE CASCADE,
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        ) STRICT;
        CREATE INDEX zone_groups_by_workout ON zone_groups (workout_id);
        CREATE UNIQUE INDEX one_zone_group_per_workout_and_type
            ON zone_groups (workout_id, quantity_type) WHERE activity_position IS NULL;
        CREATE UNIQUE INDEX one_zone_group_per_activity_and_type
            ON zone_groups (workout_id, activity_position, quantity_type) WHERE activity_position IS NOT NULL;

        CREATE TABLE zone_durations (
            zone_group_id INTEGER NOT NULL REFERENCES zone_groups (id) ON DELETE CASCADE,
            zone_index INTEGER NOT NULL CHECK (zone_index BETWEEN 0 AND 8),
            duration_ns INTEGER NOT NULL CHECK (duration_ns >= 0),
            PRIMARY KEY (zone_group_id, zone_index)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE laps (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            start_ns INTEGER NOT NULL CHECK (start_ns >= 0),
            end_ns INTEGER NOT NULL CHECK (end_ns >= start_ns),
            PRIMARY KEY (workout_id, position)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE pauses (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            start_ns INTEGER NOT NULL CHECK (start_ns >= 0),
            end_ns INTEGER NOT NULL CHECK (end_ns >= start_ns),
            PRIMARY KEY (workout_id, position)
        ) STRICT, WITHOUT ROWID;

        -- Pauses, resumes, laps, activity changes and sensor dropouts, in order. While recording
        -- these are the journal; a finished workout's are rewritten from the workout.
        CREATE TABLE events (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0),
            kind TEXT NOT NULL CHECK (kind IN ('pause', 'resume', 'lap', 'activity', 'sensorLost', 'sensorRegained')),
            activity_type TEXT REFERENCES activity_types (name),
            device TEXT,
            CHECK ((kind = 'activity') = (activity_type IS NOT NULL)),
            CHECK ((kind IN ('sensorLost', 'sensorRegained')) = (device IS NOT NULL)),
            PRIMARY KEY (workout_id, position)
        ) STRICT, WITHOUT ROWID;

        -- Every change of the current zone, with the running totals (one little-endian int64 of
        -- nanoseconds per zone) at that moment.
        CREATE TABLE zone_updates (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            quantity_type INTEGER NOT NULL,
            configuration_id INTEGER NOT NULL,
            offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0),
            previous_zone INTEGER CHECK (previous_zone BETWEEN 0 AND 8),
            current_zone INTEGER CHECK (current_zone BETWEEN 0 AND 8),
            last_sample_offset_ns INTEGER NOT NULL CHECK (last_sample_offset_ns >= 0),
            durations BLOB NOT NULL CHECK (length(durations) BETWEEN 24 AND 72 AND length(durations) % 8 = 0),
            PRIMARY KEY (workout_id, position),
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE sensors (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            sensor INTEGER NOT NULL CHECK (sensor BETWEEN 0 AND 65535),
            name TEXT NOT NULL,
            PRIMARY KEY (workout_id, sensor)
        ) STRICT, WITHOUT ROWID;

        -- Raw samples, every quantity, in the order the workout received them, in chunks of up to
        -- 4096: per sample a little-endian int64 offset (ns), float64 value (canonical unit, NaN
        -- kept), uint8 quantity type and uint16 sensor. A chunk is one row, so a three-hour ride
        -- is a few dozen rows, written and read as whole columns.
        CREATE TABLE sample_chunks (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            sample_count INTEGER NOT NULL CHECK (sample_count BETWEEN 1 AND 4096),
            offsets BLOB NOT NULL CHECK (length(offsets) = 8 * sample_count),
            sample_values BLOB NOT NULL CHECK (length(sample_values) = 8 * sample_count),
            quantity_types BLOB NOT NULL CHECK (length(quantity_types) = sample_count),
            sensors BLOB NOT NULL CHECK (length(sensors) = 2 * sample_count),
            PRIMARY KEY (workout_id, position)
        ) STRICT;

        -- The person's profile, for the system zones: at most one row. (date(d, '+0 days') turns
        -- February 30 into March 2, so only a day that exists equals itself.)
        CREATE TABLE profile (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            birth_date TEXT CHECK (birth_date IS NULL OR date(birth_date, '+0 days') IS birth_date),
            age INTEGER CHECK (age BETWEEN 1 AND 120),
            resting_heart_rate INTEGER CHECK (resting_heart_rate BETWEEN 20 AND 250),
            maximum_heart_rate INTEGER CHECK (maximum_heart_rate BETWEEN 20 AND 250),
            functional_threshold_power INTEGER CHECK (functional_threshold_power BETWEEN 20 AND 2500),
            power_zone_model TEXT NOT NULL CHECK (power_zone_model IN ('6', '7'))
        ) STRICT;

        -- The person's preferred zones, one per quantity type (source 'user').
        CREATE TABLE preferred_zone_configurations (
            quantity_type INTEGER PRIMARY KEY,
            configuration_id INTEGER NOT NULL,
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        ) STRICT;
        CREATE TRIGGER preferred_zone_configurations_are_user
            BEFORE INSERT ON preferred_zone_configurations
            WHEN (SELECT source FROM zone_configurations WHERE id = NEW.configuration_id) IS NOT 'user'
        BEGIN
            SELECT RAISE(ABORT, 'a preferred zone configuration has source user');
        END;
        """

    static let version2 = """
        -- For each finished workout and zoned quantity, the active time credited to each distinct
        -- sample value by the zone rule (sample and hold, bounded hold, pauses, end). Re-bucketing
        -- into any configuration sums these by zone, exactly as re-bucketing the raw samples does.
        CREATE TABLE zone_value_durations (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            quantity_type INTEGER NOT NULL CHECK (quantity_type IN (1, 2)),
            value REAL NOT NULL,
            duration_ns INTEGER NOT NULL CHECK (duration_ns > 0),
            PRIMARY KEY (workout_id, quantity_type, value)
        ) STRICT, WITHOUT ROWID;
        """

    /// Events get their cause (`manual`, `auto`: auto-pause and auto-lap) and a new kind,
    /// `sensorState` (a sensor's values stopped or started counting), with its state; the table is
    /// rebuilt because a CHECK constraint cannot be altered. Each workout keeps the time each
    /// sensor spent in each state.
    static let version4 = """
        CREATE TABLE events_v4 (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0),
            kind TEXT NOT NULL CHECK (
                kind IN ('pause', 'resume', 'lap', 'activity', 'sensorLost', 'sensorRegained', 'sensorState')),
            activity_type TEXT REFERENCES activity_types (name),
            device TEXT,
            cause TEXT NOT NULL DEFAULT 'manual' CHECK (cause IN ('manual', 'auto')),
            sensor_state TEXT CHECK (
                sensor_state IN ('connecting', 'notifying', 'noContact', 'invalid', 'stale', 'lost')),
            CHECK ((kind = 'activity') = (activity_type IS NOT NULL)),
            CHECK ((kind IN ('sensorLost', 'sensorRegained', 'sensorState')) = (device IS NOT NULL)),
            CHECK ((kind = 'sensorState') = (sensor_state IS NOT NULL)),
            CHECK (cause = 'manual' OR kind IN ('pause', 'resume', 'lap')),
            PRIMARY KEY (workout_id, position)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO events_v4 (workout_id, position, offset_ns, kind, activity_type, device)
            SELECT workout_id, position, offset_ns, kind, activity_type, device FROM events;
        DROP TABLE events;
        ALTER TABLE events_v4 RENAME TO events;

        -- Time each sensor of a finished workout spent in each state (states with no time have no row).
        CREATE TABLE sensor_state_durations (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            sensor TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('connecting', 'notifying', 'noContact', 'invalid', 'stale', 'lost')),
            duration_ns INTEGER NOT NULL CHECK (duration_ns > 0),
            PRIMARY KEY (workout_id, sensor, state)
        ) STRICT, WITHOUT ROWID;
        """

    /// Each workout keeps the athlete profile and power-zone model it was recorded with, which its
    /// exports carry however the person's profile changes later: written when a recording starts
    /// (so that a recovered workout has it too) and with every finished workout. Workouts stored
    /// before this migration have no row; nothing is made up for them. The checks are those of
    /// `profile`.
    static let version5 = """
        CREATE TABLE workout_profiles (
            workout_id INTEGER PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            birth_date TEXT CHECK (birth_date IS NULL OR date(birth_date, '+0 days') IS birth_date),
            age INTEGER CHECK (age BETWEEN 1 AND 120),
            resting_heart_rate INTEGER CHECK (resting_heart_rate BETWEEN 20 AND 250),
            maximum_heart_rate INTEGER CHECK (maximum_heart_rate BETWEEN 20 AND 250),
            functional_threshold_power INTEGER CHECK (functional_threshold_power BETWEEN 20 AND 2500),
            power_zone_model TEXT NOT NULL CHECK (power_zone_model IN ('6', '7'))
        ) STRICT;
        """

    /// The profile gains the lactate-threshold heart rate (the %LTHR model's reference) and the
    /// heart-rate zone model (`reserve`, `max`, `lthr`), in `profile` and in each workout's
    /// `workout_profiles` alike. Rows from before have no LTHR and the only model there was,
    /// heart-rate reserve. The checks mirror `AthleteProfile.heartRateRange` and `HeartRateZoneModel`.
    static let version6 = """
        ALTER TABLE profile ADD COLUMN lactate_threshold_heart_rate INTEGER
            CHECK (lactate_threshold_heart_rate BETWEEN 20 AND 250);
        ALTER TABLE profile ADD COLUMN heart_rate_zone_model TEXT NOT NULL DEFAULT 'reserve'
            CHECK (heart_rate_zone_model IN ('reserve', 'max', 'lthr'));
        ALTER TABLE workout_profiles ADD COLUMN lactate_threshold_heart_rate INTEGER
            CHECK (lactate_threshold_heart_rate BETWEEN 20 AND 250);
        ALTER TABLE workout_profiles ADD COLUMN heart_rate_zone_model TEXT NOT NULL DEFAULT 'reserve'
            CHECK (heart_rate_zone_model IN ('reserve', 'max', 'lthr'));
        """

    /// The target zones of a workout (`record --target-hr-zone 2-3`), by index of its zones of the
    /// quantity (0-based); written when a recording starts and with every finished workout.
    static let version7 = """
        CREATE TABLE workout_targets (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            quantity_type INTEGER NOT NULL CHECK (quantity_type IN (1, 2)),
            lowest_zone INTEGER NOT NULL CHECK (lowest_zone BETWEEN 0 AND 8),
            highest_zone INTEGER NOT NULL CHECK (highest_zone BETWEEN lowest_zone AND 8),
            PRIMARY KEY (workout_id, quantity_type)
        ) STRICT, WITHOUT ROWID;
        """

    /// `workouts.id` is an `INTEGER PRIMARY KEY` without AUTOINCREMENT, so SQLite gives a new row
    /// the largest id plus one, and deleting the newest workout let the next one take its id (a
    /// link, an export's name or a script's note would then name another ride). The table is not
    /// rebuilt with AUTOINCREMENT, which every table referring to it would have to follow: one row
    /// keeps the highest id ever given, seeded with today's largest, and the trigger raises it with
    /// every insert, whoever makes it. New workouts take the next id above it in the inserting
    /// transaction (`BEGIN IMMEDIATE`, one writer at a time, so two processes never take the same).
    static let workoutIDHighWater = """
        CREATE TABLE workout_id_high_water (
            only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
            id INTEGER NOT NULL CHECK (id >= 0)
        ) STRICT;
        INSERT INTO workout_id_high_water (only_row, id) SELECT 1, coalesce(max(id), 0) FROM workouts;
        CREATE TRIGGER workouts_raise_id_high_water AFTER INSERT ON workouts BEGIN
            UPDATE workout_id_high_water SET id = max(id, NEW.id);
        END;
        """

    /// Workouts carry a UUID no other workout has on any bridge, and the bridge that recorded them
    /// (`WorkoutIdentity`). Workouts from before it get a new UUID and this box's host name: they
    /// were recorded on the box whose store they are in. The columns stay nullable (SQLite adds
    /// no NOT NULL column without a default); the trigger refuses a workout without them.
    static let version9 = """
        ALTER TABLE workouts ADD COLUMN uuid TEXT CHECK (uuid IS NULL OR (length(uuid) = 36 AND uuid = lower(uuid)));
        ALTER TABLE workouts ADD COLUMN bridge TEXT CHECK (bridge IS NULL OR length(bridge) BETWEEN 1 AND 64);
        CREATE UNIQUE INDEX workouts_by_uuid ON workouts (uuid);
        CREATE INDEX workouts_by_bridge ON workouts (bridge);
        CREATE TRIGGER workouts_need_identity BEFORE INSERT ON workouts
            WHEN NEW.uuid IS NULL OR NEW.bridge IS NULL
        BEGIN
            SELECT RAISE(ABORT, 'a workout needs its uuid and bridge');
        END;
        """

    /// Gives each workout without a UUID a new one, and `bridge`.
    static func backfillIdentities(_ connection: SQLiteConnection, bridge: BridgeID) throws {
        var ids: [Int64] = []
        try connection.statement("SELECT id FROM workouts WHERE uuid IS NULL ORDER BY id").forEachRow { ids.append($0.int64(0)) }
        let update = try connection.statement("UPDATE workouts SET uuid = ?, bridge = ? WHERE id = ?")
        for id in ids {
            try update.run(WorkoutIdentity(bridge: bridge).uuidText, bridge.rawValue, id)
        }
    }

    /// Athletes: several people recording on one box, each with a profile and preferred zones of
    /// their own (the columns of `profile`, with its checks) and their sensors, each sensor one
    /// athlete's. A workout keeps its athlete's name (not a reference: it outlives the athlete and
    /// reads the same on another store).
    static let version10 = """
        CREATE TABLE athletes (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(name) BETWEEN 1 AND 64),
            birth_date TEXT CHECK (birth_date IS NULL OR date(birth_date, '+0 days') IS birth_date),
            age INTEGER CHECK (age BETWEEN 1 AND 120),
            resting_heart_rate INTEGER CHECK (resting_heart_rate BETWEEN 20 AND 250),
            maximum_heart_rate INTEGER CHECK (maximum_heart_rate BETWEEN 20 AND 250),
            functional_threshold_power INTEGER CHECK (functional_threshold_power BETWEEN 20 AND 2500),
            power_zone_model TEXT NOT NULL CHECK (power_zone_model IN ('6', '7')),
            lactate_threshold_heart_rate INTEGER CHECK (lactate_threshold_heart_rate BETWEEN 20 AND 250),
            heart_rate_zone_model TEXT NOT NULL CHECK (heart_rate_zone_model IN ('reserve', 'max', 'lthr'))
        ) STRICT;

        CREATE TABLE athlete_preferred_zone_configurations (
            athlete_id INTEGER NOT NULL REFERENCES athletes (id) ON DELETE CASCADE,
            quantity_type INTEGER NOT NULL,
            configuration_id INTEGER NOT NULL,
            PRIMARY KEY (athlete_id, quantity_type),
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        ) STRICT, WITHOUT ROWID;
        CREATE TRIGGER athlete_preferred_zone_configurations_are_user
            BEFORE INSERT ON athlete_preferred_zone_configurations
            WHEN (SELECT source FROM zone_configurations WHERE id = NEW.configuration_id) IS NOT 'user'
        BEGIN
            SELECT RAISE(ABORT, 'a preferred zone configuration has source user');
        END;

        -- A sensor (its Bluetooth address) is one athlete's, in one role; an athlete has one of each.
        CREATE TABLE athlete_sensors (
            address TEXT PRIMARY KEY CHECK (length(address) = 17 AND address = upper(address)),
            athlete_id INTEGER NOT NULL REFERENCES athletes (id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('heart-rate', 'power')),
            UNIQUE (athlete_id, role)
        ) STRICT, WITHOUT ROWID;

        ALTER TABLE workouts ADD COLUMN athlete TEXT CHECK (athlete IS NULL OR length(athlete) BETWEEN 1 AND 64);
        CREATE INDEX workouts_by_athlete ON workouts (athlete COLLATE NOCASE);
        """

    /// Names were checked as at most 64 code points (`length`), and a name of 64 characters can
    /// have more (`é` written as e and an accent, a flag): a name `AthleteName` took failed the
    /// database's check. Now both checks allow `AthleteName.maximumCodePoints`. A CHECK is changed
    /// in the stored table definitions, as SQLite documents for changes that leave the rows as they
    /// are (ALTER TABLE, "making other kinds of table schema changes"): `workouts` is not rebuilt,
    /// since many tables refer to it, nor `athletes`, whose rebuild would cascade its deletes.
    @Sendable static func version11(_ connection: SQLiteConnection) throws {
        let schemaVersion = Int64(try connection.scalarText("PRAGMA schema_version") ?? "") ?? 0
        let maximum = AthleteName.maximumCodePoints
        try connection.execute(
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'length(name) BETWEEN 1 AND 64', 'length(name) BETWEEN 1 AND \(maximum)')
                WHERE type = 'table' AND name = 'athletes';
            UPDATE sqlite_schema SET sql = replace(sql, 'length(athlete) BETWEEN 1 AND 64', 'length(athlete) BETWEEN 1 AND \(maximum)')
                WHERE type = 'table' AND name = 'workouts';
            PRAGMA schema_version = \(schemaVersion + 1);
            PRAGMA writable_schema = OFF;
            """)
    }

    /// The RR artefact filter's counts beside RMSSD (issue 32). Older workouts get 0 and 0: their
    /// RMSSD was worked out before the filter, and nothing says how many artefacts it held.
    static let version12 = """
        ALTER TABLE workout_statistics ADD COLUMN rr_interval_count INTEGER NOT NULL DEFAULT 0
            CHECK (rr_interval_count >= 0);
        ALTER TABLE workout_statistics ADD COLUMN rr_artefact_count INTEGER NOT NULL DEFAULT 0
            CHECK (rr_artefact_count BETWEEN 0 AND rr_interval_count);
        """

    /// Each workout's best efforts (`BestEfforts`): for each duration, the mean over the best
    /// stretch of that many seconds and where it began. A workout stored before this migration has
    /// none here; they are worked out from its samples when read (`WorkoutStore.bestEfforts`).
    static let version13 = """
        CREATE TABLE best_efforts (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('power', 'heartRate', 'lowestHeartRate')),
            seconds INTEGER NOT NULL CHECK (seconds > 0),
            value REAL NOT NULL,
            offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0),
            PRIMARY KEY (workout_id, kind, seconds)
        ) STRICT;
        """

    /// `transition`: the time between two activities of a multisport workout (HealthKit's and FIT's).
    static let version14 = """
        INSERT INTO activity_types (name) VALUES ('transition');
        """

    /// When each athlete (profile, zones, sensors) and the store's own profile last changed, in
    /// milliseconds since 1970 (0: before this migration), and the athletes removed with when: what
    /// `sync` compares, the latest change winning (`PeopleSync`).
    static let version15 = """
        ALTER TABLE athletes ADD COLUMN changed_ms INTEGER NOT NULL DEFAULT 0 CHECK (changed_ms >= 0);
        ALTER TABLE profile ADD COLUMN changed_ms INTEGER NOT NULL DEFAULT 0 CHECK (changed_ms >= 0);
        CREATE TABLE removed_athletes (
            name TEXT PRIMARY KEY,
            removed_ms INTEGER NOT NULL CHECK (removed_ms >= 0)
        ) STRICT, WITHOUT ROWID;
        """

    /// A workout ridden to a plan (`record --plan`): the plan in its JSON form
    /// (`WorkoutPlan.jsonForm`), written when the recording starts so that a recovered workout has
    /// it; each step as ridden, by lap, with its place in the plan's sequence and the active time
    /// its target was met (NULL for a step that asks nothing). Lap events gain the cause
    /// `step` (a timed step's time was up): the events table is rebuilt, as in migration 4, since
    /// a CHECK constraint cannot be altered.
    static let version16 = """
        CREATE TABLE events_v16 (
            workout_id INTEGER NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0),
            kind TEXT NOT NULL CHECK (
                kind IN ('pause', 'resume', 'lap', 'activity', 'sensorLost', 'sensorRegained', 'sensorState')),
            activity_type TEXT REFERENCES activity_types (name),
            device TEXT,
            cause TEXT NOT NULL DEFAULT 'manual' CHECK (cause IN ('manual', 'auto', 'step')),
            sensor_state TEXT CHECK (
                sensor_state IN ('connecting', 'notifying', 'noContact', 'invalid', 'stale', 'lost')),
            CHECK ((kind = 'activity') = (activity_type IS NOT NULL)),
            CHECK ((kind IN ('sensorLost', 'sensorRegained', 'sensorState')) = (device IS NOT NULL)),
            CHECK ((kind = 'sensorState') = (sensor_state IS NOT NULL)),
            CHECK (cause = 'manual' OR kind IN ('pause', 'resume', 'lap')),
            CHECK (cause <> 'step' OR kind = 'lap'),
            PRIMARY KEY (workout_id, position)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO events_v16 SELECT workout_id, position, offset_ns, kind, activity_type, device, cause, sensor_state FROM events;
        DROP TABLE events;
        ALTER TABLE events_v16 RENAME TO events;

        CREATE TABLE workout_plans (
            workout_id INTEGER PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            plan TEXT NOT NULL CHECK (json_valid(plan) AND json_type(plan) = 'object')
        ) STRICT;

        CREATE TABLE workout_steps (
            workout_id INTEGER NOT NULL REFERENCES workout_plans (workout_id) ON DELETE CASCADE,
            lap INTEGER NOT NULL CHECK (lap >= 0),
            step INTEGER NOT NULL CHECK (step >= 0),
            in_target_ns INTEGER CHECK (in_target_ns >= 0),
            PRIMARY KEY (workout_id, lap)
        ) STRICT, WITHOUT ROWID;
        """

    /// Sex and body weight (whole kg) in every profile: the store's, athletes' and workouts' (the
    /// one a workout was recorded with), NULL when not given; and each workout's time a heart-rate
    /// value held with the held values' mean (`WorkoutStatistics.HeartRate.heldDuration`), for
    /// calories from heart rate, NULL for the workouts before.
    static let version17 = ["profile", "athletes", "workout_profiles"].map { table in
        """
        ALTER TABLE \(table) ADD COLUMN sex TEXT CHECK (sex IN ('female', 'male'));
        ALTER TABLE \(table) ADD COLUMN weight INTEGER CHECK (weight BETWEEN 20 AND 300);
        """
    }.joined(separator: "\n") + """

        ALTER TABLE workout_statistics ADD COLUMN heart_rate_held_ns INTEGER CHECK (heart_rate_held_ns >= 0);
        ALTER TABLE workout_statistics ADD COLUMN heart_rate_held_average REAL;
        """
}
