import Dispatch
import Glibc

/// While installed, SIGINT, SIGTERM and SIGHUP first remove the temporaries of unfinished
/// `.replace` output files, then end the process as they would have (killed by that signal, so
/// that a shell sees the interruption). For commands that do not handle these signals themselves
/// (`convert`, `export`). A signal the process ignores (SIGHUP under `nohup`) stays ignored;
/// `cancel()` gives each signal back the action it had.
public final class OutputFileSignals {
    private let watched: [(number: Int32, previous: __sighandler_t?, source: any DispatchSourceSignal)]

    public init() {
        watched = [SIGINT, SIGTERM, SIGHUP].compactMap { number in
            // Ignored at the process level, received by the dispatch source instead.
            let previous = signal(number, SIG_IGN)
            if Self.isIgnore(previous) { return nil }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                OutputFile.removeTemporaries {
                    // The default action, delivered to this thread (dispatch threads block signals).
                    signal(number, SIG_DFL)
                    var set = sigset_t()
                    sigemptyset(&set)
                    sigaddset(&set, number)
                    pthread_sigmask(SIG_UNBLOCK, &set, nil)
                    raise(number)
                    _exit(128 + number)
                }
            }
            source.resume()
            return (number, previous, source)
        }
    }

    public func cancel() {
        for (number, previous, source) in watched {
            source.cancel()
            signal(number, previous)
        }
    }

    private static func isIgnore(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
