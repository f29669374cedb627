public import Foundation
import PostgreSQL
import Synchronization

/// A real PostgreSQL server (Debian `postgresql`) for tests: a cluster made by `initdb` in a new
/// temporary folder (trust authentication, superuser `sensorbridge`, locale C, UTF-8, no fsync)
/// and started by `pg_ctl` on a unix socket in that folder only (`listen_addresses=''`), so it
/// can clash with no other server. It is this object's server: `stop()` (or `deinit`) stops it
/// (`pg_ctl stop -m immediate`) and removes the folder.
///
/// PostgreSQL refuses to run as root. When the tests run as root (CI does), `initdb` and `pg_ctl`
/// run as user and group 65534 (`nobody`) through `setpriv`, in a folder that user owns (mode
/// 0700); root's clients still reach the socket. Otherwise they run as this process's user.
///
/// `shared()` is one server for a whole test process, started when first asked for and stopped
/// when the process exits; a test takes a database of its own on it (`makeDatabase()`).
public final class PostgreSQLServer: Sendable {
    /// The superuser `initdb` makes; trust authentication, so no password.
    public static let user = "sensorbridge"
    /// The port, which only names the socket (`.s.PGSQL.5432`) in this server's own folder.
    public static let port = 5432
    static let setpriv = "/usr/bin/setpriv"

    /// The folder of `initdb`, `pg_ctl` and `postgres`: `SENSORBRIDGE_POSTGRESQL_BIN` when set (the
    /// only place then looked), else `pg_config --bindir`, else the newest `/usr/lib/postgresql/*/bin`
    /// (Debian's; they are not on PATH). Nil when none holds all three.
    public static let binaries: URL? = {
        let fileManager = FileManager.default
        var candidates: [String] = []
        if let chosen = ProcessInfo.processInfo.environment["SENSORBRIDGE_POSTGRESQL_BIN"] {
            candidates = [chosen]
        } else {
            if let bindir = pgConfigBindir() { candidates.append(bindir) }
            let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            for version in versions.sorted(by: { Int($0) ?? 0 > Int($1) ?? 0 }) {
                candidates.append("/usr/lib/postgresql/\(version)/bin")
            }
        }
        return candidates.first { folder in
            ["initdb", "pg_ctl", "postgres"].allSatisfy { fileManager.isExecutableFile(atPath: folder + "/" + $0) }
        }.map { URL(fileURLWithPath: $0) }
    }()

