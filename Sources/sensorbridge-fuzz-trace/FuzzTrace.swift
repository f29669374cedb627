// The JSONL trace reader under libFuzzer. scripts/fuzz-trace builds this target with
// `-sanitize=fuzzer -DFUZZING`: libFuzzer's driver then calls LLVMFuzzerTestOneInput with each
// input. Built normally (as `swift build` does), it runs the same harness over the files named on
// its command line, to replay an input libFuzzer saved: `sensorbridge-fuzz-trace crash-...`.
//
// The pointers below are libFuzzer's C interface; each input is copied into an array at once.
import Captures
import Foundation
import FuzzSupport
import SensorCore

#if FUZZING
    import CFuzzer
#endif

/// Reads `bytes` as a JSONL trace through everything that parses one: the JSON parser on the
/// whole input, and the trace reader (header, lines, records) replayed into a workout builder and
/// exported (`ReplayHarness`). Returns a count of what came out; a crash, a hang or an allocation
/// over the limit is the finding.
func exercise(_ bytes: [UInt8]) -> Int {
    var count = 0
    if case .object(let object)? = try? JSONValue(parsing: bytes) { count += object.pairs.count }
    if let reader = try? TraceReader(bytes: bytes) { count += ReplayHarness.replay(reader) }
    return count
}

#if FUZZING
    /// libFuzzer's per-input entry point.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzTrace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        _ = exercise(bytes)
        return 0
    }

    /// The program's entry point: SwiftPM links `main` to `<module>_main`, so libFuzzer's own `main`
    /// is not used; this hands the command line to libFuzzer's driver instead.
    @_cdecl("sensorbridge_fuzz_trace_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzTrace(data, size) }
    }
#else
    @main
    enum FuzzReplay {
        static func main() { FuzzFiles.run(program: "sensorbridge-fuzz-trace", counted: "values, samples and bytes", exercise) }
    }
#endif
