// swift-tools-version:6.0
// SensorBridge: Bluetooth LE heart-rate straps and cycling power meters to zoned workouts on Linux.
// The module map and the rules it follows are in docs/DESIGN.md.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "SensorBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sensorbridge", targets: ["sensorbridge"]),
        .executable(name: "sensorbridge-bench", targets: ["sensorbridge-bench"]),
        .executable(name: "sensorbridge-fuzz-btsnoop", targets: ["sensorbridge-fuzz-btsnoop"]),
        .executable(name: "sensorbridge-fuzz-trace", targets: ["sensorbridge-fuzz-trace"]),
        .library(name: "SensorCore", targets: ["SensorCore"]),
        .library(name: "GATT", targets: ["GATT"]),
        .library(name: "SampleRing", targets: ["SampleRing"]),
        .library(name: "Zones", targets: ["Zones"]),
        .library(name: "WorkoutStore", targets: ["WorkoutStore"]),
    ],
    targets: [
        // Pure logic: no I/O, no C modules.
        .target(name: "SensorCore", swiftSettings: swiftSettings),
        .target(name: "GATT", dependencies: ["SensorCore"], swiftSettings: swiftSettings),
        .target(name: "Zones", dependencies: ["SensorCore"], swiftSettings: swiftSettings),
        .target(name: "Workouts", dependencies: ["SensorCore", "Zones"], swiftSettings: swiftSettings),
        // The lock-free hand-off between threads: Synchronization, and CFutex for the futex calls
        // under its wake-up (`syscall` is variadic).
        .systemLibrary(name: "CFutex", path: "Sources/CFutex"),
        .target(name: "SampleRing", dependencies: ["CFutex"], swiftSettings: swiftSettings),
        // The system D-Bus library (Debian libdbus-1-dev); a module map and a shim header.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // A small typed libdbus binding; unsafe pointers stay inside it.
        .target(name: "DBus", dependencies: ["CDBus", "SensorCore"], swiftSettings: swiftSettings),
        // The org.bluez object mirror, discovery, connections and notification sources.
        .target(name: "BlueZ", dependencies: ["DBus", "SensorCore"], swiftSettings: swiftSettings),
        // The system SQLite (Debian libsqlite3-dev); a module map and a shim header, nothing else.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Workouts, samples, zones and preferences in SQLite; unsafe pointers only in its SQLite layer.
        .target(
            name: "WorkoutStore", dependencies: ["CSQLite", "PostgreSQL", "SensorCore", "Zones", "Workouts"],
            swiftSettings: swiftSettings),
        // libbluetooth's headers (Debian libbluetooth-dev) for the HCI monitor socket; nothing is linked.
        .systemLibrary(name: "CBluetooth", path: "Sources/CBluetooth", providers: [.apt(["libbluetooth-dev"])]),
        // Capture files: JSONL traces, btsnoop (HCI -> L2CAP -> ATT), the HCI monitor socket.
        .target(name: "Captures", dependencies: ["CBluetooth", "SensorCore", "GATT"], swiftSettings: swiftSettings),
        // libmicrohttpd (Debian libmicrohttpd-dev): a module map and a shim for its variadic calls.
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // An HTTP server on libmicrohttpd (requests, limits, streamed responses); its pointers stay inside.
        .target(name: "HTTP", dependencies: ["CMicroHTTPD"], swiftSettings: swiftSettings),
        // libmosquitto (Debian libmosquitto-dev), the MQTT client library; a module map and a shim header.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // A small typed libmosquitto client: one thread of its own, a bounded queue while the broker
        // is away; unsafe pointers stay inside it.
        .target(name: "MQTT", dependencies: ["CMosquitto", "SensorCore"], swiftSettings: swiftSettings),
        // libpq (Debian libpq-dev), the PostgreSQL client library; a module map and a shim header.
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // A small typed libpq binding (connections, parameters, rows, transactions, COPY); unsafe
        // pointers stay inside it.
        .target(name: "PostgreSQL", dependencies: ["CPostgreSQL"], swiftSettings: swiftSettings),
        // Workouts to files other tools read: FIT, TCX, CSV, SVG charts. Pure: bytes in memory, no I/O.
        .target(name: "Export", dependencies: ["SensorCore", "Zones", "Workouts"], swiftSettings: swiftSettings),
        // One workout session, as a library: sources (live BlueZ links, replayed traces) through one
        // decode path into rings, the consumer and its builder, the event stream that outputs follow,
        // control (pause, resume, lap, end), and the store's journal.
        .target(
            name: "Session",
            dependencies: [
                "SensorCore", "GATT", "Zones", "Workouts", "SampleRing", "Captures", "WorkoutStore", "BlueZ",
            ],
            swiftSettings: swiftSettings
        ),
        // One recording from a typed plan to the stored workout (begin, finish, save; outcomes, never
        // printed), and serve's schedule of when workouts start and end and its routing of each
        // sensor's notifications to its athlete's workout. No argument parsing.
        .target(
            name: "Recording",
            dependencies: ["SensorCore", "GATT", "Zones", "Workouts", "WorkoutStore", "SampleRing", "BlueZ", "Session"],
            swiftSettings: swiftSettings),
        // What every output shares: the JSON shapes, the text summary and reports, the named values
        // of a request, the dashboard model, the live feed (SSE) and the MQTT publisher, each a
        // follower of a session's event stream. No argument parsing, no printing.
        .target(
            name: "Outputs",
            dependencies: ["SensorCore", "Zones", "Workouts", "WorkoutStore", "Session", "BlueZ", "Export", "HTTP", "MQTT"],
            swiftSettings: swiftSettings),
        // The web page and the HTTP API: routes, who may use them, server-rendered pages; the store,
        // the exporters and Outputs called directly, statuses from typed errors.
        .target(
            name: "Web", dependencies: ["SensorCore", "Zones", "Workouts", "WorkoutStore", "Export", "HTTP", "Outputs"],
            swiftSettings: swiftSettings),
        // The command line: parses arguments, runs sessions and prints.
        .target(
            name: "SensorBridge",
            dependencies: [
                "SensorCore", "GATT", "Zones", "Workouts", "SampleRing", "Captures", "WorkoutStore", "BlueZ", "DBus",
                "Export", "Session", "HTTP", "MQTT", "Recording", "Outputs", "Web",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "sensorbridge", dependencies: ["SensorBridge"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "sensorbridge-bench",
            dependencies: [
                "SensorCore", "GATT", "Zones", "Workouts", "SampleRing", "SensorBridge", "Session", "WorkoutStore", "SensorTestSupport", "Captures",
                "Export", "BlueZ", "CDBus", "DBus", "PostgreSQL",
            ],
            swiftSettings: swiftSettings
        ),
        // The btsnoop reader and the JSONL trace reader under libFuzzer (scripts/fuzz-btsnoop and
        // scripts/fuzz-trace build them with -sanitize=fuzzer -DFUZZING), each capture replayed into
        // a workout builder and exported (FuzzSupport); built normally each runs the same harness
        // over files named on its command line.
        .systemLibrary(name: "CFuzzer", path: "Sources/CFuzzer"),
        .target(
            name: "FuzzSupport", dependencies: ["Captures", "Session", "Export", "Workouts", "Zones", "SensorCore"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "sensorbridge-fuzz-btsnoop", dependencies: ["Captures", "GATT", "CFuzzer", "FuzzSupport"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "sensorbridge-fuzz-trace", dependencies: ["Captures", "SensorCore", "CFuzzer", "FuzzSupport"],
            swiftSettings: swiftSettings),
        // Test-only helpers: payload encoders, fixtures and synthetic workouts (also for the benchmarks);
        // the real servers tests start (a private bus with a mock BlueZ, mosquitto, PostgreSQL).
        .target(
            name: "SensorTestSupport", dependencies: ["SensorCore", "GATT", "Workouts", "Zones", "PostgreSQL"],
            swiftSettings: swiftSettings),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "SensorTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "SensorTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "SensorTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "BlueZTests", dependencies: ["BlueZ", "DBus", "SensorCore", "SensorTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SensorCoreTests", dependencies: ["SensorCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GATTTests",
            dependencies: ["GATT", "SensorCore", "SensorTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SampleRingTests", dependencies: ["SampleRing", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(name: "CapturesTests", dependencies: ["Captures", "GATT", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(name: "WorkoutsTests", dependencies: ["Workouts", "Zones", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ExportTests",
            dependencies: [
                "Export", "SensorBridge", "Session", "WorkoutStore", "Workouts", "Zones", "SensorCore", "SensorTestSupport", "Outputs", "Web",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ZonesTests", dependencies: ["Zones", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RecordingTests", dependencies: ["Recording", "Workouts", "WorkoutStore", "Zones", "SensorCore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "OutputsTests", dependencies: ["Outputs", "Session", "Workouts", "Zones", "SensorCore", "HTTP"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "WebTests", dependencies: ["Web", "Outputs", "HTTP", "Export", "WorkoutStore", "SensorCore", "SensorTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "SensorTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SessionTests",
            dependencies: [
                "Session", "Workouts", "Zones", "SensorCore", "GATT", "Captures", "SampleRing", "WorkoutStore", "SensorTestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "WorkoutStoreTests",
            dependencies: ["WorkoutStore", "Workouts", "Zones", "SensorCore", "SensorTestSupport", "PostgreSQL"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SensorBridgeTests",
            dependencies: [
                "SensorBridge", "Session", "Captures", "SensorCore", "GATT", "SensorTestSupport", "WorkoutStore", "Workouts", "Zones",
                "Export", "Outputs",
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
