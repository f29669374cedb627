import Foundation
import Outputs
import Synchronization

/// The keys typed on standard input, one at a time, while the terminal is in non-canonical mode
/// without echo (Ctrl-C still sends SIGINT). `stop` gives the terminal its settings back.
final class TerminalKeys: Sendable {
    private struct State: @unchecked Sendable {
        var saved: termios?
        var stopped = false
    }

    private let state = Mutex(State())

    /// Puts standard input's terminal in key-at-a-time mode; false when standard input is not a
    /// terminal (keys are then not read).
    func start() -> Bool {
        guard isatty(STDIN_FILENO) == 1 else { return false }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return false }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return false }
        state.withLock { $0.saved = saved }
        return true
    }

    /// The next key; nil once stopped, or at the end of input.
    func next() -> Character? {
        while !state.withLock({ $0.stopped }) {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 200) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(STDIN_FILENO, &byte, 1) == 1 else { return nil }
            return Character(Unicode.Scalar(byte))
        }
        return nil
    }

    /// Stops reading and gives the terminal its settings back.
    func stop() {
        state.withLock { state in
            state.stopped = true
            if var saved = state.saved { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            state.saved = nil
        }
    }
}
