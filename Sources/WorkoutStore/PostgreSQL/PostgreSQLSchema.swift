import PostgreSQL

/// The store's schema on PostgreSQL (DESIGN.md §3 "Storage", §8 "Stores"): the same tables,
/// meaning and constraints as SQLite's `Schema`, in PostgreSQL's types, for one database shared
/// by many bridges.
///
/// Its migrations are numbered as SQLite's are. The first one, 10, makes the whole schema as
/// SQLite's version 10 has it; later ones change both. What differs, and why:
/// - The version and the mark that the database is a SensorBridge store are one row of
///   `sensorbridge_schema` (SQLite has `PRAGMA user_version` and `application_id`).
/// - Workout ids come from an identity column: a sequence never gives an id twice, which SQLite
///   needs `workout_id_high_water` for. Zone configuration and zone group ids likewise.
/// - Workouts' UUID and bridge are `NOT NULL` from the start (SQLite adds them to an existing
///   table, so a trigger requires them); the UUID is PostgreSQL's `uuid`.
/// - A birth date is a `date`, which takes only days that exist (SQLite checks with
///   `date(d, '+0 days')`). Zone boundaries stay the JSON text the store writes, checked as
///   `jsonb`.
/// - The store's own person (`profile`) is one, as on SQLite, for all the bridges sharing it;
///   athletes are the database's, on whichever bridge they ride.
/// - Triggers are PL/pgSQL functions.
enum PostgreSQLSchema {
    static let migrations: [(version: Int64, name: String, sql: String)] = [
        (10, "workouts, samples, zone groups, profiles and athletes, as SQLite's schema version 10", version10),
        (11, "athletes' names up to 1024 code points, as SQLite's migration 11", version11),
        (12, "the RR artefact filter's counts, as SQLite's migration 12", version12),
        (13, "each workout's best efforts, as SQLite's migration 13", version13),
        (14, "the transition activity type, as SQLite's migration 14", version14),
        (15, "when athletes and the profile last changed, and the athletes removed, as SQLite's migration 15", version15),
        (16, "workout plans, their steps as ridden and the cause step, as SQLite's migration 16", version16),
        (17, "the profile's sex and weight, as SQLite's migration 17", version17),
    ]

    /// The newest schema version this build knows on PostgreSQL (as `Schema.version` on SQLite).
    static var version: Int64 { migrations.last!.version }

    /// The value of `sensorbridge_schema.application`: the database is a SensorBridge store.
    static let application = "SnBr"

    /// Brings the database `connection` is on to `version`, each migration in a transaction of its
    /// own under a transaction-scoped advisory lock, so that bridges starting at once migrate one
    /// after the other and a migration another one applied first is not applied again. A database
    /// that holds tables but is not a SensorBridge store, or one at a newer version, is refused
    /// untouched; a connection lost on the way is `.server`, as a server that cannot be reached.
    /// `name` is how messages name the database (its URL without a password).
    static func migrate(_ connection: PostgreSQLConnection, name: String) throws(WorkoutStoreError) {
        let known = version
        for migration in migrations {
            do {
                try connection.transaction { connection in
                    try connection.execute("SELECT pg_advisory_xact_lock(hashtext('sensorbridge schema'))")
                    let current = try currentVersion(connection, name: name)
                    if let current, current > known {
                        throw WorkoutStoreError.newerSchema(path: name, version: current, known: known)
                    }
                    guard (current ?? 0) < migration.version else { return }
                    try connection.execute(migration.sql)
                    try connection.query(
                        """
                        INSERT INTO sensorbridge_schema (only_row, application, version) VALUES (1, $1, $2)
                        ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version
                        """, [.text(application), .int64(migration.version)])
                }
            } catch let error as WorkoutStoreError {
                throw error
            } catch let error as PostgreSQLError where error.kind == .connectionLost {
                // The server went away while the store was being opened: as unreachable as one
                // that was down from the start.
                throw WorkoutStoreError(error, path: name)
            } catch {
                throw WorkoutStoreError.cannotOpen(path: name, reason: "\(error)")
            }
        }
    }

