public import Foundation

extension Thread {
    /// Names the calling thread for Foundation and for the kernel (`top -H`, perf,
    /// `/proc/PID/task/TID/comm`) at once. Foundation alone gives the kernel the name only when it
    /// already knows the thread's handle, which a thread that has just started may run ahead of
    /// (about 1 start in 100 here, more under load): so the name, at most 15 bytes as the kernel
    /// keeps it, is also written to `/proc/thread-self/comm`.
    public static func nameCurrent(_ name: String) {
        Thread.current.name = name
        guard let comm = FileHandle(forWritingAtPath: "/proc/thread-self/comm") else { return }
        try? comm.write(contentsOf: Data(name.utf8.prefix(15)))
        try? comm.close()
    }
}
