import CMosquitto
import Foundation

/// A libmosquitto call that failed: which one, its result code, and libmosquitto's words for it
/// (for `MOSQ_ERR_ERRNO`, the system's: "Connection refused").
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libmosquitto function that failed (`mosquitto_connect`).
    public let function: String
    /// Its `MOSQ_ERR_*` result, or the CONNACK code for `connack`.
    public let code: Int32
    public let description: String

    init(_ function: String, code: Int32, errno: Int32 = 0) {
        self.function = function
        self.code = code
        if code == MOSQ_ERR_ERRNO.rawValue, errno != 0 {
            description = String(cString: strerror(errno))
        } else {
            description = String(cString: mosquitto_strerror(code))
        }
    }

    /// A broker that answered CONNACK with a refusal (`Connection Refused: not authorised.`).
    init(connack code: Int32) {
        function = "connack"
        self.code = code
        description = String(cString: mosquitto_connack_string(code))
    }
}
