// swift-tools-version:6.0
// SensorBridge: Bluetooth LE heart-rate straps and cycling power meters to zoned workouts on Linux.
// The module map and the rules it follows are in DESIGN.md (kept beside the repository as ../shared/DESIGN.md).
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
        .library(name: "SensorCore", targets: ["SensorCore"]),
        .library(name: "GATT", targets: ["GATT"]),
        .library(name: "SampleRing", targets: ["SampleRing"]),
        .library(name: "Zones", targets: ["Zones"]),
    ],
    targets: [
        // Pure logic: no I/O, no C modules.
        .target(name: "SensorCore", swiftSettings: swiftSettings),
        .target(name: "GATT", dependencies: ["SensorCore"], swiftSettings: swiftSettings),
        .target(name: "Zones", dependencies: ["SensorCore"], swiftSettings: swiftSettings),
        .target(name: "Workouts", dependencies: ["SensorCore", "Zones"], swiftSettings: swiftSettings),
        // The lock-free hand-off between threads; imports only Synchronization.
        .target(name: "SampleRing", swiftSettings: swiftSettings),
        // libbluetooth's headers (Debian libbluetooth-dev) for the HCI monitor socket; nothing is linked.
        .systemLibrary(name: "CBluetooth", path: "Sources/CBluetooth", providers: [.apt(["libbluetooth-dev"])]),
        // Capture files: JSONL traces, btsnoop (HCI -> L2CAP -> ATT), the HCI monitor socket.
        .target(name: "Captures", dependencies: ["CBluetooth", "SensorCore", "GATT"], swiftSettings: swiftSettings),
        // Composition root and the command line.
        .target(
            name: "SensorBridge",
            dependencies: ["SensorCore", "GATT", "Zones", "Workouts", "SampleRing", "Captures"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "sensorbridge", dependencies: ["SensorBridge"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "sensorbridge-bench",
            dependencies: ["SensorCore", "GATT", "Zones", "SampleRing", "SensorBridge", "Captures"],
            swiftSettings: swiftSettings
        ),
        // The btsnoop reader under libFuzzer (scripts/fuzz-btsnoop builds it with -sanitize=fuzzer
        // -DFUZZING); built normally it runs the same harness over files named on its command line.
        .systemLibrary(name: "CFuzzer", path: "Sources/CFuzzer"),
        .executableTarget(
            name: "sensorbridge-fuzz-btsnoop", dependencies: ["Captures", "GATT", "CFuzzer"],
            swiftSettings: swiftSettings),
        // Test-only helpers: payload encoders and fixtures.
        .target(name: "SensorTestSupport", dependencies: ["SensorCore", "GATT"], swiftSettings: swiftSettings),
        .testTarget(name: "SensorCoreTests", dependencies: ["SensorCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GATTTests",
            dependencies: ["GATT", "SensorCore", "SensorTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SampleRingTests", dependencies: ["SampleRing", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(name: "CapturesTests", dependencies: ["Captures", "GATT", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(name: "WorkoutsTests", dependencies: ["Workouts", "Zones", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(name: "ZonesTests", dependencies: ["Zones", "SensorCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SensorBridgeTests",
            dependencies: ["SensorBridge", "Captures", "SensorCore", "GATT", "SensorTestSupport"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