    /// The database's schema version; nil for an empty database (nothing in its schema).
    ///
    /// - Throws: `WorkoutStoreError.notOurs` for a database that holds tables but no
    ///   `sensorbridge_schema`, or another program's mark in it.
    static func currentVersion(_ connection: PostgreSQLConnection, name: String) throws -> Int64? {
        let marked = try connection.query("SELECT to_regclass('sensorbridge_schema') IS NOT NULL")
        guard try marked.first?.bool(0) == true else {
            let tables = try connection.query(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm')")
            guard try tables.first?.int64(0) == 0 else {
                throw WorkoutStoreError.notOurs(path: name, reason: "it holds tables and none of them is sensorbridge_schema")
            }
            return nil
        }
        let rows = try connection.query("SELECT application, version FROM sensorbridge_schema WHERE only_row = 1")
        guard let row = rows.first else { return nil }
        guard try row.string(0) == application else {
            throw WorkoutStoreError.notOurs(path: name, reason: "its sensorbridge_schema names \(try row.string(0))")
        }
        return try row.int64(1)
    }

    static let version10 = """
        CREATE TABLE sensorbridge_schema (
            only_row integer PRIMARY KEY CHECK (only_row = 1),
            application text NOT NULL,
            version bigint NOT NULL CHECK (version > 0)
        );

        CREATE TABLE activity_types (name text PRIMARY KEY);
        INSERT INTO activity_types (name) VALUES
            ('cycling'), ('running'), ('walking'), ('hiking'), ('rowing'), ('swimming'), ('other'), ('multisport');

        CREATE TABLE workouts (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            -- Seconds since 2001-01-01T00:00:00Z, as on SQLite.
            start_date double precision NOT NULL,
            anchor_offset_ns bigint NOT NULL,
            duration_ns bigint CHECK (duration_ns >= 0),
            active_duration_ns bigint CHECK (active_duration_ns >= 0 AND active_duration_ns <= duration_ns),
            activity_type text NOT NULL REFERENCES activity_types (name),
            heart_rate_hold_ns bigint NOT NULL CHECK (heart_rate_hold_ns > 0),
            power_hold_ns bigint NOT NULL CHECK (power_hold_ns > 0),
            uuid uuid NOT NULL UNIQUE,
            bridge text NOT NULL CHECK (bridge ~ '^[A-Za-z0-9_-]{1,64}$'),
            athlete text CHECK (athlete IS NULL OR length(athlete) BETWEEN 1 AND 64),
            CHECK ((duration_ns IS NULL) = (active_duration_ns IS NULL))
        );
        CREATE INDEX workouts_by_start_date ON workouts (start_date);
        CREATE INDEX workouts_by_bridge ON workouts (bridge);
        CREATE INDEX workouts_by_athlete ON workouts (translate(athlete, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));

        CREATE TABLE recordings (
            workout_id bigint PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            recorded_until_ns bigint NOT NULL CHECK (recorded_until_ns >= 0),
            malformed_notifications bigint NOT NULL CHECK (malformed_notifications >= 0),
            dropped_samples bigint NOT NULL CHECK (dropped_samples >= 0)
        );

        CREATE TABLE zone_configurations (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            quantity_type integer NOT NULL CHECK (quantity_type IN (1, 2)),
            source text NOT NULL CHECK (source IN ('system', 'user', 'custom')),
            unit text NOT NULL CHECK (unit = CASE quantity_type WHEN 1 THEN 'count/min' ELSE 'W' END),
            boundaries text NOT NULL CHECK (
                jsonb_typeof(boundaries::jsonb) = 'array' AND jsonb_array_length(boundaries::jsonb) BETWEEN 2 AND 8),
            UNIQUE (quantity_type, source, boundaries),
            UNIQUE (id, quantity_type)
        );

        CREATE TABLE recording_zone_configurations (
            workout_id bigint NOT NULL REFERENCES recordings (workout_id) ON DELETE CASCADE,
            quantity_type integer NOT NULL,
            configuration_id bigint NOT NULL,
            PRIMARY KEY (workout_id, quantity_type),
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        );

        CREATE TABLE workout_statistics (
            workout_id bigint PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            heart_rate_average double precision,
            heart_rate_minimum double precision,
            heart_rate_maximum double precision,
            heart_rate_count bigint CHECK (heart_rate_count > 0),
            power_average double precision,
            power_maximum double precision,
            power_normalized double precision,
            power_energy_kj double precision,
            power_count bigint CHECK (power_count > 0),
            cadence_average double precision,
            cadence_maximum double precision,
            cadence_count bigint CHECK (cadence_count > 0),
            energy_expended_kj double precision CHECK (energy_expended_kj >= 0),
            rmssd_ms double precision CHECK (rmssd_ms >= 0),
            rr_pair_count bigint NOT NULL CHECK (rr_pair_count >= 0),
            dropped_samples bigint NOT NULL CHECK (dropped_samples >= 0),
            malformed_notifications bigint NOT NULL CHECK (malformed_notifications >= 0),
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
        );

        CREATE TABLE activities (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position integer NOT NULL CHECK (position >= 0),
            activity_type text NOT NULL REFERENCES activity_types (name) CHECK (activity_type <> 'multisport'),
            start_ns bigint NOT NULL CHECK (start_ns >= 0),
            end_ns bigint NOT NULL CHECK (end_ns >= start_ns),
            PRIMARY KEY (workout_id, position)
        );

        CREATE TABLE zone_groups (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            activity_position integer,
            quantity_type integer NOT NULL,
            configuration_id bigint NOT NULL,
            FOREIGN KEY (workout_id, activity_position) REFERENCES activities (workout_id, position) ON DELETE CASCADE,
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        );
        CREATE INDEX zone_groups_by_workout ON zone_groups (workout_id);
        CREATE UNIQUE INDEX one_zone_group_per_workout_and_type
            ON zone_groups (workout_id, quantity_type) WHERE activity_position IS NULL;
        CREATE UNIQUE INDEX one_zone_group_per_activity_and_type
            ON zone_groups (workout_id, activity_position, quantity_type) WHERE activity_position IS NOT NULL;

        CREATE TABLE zone_durations (
            zone_group_id bigint NOT NULL REFERENCES zone_groups (id) ON DELETE CASCADE,
            zone_index integer NOT NULL CHECK (zone_index BETWEEN 0 AND 8),
            duration_ns bigint NOT NULL CHECK (duration_ns >= 0),
            PRIMARY KEY (zone_group_id, zone_index)
        );

        CREATE TABLE laps (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position integer NOT NULL CHECK (position >= 0),
            start_ns bigint NOT NULL CHECK (start_ns >= 0),
            end_ns bigint NOT NULL CHECK (end_ns >= start_ns),
            PRIMARY KEY (workout_id, position)
        );

        CREATE TABLE pauses (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position integer NOT NULL CHECK (position >= 0),
            start_ns bigint NOT NULL CHECK (start_ns >= 0),
            end_ns bigint NOT NULL CHECK (end_ns >= start_ns),
            PRIMARY KEY (workout_id, position)
        );

        CREATE TABLE events (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position integer NOT NULL CHECK (position >= 0),
            offset_ns bigint NOT NULL CHECK (offset_ns >= 0),
            kind text NOT NULL CHECK (
                kind IN ('pause', 'resume', 'lap', 'activity', 'sensorLost', 'sensorRegained', 'sensorState')),
            activity_type text REFERENCES activity_types (name),
            device text,
            cause text NOT NULL DEFAULT 'manual' CHECK (cause IN ('manual', 'auto')),
            sensor_state text CHECK (sensor_state IN ('connecting', 'notifying', 'noContact', 'invalid', 'stale', 'lost')),
            CHECK ((kind = 'activity') = (activity_type IS NOT NULL)),
            CHECK ((kind IN ('sensorLost', 'sensorRegained', 'sensorState')) = (device IS NOT NULL)),
            CHECK ((kind = 'sensorState') = (sensor_state IS NOT NULL)),
            CHECK (cause = 'manual' OR kind IN ('pause', 'resume', 'lap')),
            PRIMARY KEY (workout_id, position)
        );

        CREATE TABLE sensor_state_durations (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            sensor text NOT NULL,
            state text NOT NULL CHECK (state IN ('connecting', 'notifying', 'noContact', 'invalid', 'stale', 'lost')),
            duration_ns bigint NOT NULL CHECK (duration_ns > 0),
            PRIMARY KEY (workout_id, sensor, state)
        );

        CREATE TABLE zone_updates (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position integer NOT NULL CHECK (position >= 0),
            quantity_type integer NOT NULL,
            configuration_id bigint NOT NULL,
            offset_ns bigint NOT NULL CHECK (offset_ns >= 0),
            previous_zone integer CHECK (previous_zone BETWEEN 0 AND 8),
            current_zone integer CHECK (current_zone BETWEEN 0 AND 8),
            last_sample_offset_ns bigint NOT NULL CHECK (last_sample_offset_ns >= 0),
            durations bytea NOT NULL CHECK (length(durations) BETWEEN 24 AND 72 AND length(durations) % 8 = 0),
            PRIMARY KEY (workout_id, position),
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        );

        CREATE TABLE sensors (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            sensor integer NOT NULL CHECK (sensor BETWEEN 0 AND 65535),
            name text NOT NULL,
            PRIMARY KEY (workout_id, sensor)
        );

        -- Raw samples in chunks of up to 4096, laid out as on SQLite (written with binary COPY, so
        -- every number is a bigint).
        CREATE TABLE sample_chunks (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            position bigint NOT NULL CHECK (position >= 0),
            sample_count bigint NOT NULL CHECK (sample_count BETWEEN 1 AND 4096),
            offsets bytea NOT NULL CHECK (length(offsets) = 8 * sample_count),
            sample_values bytea NOT NULL CHECK (length(sample_values) = 8 * sample_count),
            quantity_types bytea NOT NULL CHECK (length(quantity_types) = sample_count),
            sensors bytea NOT NULL CHECK (length(sensors) = 2 * sample_count),
            PRIMARY KEY (workout_id, position)
        );

        CREATE TABLE zone_value_durations (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            quantity_type integer NOT NULL CHECK (quantity_type IN (1, 2)),
            value double precision NOT NULL,
            duration_ns bigint NOT NULL CHECK (duration_ns > 0),
            PRIMARY KEY (workout_id, quantity_type, value)
        );

        CREATE TABLE workout_profiles (
            workout_id bigint PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            birth_date date,
            age integer CHECK (age BETWEEN 1 AND 120),
            resting_heart_rate integer CHECK (resting_heart_rate BETWEEN 20 AND 250),
            maximum_heart_rate integer CHECK (maximum_heart_rate BETWEEN 20 AND 250),
            functional_threshold_power integer CHECK (functional_threshold_power BETWEEN 20 AND 2500),
            power_zone_model text NOT NULL CHECK (power_zone_model IN ('6', '7')),
            lactate_threshold_heart_rate integer CHECK (lactate_threshold_heart_rate BETWEEN 20 AND 250),
            heart_rate_zone_model text NOT NULL DEFAULT 'reserve' CHECK (heart_rate_zone_model IN ('reserve', 'max', 'lthr'))
        );

        CREATE TABLE workout_targets (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            quantity_type integer NOT NULL CHECK (quantity_type IN (1, 2)),
            lowest_zone integer NOT NULL CHECK (lowest_zone BETWEEN 0 AND 8),
            highest_zone integer NOT NULL CHECK (highest_zone BETWEEN lowest_zone AND 8),
            PRIMARY KEY (workout_id, quantity_type)
        );

        -- The person of the store (the profile used without --athlete), as on SQLite: one for
        -- every bridge sharing the database; riders of their own are athletes.
        CREATE TABLE profile (
            id integer PRIMARY KEY CHECK (id = 1),
            birth_date date,
            age integer CHECK (age BETWEEN 1 AND 120),
            resting_heart_rate integer CHECK (resting_heart_rate BETWEEN 20 AND 250),
            maximum_heart_rate integer CHECK (maximum_heart_rate BETWEEN 20 AND 250),
            functional_threshold_power integer CHECK (functional_threshold_power BETWEEN 20 AND 2500),
            power_zone_model text NOT NULL CHECK (power_zone_model IN ('6', '7')),
            lactate_threshold_heart_rate integer CHECK (lactate_threshold_heart_rate BETWEEN 20 AND 250),
            heart_rate_zone_model text NOT NULL DEFAULT 'reserve' CHECK (heart_rate_zone_model IN ('reserve', 'max', 'lthr'))
        );

        CREATE TABLE preferred_zone_configurations (
            quantity_type integer PRIMARY KEY,
            configuration_id bigint NOT NULL,
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        );

        CREATE TABLE athletes (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
            birth_date date,
            age integer CHECK (age BETWEEN 1 AND 120),
            resting_heart_rate integer CHECK (resting_heart_rate BETWEEN 20 AND 250),
            maximum_heart_rate integer CHECK (maximum_heart_rate BETWEEN 20 AND 250),
            functional_threshold_power integer CHECK (functional_threshold_power BETWEEN 20 AND 2500),
            power_zone_model text NOT NULL CHECK (power_zone_model IN ('6', '7')),
            lactate_threshold_heart_rate integer CHECK (lactate_threshold_heart_rate BETWEEN 20 AND 250),
            heart_rate_zone_model text NOT NULL CHECK (heart_rate_zone_model IN ('reserve', 'max', 'lthr'))
        );
        -- Unique without regard to ASCII case, as SQLite's COLLATE NOCASE (StoreDialect.caseless).
        CREATE UNIQUE INDEX athletes_by_name ON athletes (translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));

        CREATE TABLE athlete_preferred_zone_configurations (
            athlete_id bigint NOT NULL REFERENCES athletes (id) ON DELETE CASCADE,
            quantity_type integer NOT NULL,
            configuration_id bigint NOT NULL,
            PRIMARY KEY (athlete_id, quantity_type),
            FOREIGN KEY (configuration_id, quantity_type) REFERENCES zone_configurations (id, quantity_type)
        );

        CREATE TABLE athlete_sensors (
            address text PRIMARY KEY CHECK (address ~ '^([0-9A-F]{2}:){5}[0-9A-F]{2}$'),
            athlete_id bigint NOT NULL REFERENCES athletes (id) ON DELETE CASCADE,
            role text NOT NULL CHECK (role IN ('heart-rate', 'power')),
            UNIQUE (athlete_id, role)
        );

        -- A preferred zone configuration has source user (SQLite: a trigger on each table).
        CREATE FUNCTION preferred_zone_configuration_is_user() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF (SELECT source FROM zone_configurations WHERE id = NEW.configuration_id) IS DISTINCT FROM 'user' THEN
                RAISE EXCEPTION 'a preferred zone configuration has source user' USING ERRCODE = 'check_violation';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER preferred_zone_configurations_are_user BEFORE INSERT OR UPDATE ON preferred_zone_configurations
            FOR EACH ROW EXECUTE FUNCTION preferred_zone_configuration_is_user();
        CREATE TRIGGER athlete_preferred_zone_configurations_are_user
            BEFORE INSERT OR UPDATE ON athlete_preferred_zone_configurations
            FOR EACH ROW EXECUTE FUNCTION preferred_zone_configuration_is_user();
        """

    /// As SQLite's migration 11: names checked as up to `AthleteName.maximumCodePoints` code points,
    /// not 64 (a name of 64 characters can have more).
    static let version11 = """
        ALTER TABLE athletes DROP CONSTRAINT athletes_name_check,
            ADD CONSTRAINT athletes_name_check CHECK (length(name) BETWEEN 1 AND \(AthleteName.maximumCodePoints));
        ALTER TABLE workouts DROP CONSTRAINT workouts_athlete_check,
            ADD CONSTRAINT workouts_athlete_check CHECK (athlete IS NULL OR length(athlete) BETWEEN 1 AND \(AthleteName.maximumCodePoints));
        """

    /// As SQLite's migration 12: the RR intervals judged by the artefact filter and the artefacts removed.
    static let version12 = """
        ALTER TABLE workout_statistics ADD COLUMN rr_interval_count bigint NOT NULL DEFAULT 0
            CHECK (rr_interval_count >= 0);
        ALTER TABLE workout_statistics ADD COLUMN rr_artefact_count bigint NOT NULL DEFAULT 0
            CHECK (rr_artefact_count BETWEEN 0 AND rr_interval_count);
        """

    /// As SQLite's migration 13: each workout's best efforts.
    static let version13 = """
        CREATE TABLE best_efforts (
            workout_id bigint NOT NULL REFERENCES workouts (id) ON DELETE CASCADE,
            kind text NOT NULL CHECK (kind IN ('power', 'heartRate', 'lowestHeartRate')),
            seconds integer NOT NULL CHECK (seconds > 0),
            value double precision NOT NULL,
            offset_ns bigint NOT NULL CHECK (offset_ns >= 0),
            PRIMARY KEY (workout_id, kind, seconds)
        );
        """

    /// As SQLite's migration 14.
    static let version14 = """
        INSERT INTO activity_types (name) VALUES ('transition');
        """

    /// As SQLite's migration 15.
    static let version15 = """
        ALTER TABLE athletes ADD COLUMN changed_ms bigint NOT NULL DEFAULT 0 CHECK (changed_ms >= 0);
        ALTER TABLE profile ADD COLUMN changed_ms bigint NOT NULL DEFAULT 0 CHECK (changed_ms >= 0);
        CREATE TABLE removed_athletes (
            name text PRIMARY KEY,
            removed_ms bigint NOT NULL CHECK (removed_ms >= 0)
        );
        """

    /// As SQLite's migration 16; PostgreSQL alters the cause's CHECK in place.
    static let version16 = """
        ALTER TABLE events DROP CONSTRAINT events_cause_check;
        ALTER TABLE events ADD CONSTRAINT events_cause_check CHECK (cause IN ('manual', 'auto', 'step'));
        ALTER TABLE events ADD CONSTRAINT events_step_check CHECK (cause <> 'step' OR kind = 'lap');

        CREATE TABLE workout_plans (
            workout_id bigint PRIMARY KEY REFERENCES workouts (id) ON DELETE CASCADE,
            plan text NOT NULL CHECK (jsonb_typeof(plan::jsonb) = 'object')
        );

        CREATE TABLE workout_steps (
            workout_id bigint NOT NULL REFERENCES workout_plans (workout_id) ON DELETE CASCADE,
            lap integer NOT NULL CHECK (lap >= 0),
            step integer NOT NULL CHECK (step >= 0),
            in_target_ns bigint CHECK (in_target_ns >= 0),
            PRIMARY KEY (workout_id, lap)
        );
        """

    /// As SQLite's migration 17.
    static let version17 = ["profile", "athletes", "workout_profiles"].map { table in
        """
        ALTER TABLE \(table) ADD COLUMN sex text CHECK (sex IN ('female', 'male'));
        ALTER TABLE \(table) ADD COLUMN weight integer CHECK (weight BETWEEN 20 AND 300);
        """
    }.joined(separator: "\n") + """

        ALTER TABLE workout_statistics ADD COLUMN heart_rate_held_ns bigint CHECK (heart_rate_held_ns >= 0);
        ALTER TABLE workout_statistics ADD COLUMN heart_rate_held_average double precision;
        """
}
