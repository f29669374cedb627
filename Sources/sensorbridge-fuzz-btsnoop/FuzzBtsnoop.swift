// The btsnoop reader under libFuzzer. scripts/fuzz-btsnoop builds this target with
// `-sanitize=fuzzer -DFUZZING`: libFuzzer's driver then calls LLVMFuzzerTestOneInput with each
// input. Built normally (as `swift build` does), it runs the same harness over the files named on
// its command line, to replay an input libFuzzer saved: `sensorbridge-fuzz-btsnoop crash-...`.
//
// The pointers below are libFuzzer's C interface; each input is copied into an array at once.
import Captures
import Foundation
import FuzzSupport
import GATT

#if FUZZING
    import CFuzzer
#endif

/// Reads `bytes` as a btsnoop capture through everything that parses one: the event reader (with
/// an assumed handle map) and the GATT decoders on every notification, then the capture as a trace
/// replayed into a workout builder and exported, as `replay` and `export` would
/// (`ReplayHarness`). Returns a count of what came out; a crash, a hang or an allocation over the
/// limit is the finding.
func exercise(_ bytes: [UInt8]) -> Int {
    var count = 0
    if let reader = try? BtsnoopReader(bytes: bytes, assumedHandles: [0x0012: .heartRateMeasurement]) {
        while let event = try? reader.next() {
            count += 1
            if case .notification(let n) = event.kind, let uuid = n.uuid {
                _ = try? GATTValue.decode(uuid: uuid, bytes: Array(n.value))
            }
        }
        count += reader.statistics.records
    }
    if let trace = try? BtsnoopTraceReader(bytes: bytes, assumedHandles: [0x0012: .heartRateMeasurement]) {
        count += ReplayHarness.replay(trace)
    }
    return count
}

#if FUZZING
    /// libFuzzer's per-input entry point.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzBtsnoop(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        _ = exercise(bytes)
        return 0
    }

    /// The program's entry point: SwiftPM links `main` to `<module>_main`, so libFuzzer's own `main`
    /// is not used; this hands the command line to libFuzzer's driver instead.
    @_cdecl("sensorbridge_fuzz_btsnoop_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzBtsnoop(data, size) }
    }
#else
    @main
    enum FuzzReplay {
        static func main() { FuzzFiles.run(program: "sensorbridge-fuzz-btsnoop", counted: "events, samples and bytes", exercise) }
    }
#endif
