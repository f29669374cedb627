import Captures
import Export
import Foundation
import Outputs
import SensorCore
import Workouts
import WorkoutStore

/// `sensorbridge export`: stored workouts to FIT, TCX, CSV or SVG files.
enum ExportCommand {
    static let help = """
        Usage: sensorbridge export ID|latest [ID...] --format fit|tcx|csv|svg [-o FILE|DIR|-] [--force] [--json] [--store PATH]
               sensorbridge export --all --format FORMAT [-o DIR] [--force] [--json] [--store PATH]

        Writes stored workouts as files other tools import:
          fit   Garmin FIT activity (Garmin Connect, Strava, intervals.icu, TrainingPeaks, GoldenCheetah)
          tcx   Garmin Training Center XML with power (the same tools; Strava and GoldenCheetah read it)
          csv   one row per second with a value: time, heart rate, power, cadence, speed, zones (spreadsheets, pandas)
          svg   a chart of heart rate and power on their zones, with time-in-zone bars (any browser)

        A file is named after its workout's start (local time, or $TZ) and id, for example
        2026-11-02-1730-workout-1.fit, in the current folder unless -o says otherwise. A file that
        exists stops the export before anything is written, unless --force is given; then it is
        replaced, whole: each file is written to a temporary beside it and renamed over it when
        complete; an error or Ctrl-C removes the temporary.

        FIT files carry the profile (FTP, maximum and resting heart rate) the workout was recorded
        with, not today's. Workouts saved before sensorbridge kept it have none: their FIT files
        leave those fields out, and a note on standard error says so.

        Options:
          --format FORMAT            fit, tcx, csv or svg (default: from the -o file's extension)
          -o, --output PATH          a file (one workout), a folder (made when missing with several
                                     workouts or --all), or - for standard output (one workout)
          --all                      every finished workout
          --force                    replace files that exist
          --json                     {"files":[{"id":1,"path":"...","bytes":123456}, ...]} on
                                     standard output, in the order written
        \(StoreLocation.help)

        With several workouts, progress goes to standard error when it is a terminal (one line per
        file); piped, it stays quiet. Exit status 1 when a workout does not exist, a file exists
        (without --force) or a file cannot be written (nothing is written when an id is unknown or
        a file exists), 2 for a wrong command line.

        Examples:
          sensorbridge export latest --format fit
          sensorbridge export 12 --format tcx -o ride.tcx
          sensorbridge export 12 --format tcx -o ride.tcx --force      (ride.tcx exists: replace it)
          sensorbridge export latest --format svg -o - > ride.svg
          sensorbridge export 3 4 5 --format csv -o exports/
          sensorbridge export --all --format fit -o ~/fit --json
        """

    /// Where the files go.
    private enum Destination {
        case standardOutput
        case file(String)
        case folder(String)
    }

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "export", options: ["format", "output", StoreLocation.option], flags: ["all", "json", "force"],
            shortOptions: ["-o": "output"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        let format = try self.format(arguments)
        let all = arguments.has("all")
        if all && !arguments.positionals.isEmpty {
            throw UsageError("give workout ids or --all, not both")
        }
        if !all && arguments.positionals.isEmpty {
            throw UsageError(
                "give the workout: an id from 'sensorbridge workouts list', latest, several ids, or --all")
        }
        let references = try arguments.positionals.map { text throws(UsageError) -> WorkoutsCommand.WorkoutReference? in
            text == "latest" ? nil : try WorkoutsCommand.workoutID(text)
        }
        let several = all || references.count > 1
        if arguments["output"] == "-" {
            guard !several else { throw UsageError("-o - writes one workout to standard output; for several give -o DIRECTORY") }
            guard !arguments.has("json") else {
                throw UsageError("--json prints what was written to standard output; with -o - the file goes there, so leave out --json")
            }
        }
        guard let store = try StoreLocation.openIfPresent(arguments, context) else {
            context.errors.line(
                "sensorbridge export: there is no workout store yet at \(try StoreLocation.path(arguments, context) ?? "?"); "
                    + "save a workout first ('sensorbridge replay FILE --save' or 'sensorbridge record --save')")
            return .failure
        }
        let requested = try references.map { try $0?.id(in: store) }
        let finished = try store.workouts().filter(\.isFinished)
        var ids: [WorkoutID] = all ? finished.map(\.id) : []
        for id in requested {
            if let id = try id ?? store.latestWorkoutID(), !ids.contains(id) { ids.append(id) }
        }
        guard !ids.isEmpty else {
            context.errors.line("sensorbridge export: there are no finished workouts in \(store.path) yet")
            return .failure
        }
        // Before anything is written, an id that is not a finished workout stops the export with the
        // store's message (unknown: see 'workouts list'; unfinished: 'workouts recover').
        for id in ids where !finished.contains(where: { $0.id == id }) { _ = try store.workout(id) }
        let destination = try self.destination(arguments, several: several)
        // Where each workout goes (none for standard output); every id is a finished workout's now.
        let startDates = Dictionary(uniqueKeysWithValues: finished.map { ($0.id, $0.startDate) })
        let paths: [WorkoutID: String] = Dictionary(
            uniqueKeysWithValues: ids.compactMap { id -> (WorkoutID, String)? in
                switch destination {
                case .standardOutput: return nil
                case .file(let file): return (id, file)
                case .folder(let folder):
                    let name = fileName(startDate: startDates[id]!, id: id, format, context)
                    return (id, URL(fileURLWithPath: folder).appendingPathComponent(name).path)
                }
            })
        let force = arguments.has("force")
        // Before anything is written, a file that is there stops the export unless --force.
        if !force { try refuseExisting(ids.compactMap { paths[$0] }, several: several) }
        // Ctrl-C, SIGTERM and SIGHUP leave no temporary behind.
        let signals = OutputFileSignals()
        defer { signals.cancel() }
        var written: [(id: WorkoutID, path: String, bytes: Int)] = []
        for (number, id) in ids.enumerated() {
            let workout = try store.workout(id)
            if workout.profile == nil && format == .fit {
                context.errors.line(
                    "sensorbridge export: workout \(id) was saved before sensorbridge kept the profile with each workout; "
                        + "its FIT file has no FTP, maximum or resting heart rate (today's profile may not be the one its zones came from)")
            }
            let bytes = format.encode(workout, timeZone: context.timeZone)
            guard let path = paths[id] else {
                context.output.write(bytes: bytes)
                continue
            }
            try write(bytes, to: path, replacing: force)
            written.append((id, path, bytes.count))
            if several && context.errorsAreTerminal {
                context.errors.line("exported \(number + 1) of \(ids.count): workout \(id)")
                context.errors.flush()
            }
        }
        if arguments.has("json") {
            let files = written.map { file -> JSONValue in
                var object = JSONObject()
                object.append("id", .number(Double(file.id.rawValue)))
                object.append("path", .string(file.path))
                object.append("bytes", .number(Double(file.bytes)))
                return .object(object)
            }
            context.output.line(JSONValue.object(["files": .array(files)]).serialized)
        } else {
            for file in written { context.output.line("Wrote workout \(file.id) to \(file.path) (\(file.bytes) bytes).") }
        }
        return .success
    }

