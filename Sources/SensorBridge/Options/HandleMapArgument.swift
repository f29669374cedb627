import Foundation
import GATT
import Outputs

/// `--handle 0x0012=2a37[,0x0022=2a63...]`: the characteristics of attribute handles that a
/// btsnoop capture never discovered (it began after the connection's discovery). The capture's
/// own discovery wins where it names a handle; the map fills the rest, on every connection.
enum HandleMapArgument {
    static let option = "handle"

    static let help = """
          --handle H=UUID,...        characteristics of value handles the capture never discovered,
                                     such as --handle 0x0012=2a37,0x0022=2a63 (handles in hex with
                                     0x, or decimal)
        """

    static func parse(_ arguments: CommandArguments) throws(UsageError) -> [UInt16: BluetoothUUID] {
        guard let text = arguments[option] else { return [:] }
        var map: [UInt16: BluetoothUUID] = [:]
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            let handleText = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let handle: UInt16? =
                handleText.lowercased().hasPrefix("0x")
                ? UInt16(handleText.dropFirst(2), radix: 16) : UInt16(handleText)
            guard parts.count == 2, let handle, let uuid = BluetoothUUID(parts[1].trimmingCharacters(in: .whitespaces))
            else {
                throw UsageError(
                    "--handle: '\(entry)' is not HANDLE=UUID; write for example --handle 0x0012=2a37,0x0022=2a63")
            }
            guard map[handle] == nil else {
                throw UsageError("--handle names handle \(handleText) twice; give it once")
            }
            map[handle] = uuid
        }
        return map
    }
}
