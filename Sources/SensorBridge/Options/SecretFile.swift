import Foundation
import Outputs

/// A file that holds a secret (a token, a password, a private key): read only when it is a
/// regular file that not every user of the machine may read, as ssh refuses such a key. Group
/// read stays allowed, so a service's group can share it.
enum SecretFile {
    /// The bytes of `path`, or a usage error naming `option` that ends with `advice` (how to make a
    /// good one).
    static func read(_ path: String, option: String, advice: String) throws(UsageError) -> Data {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw UsageError("\(option) \(path): \(String(cString: strerror(errno))); \(advice)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw UsageError("\(option) \(path) is not a file; \(advice)")
        }
        guard status.st_mode & S_IROTH == 0 else {
            throw UsageError("\(option) \(path) is readable by every user of this machine; make it yours alone: chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(option) \(path) cannot be read (permission denied); run as its owner, or \(advice)")
        }
        return data
    }
}
