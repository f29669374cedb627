public import Session
import Foundation
import Outputs

/// Where a command writes text: buffered, flushed in large writes (a JSONL decode of a million
/// lines must not make a million `write` calls).
public final class TextOutput {
    private enum Target {
        case fileHandle(FileHandle)
        case memory
    }

    private let target: Target
    private var buffer: [UInt8] = []
    private var captured: [UInt8] = []
    private let flushThreshold = 64 * 1024

    /// Output to a file handle (standard output or error).
    init(fileHandle: FileHandle) {
        target = .fileHandle(fileHandle)
        buffer.reserveCapacity(flushThreshold * 2)
    }

    /// Output kept in memory; read it with `text`. For tests.
    public init() {
        target = .memory
    }

    public func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes bytes as they are (a binary file sent to standard output).
    public func write(bytes: [UInt8]) {
        flush()
        buffer = bytes
        flush()
    }

    /// Writes `string` followed by a newline.
    public func line(_ string: String) {
        write(string)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes UTF-8 bytes followed by a newline.
    public func line(utf8 bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { flush() }
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        switch target {
        case .fileHandle(let handle):
            // A closed pipe (`sensorbridge decode ... | head`) must not crash us; SIGPIPE is ignored in main.
            try? handle.write(contentsOf: buffer)
        case .memory:
            captured.append(contentsOf: buffer)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Everything written so far, as bytes, for in-memory outputs.
    public var bytes: [UInt8] {
        flush()
        return captured
    }

    /// Everything written so far, for in-memory outputs.
    public var text: String {
        flush()
        return String(decoding: captured, as: UTF8.self)
    }

    deinit { flush() }
}

/// Reads text lines from standard input (or any bytes, in tests) in large chunks.
public final class LineReader {
    private let handle: FileHandle?
    private var pending: [UInt8] = []
    private var start = 0
    private var finished = false

    /// Whether a read takes what is there (a terminal: the line just typed) rather than waiting
    /// for a whole chunk.
    private let readsWhatIsThere: Bool

    init(fileHandle: FileHandle) {
        handle = fileHandle
        readsWhatIsThere = isatty(fileHandle.fileDescriptor) == 1
    }

    /// A reader over fixed text, for tests.
    public init(text: String) {
        handle = nil
        pending = Array(text.utf8)
        finished = true
        readsWhatIsThere = false
    }

    /// The next line without its terminator (`\n` or `\r\n`), or nil at the end of input.
    /// A last line without a newline is still a line.
    public func nextLine() -> [UInt8]? {
        while true {
            if let newline = pending[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, pending[end - 1] == 0x0D { end -= 1 }
                let line = Array(pending[start..<end])
                start = newline + 1
                return line
            }
            if finished {
                guard start < pending.count else { return nil }
                let line = Array(pending[start...])
                start = pending.count
                return line
            }
            pending.removeSubrange(0..<start)
            start = 0
            let chunk = (readsWhatIsThere ? handle?.availableData : handle?.readData(ofLength: 256 * 1024)) ?? Data()
            if chunk.isEmpty { finished = true } else { pending.append(contentsOf: chunk) }
        }
    }
}

/// What a command runs with: its input, outputs and environment. `CommandContext.standard` is
/// the process's own; tests build one in memory.
public struct CommandContext {
    public var input: LineReader
    public var output: TextOutput
    public var errors: TextOutput
    public var environment: [String: String]
    /// Whether standard output is a terminal (progress and colour only then).
    public var outputIsTerminal: Bool
    /// Whether standard error is a terminal (progress lines only then).
    public var errorsAreTerminal: Bool
    /// Whether standard input is a terminal: someone to ask before deleting (`confirm`).
    public var inputIsTerminal: Bool
    /// Ends a live recording from another thread (tests); the process's own signals do it otherwise.
    public var recordingControl: RecordingControl?

    public init(
        input: LineReader, output: TextOutput, errors: TextOutput, environment: [String: String] = [:],
        outputIsTerminal: Bool = false, errorsAreTerminal: Bool = false, inputIsTerminal: Bool = false
    ) {
        self.input = input
        self.output = output
        self.errors = errors
        self.environment = environment
        self.outputIsTerminal = outputIsTerminal
        self.errorsAreTerminal = errorsAreTerminal
        self.inputIsTerminal = inputIsTerminal
    }

    /// Asks `question` (ending in `[y/N] `) on standard error and reads the answer from standard
    /// input: true for y or yes, false for anything else or the end of input (then a newline ends
    /// the question's line). Callers ask only when `inputIsTerminal`: from a script or a pipe
    /// nobody answers, and commands go ahead as they always did.
    func confirm(_ question: String) -> Bool {
        errors.write(question)
        errors.flush()
        guard let answer = input.nextLine() else {
            errors.line("")
            return false
        }
        let word = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        return word == "y" || word == "yes"
    }

    /// The time zone of dates on the command line and in human output: `TZ` from the environment
    /// when it names a zone (`Europe/Paris`, `UTC`), else the system's.
    var timeZone: TimeZone {
        environment["TZ"].flatMap { TimeZone(identifier: $0) } ?? .current
    }

    /// The Gregorian calendar in `timeZone`.
    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// `2026-11-02 18:30 +01:00` (`... UTC`): `date` in `timeZone` with its offset (`TimeText`).
    func localTime(_ date: Date) -> String { TimeText.local(date, in: timeZone) }

    /// `2026-11-02T18:30:00+01:00`: `date` as JSON gives it, in `timeZone` (`TimeText`).
    func instant(_ date: Date, alwaysMilliseconds: Bool = false) -> String {
        TimeText.instant(date, in: timeZone, alwaysMilliseconds: alwaysMilliseconds)
    }

    public static func standard() -> CommandContext {
        CommandContext(
            input: LineReader(fileHandle: .standardInput),
            output: TextOutput(fileHandle: .standardOutput),
            errors: TextOutput(fileHandle: .standardError),
            environment: ProcessInfo.processInfo.environment,
            outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorsAreTerminal: isatty(STDERR_FILENO) == 1,
            inputIsTerminal: isatty(STDIN_FILENO) == 1
        )
    }
}