    /// `--format`, else the extension of `-o FILE`.
    private static func format(_ arguments: CommandArguments) throws(UsageError) -> ExportFormat {
        let names = ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")
        if let text = arguments["format"] {
            guard let format = ExportFormat(rawValue: text.lowercased()) else {
                throw UsageError("unknown format '\(text)'; give one of \(names)")
            }
            return format
        }
        if let output = arguments["output"], let format = ExportFormat(rawValue: (output as NSString).pathExtension.lowercased()) {
            return format
        }
        throw UsageError("give the format: --format and one of \(names)")
    }

    private static func destination(_ arguments: CommandArguments, several: Bool) throws -> Destination {
        guard let output = arguments["output"] else { return .folder(FileManager.default.currentDirectoryPath) }
        if output == "-" { return .standardOutput }
        guard !output.isEmpty else { throw UsageError("-o needs a file or folder path, or - for standard output") }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), isFolder.boolValue {
            return .folder(output)
        }
        guard several else { return .file(output) }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw ExportError(
                "cannot make the folder \(output) for the files (\(reason(error))); give -o a folder you can write in")
        }
        return .folder(output)
    }

    /// `2026-11-02-1730-workout-1.fit`: the start in local time (or $TZ), the id and the format.
    static func fileName(startDate: Date, id: WorkoutID, _ format: ExportFormat, _ context: CommandContext) -> String {
        let parts = context.calendar.dateComponents([.year, .month, .day, .hour, .minute], from: startDate)
        func two(_ value: Int?) -> String { String(String((value ?? 0) + 100).suffix(2)) }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))-\(two(parts.hour))\(two(parts.minute))"
            + "-workout-\(id).\(format.rawValue)"
    }

    /// Stops the export when something is at one of `paths`, saying which and what to do.
    private static func refuseExisting(_ paths: [String], several: Bool) throws {
        let taken = paths.filter(OutputFile.isTaken)
        guard let first = taken.first else { return }
        guard several else {
            throw ExportError("\(first) exists; nothing was written. Give --force to replace it, or -o another name")
        }
        let shown = taken.prefix(3).joined(separator: ", ") + (taken.count > 3 ? " and \(taken.count - 3) more" : "")
        throw ExportError(
            "\(taken.count) of the \(paths.count) files exist (\(shown)); nothing was written. Give --force to replace them, "
                + "or -o another folder")
    }

    /// Writes `bytes` to `path` through a temporary; with `replacing` false a file that appeared
    /// at `path` meanwhile is left as it is.
    private static func write(_ bytes: [UInt8], to path: String, replacing: Bool) throws {
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder),
            isFolder.boolValue
        else {
            throw ExportError("cannot write \(path): there is no folder \(folder); make it first, or give -o another path")
        }
        do {
            let file = try OutputFile(URL(fileURLWithPath: path), mode: replacing ? .replace : .create)
            try file.write(bytes)
            try file.commit()
        } catch where error.step == .exists {
            throw ExportError("\(error); give --force to replace it, or -o another name")
        } catch {
            throw ExportError("\(error); give -o a file or folder you can write to")
        }
    }

    /// The POSIX reason behind a Foundation file error, when it has one.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }

    /// A file could not be written; exit status 1.
    struct ExportError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
