import Glibc

/// Why an output file could not be written: the step, the destination and the system's reason.
public struct OutputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Step: Sendable, Equatable {
        /// Creating the file (or its temporary) in the destination's folder.
        case create
        case write
        /// `fsync(2)`: the data did not reach the disk.
        case sync
        /// Renaming the temporary over the destination (linking it there, for `.create`).
        case rename
        /// `.create`: something is at the destination, and it was left as it is.
        case exists
        /// The destination is a symbolic link that leads to no file; it was left as it is.
        case link
    }

    public let step: Step
    /// The destination.
    public let path: String
    public let errno: Int32

    public init(_ step: Step, path: String, errno: Int32) {
        self.step = step
        self.path = path
        self.errno = errno
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch step {
        case .create: return "cannot create \(path) (\(reason)): check that its folder exists and is writable"
        case .write: return "cannot write \(path) (\(reason))"
        case .sync: return "cannot write \(path) to the disk (\(reason))"
        case .rename: return "cannot replace \(path) (\(reason))"
        case .exists: return "\(path) exists and was left as it is"
        case .link:
            return "\(path) is a symbolic link that leads to no file (\(reason)) and was left as it is: give the file it "
                + "should lead to, or remove the link"
        }
    }
}
