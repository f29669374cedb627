import Foundation

/// The fuzz targets' program when built without libFuzzer: runs the harness over each file named
/// on the command line (an input libFuzzer saved), printing what came out.
public enum FuzzFiles {
    /// Runs `exercise` over every file in the arguments; `program` names the target in the usage
    /// line, `counted` what its count counts.
    public static func run(program: String, counted: String, _ exercise: ([UInt8]) -> Int) -> Never {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(program) FILE...  (runs the fuzz harness over each file)\n".utf8))
            exit(2)
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(1)
            }
            print("\(path): \(exercise([UInt8](data))) \(counted)")
        }
        exit(0)
    }
}