    /// Why no server can be started here (nil when one can): PostgreSQL's programs are missing, or
    /// the tests run as root without `setpriv` to leave it.
    public static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: MockBlueZ.python) else { return "\(MockBlueZ.python) is not installed" }
        guard binaries != nil else {
            if let chosen = ProcessInfo.processInfo.environment["SENSORBRIDGE_POSTGRESQL_BIN"] {
                return "initdb, pg_ctl and postgres are not in SENSORBRIDGE_POSTGRESQL_BIN (\(chosen))"
            }
            return "PostgreSQL is not installed: no initdb, pg_ctl and postgres in `pg_config --bindir` or "
                + "/usr/lib/postgresql/*/bin (Debian package postgresql)"
        }
        if geteuid() == 0 && !FileManager.default.isExecutableFile(atPath: setpriv) {
            return "PostgreSQL refuses to run as root, and \(setpriv) (Debian package util-linux) is missing to run it as nobody"
        }
        return nil
    }()

    /// `pg_config --bindir`, when `pg_config` (Debian libpq-dev) is there.
    private static func pgConfigBindir() -> String? {
        let path = "/usr/bin/pg_config"
        guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: path)
        probe.arguments = ["--bindir"]
        let pipe = ChildLaunch.pipe()
        probe.standardOutput = pipe
        probe.standardError = FileHandle.nullDevice
        guard (try? ChildLaunch.run(probe)) != nil else { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else { return nil }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server's folder: the cluster in `data`, its log in `log`, its socket.
    public let directory: URL
    private let binaries: URL
    /// Whether the server may still run (false once `stop()` has begun).
    private let running = Mutex(false)

    /// Makes the cluster and starts the server; returns once it accepts connections (within 30 s)
    /// or throws, saying what `initdb`, `pg_ctl` or the server's log said.
    public init() throws {
        guard let binaries = Self.binaries, Self.unavailableReason == nil else {
            throw MockBlueZ.Failure(description: Self.unavailableReason ?? "PostgreSQL is not installed")
        }
        self.binaries = binaries
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try prepareFolder()
            let data = directory.appendingPathComponent("data").path
            try run(
                "initdb", ["-D", data, "-A", "trust", "-U", Self.user, "--no-sync", "--locale=C", "-E", "UTF8"],
                timeout: .seconds(60))
            running.withLock { $0 = true }
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Starts the server on its data (again, after `halt`); returns once it accepts connections.
    public func start() throws {
        let data = directory.appendingPathComponent("data").path
        // -w: pg_ctl returns once the server accepts connections, or fails after -t seconds.
        let options = "-k '\(directory.path)' -c listen_addresses='' -p \(Self.port) -c fsync=off"
        try run(
            "pg_ctl", ["start", "-w", "-t", "30", "-D", data, "-l", directory.appendingPathComponent("log").path, "-o", options],
            timeout: .seconds(40))
        _ = try PostgreSQLConnection(url(database: "postgres"))
    }

    /// Stops the server at once, as one that crashed or lost its network (`pg_ctl stop -m
    /// immediate`: connections are cut), keeping its data for `start`.
    public func halt() throws {
        try run("pg_ctl", ["stop", "-w", "-t", "30", "-m", "immediate", "-D", directory.appendingPathComponent("data").path], timeout: .seconds(40))
    }

    /// The folder belongs to the user the server runs as, who alone may enter it.
    private func prepareFolder() throws {
        if geteuid() == 0 {
            guard chown(directory.path, 65534, 65534) == 0 else {
                throw MockBlueZ.Failure(description: "chown \(directory.path): \(String(cString: strerror(errno)))")
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    /// Runs one of PostgreSQL's programs to its end (as nobody when this process is root, through
    /// `setpriv`), in the server's folder, its output in `output` there; throws with that output
    /// and the server's log when it fails or outlasts `timeout` (then it is killed).
    ///
    /// Started with `posix_spawn`, every descriptor above 2 closed, not as a `ChildProcess`:
    /// `pg_ctl start` leaves the server running, and a server that inherited Foundation's
    /// descriptor for watching its child would keep `Process` from ever seeing `pg_ctl` exit.
    private func run(_ program: String, _ arguments: [String], timeout: Duration) throws {
        let path = binaries.appendingPathComponent(program).path
        let command =
            geteuid() == 0 ? [Self.setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", path] + arguments : [path] + arguments
        let output = directory.appendingPathComponent("output").path
        // Python closes the descriptors above 2 and enters the folder (glibc's posix_spawn actions
        // for both are not visible to Swift), then becomes the command.
        let start = "import os, sys; os.closerange(3, os.sysconf('SC_OPEN_MAX')); os.chdir(sys.argv[1]); os.execv(sys.argv[2], sys.argv[2:])"
        let pid: pid_t
        do {
            pid = try ChildLaunch.spawn([MockBlueZ.python, "-c", start, directory.path] + command) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            }
        } catch {
            throw MockBlueZ.Failure(description: "\(command[0]) did not start: \(error)")
        }
        // Waits for this child only, by its id; polls, so the wait is bounded.
        var status: Int32 = 0
        let deadline = ContinuousClock.now + timeout
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw MockBlueZ.Failure(description: "\(program) did not finish within \(timeout): \(printed)\(logTail)")
            }
            usleep(10_000)
        }
        // Exited with status 0 (the low 7 bits are the signal that ended it, if one did).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw MockBlueZ.Failure(description: "\(program) failed (wait status \(status)): \(printed)\(logTail)")
        }
    }

    /// What the latest program printed.
    private var printed: String {
        (try? String(contentsOf: directory.appendingPathComponent("output"), encoding: .utf8)) ?? ""
    }

    /// The end of the server's log, for a failure's message.
    private var logTail: String {
        guard let log = try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8) else { return "" }
        return "\nserver log:\n" + log.suffix(2000)
    }

    /// A `postgresql://` URL for `database` as the superuser, through this server's socket.
    public func url(database: String) -> String {
        let host = directory.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-_.")))
        return "postgresql://\(Self.user)@/\(database)?host=\(host ?? directory.path)&port=\(Self.port)"
    }

    /// Creates a new, empty database (named `test_` and a random suffix) and returns its URL.
    public func makeDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgreSQLConnection(url(database: "postgres")).execute("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`: its connections are cut, nothing is
    /// flushed) and removes its folder. Safe to call again.
    public func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        if wasRunning {
            let data = directory.appendingPathComponent("data").path
            try? run("pg_ctl", ["stop", "-w", "-t", "30", "-m", "immediate", "-D", data], timeout: .seconds(40))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The shared server: started by the first call (which throws what starting it threw, as does
    /// every later call then), stopped when the process exits.
    public static func shared() throws -> PostgreSQLServer {
        try sharedServer.withLock { server in
            if server == nil {
                server = Result { try PostgreSQLServer() }
                atexit { PostgreSQLServer.stopShared() }
            }
            return try server!.get()
        }
    }

    private static let sharedServer = Mutex<Result<PostgreSQLServer, any Error>?>(nil)

    private static func stopShared() {
        let server = sharedServer.withLock { try? $0?.get() }
        server?.stop()
    }
}
