import Foundation
import SensorBridge

// A reader that closes the pipe early (`| head`) ends us quietly instead of killing us with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
let status = SensorBridgeCLI.run(Array(CommandLine.arguments.dropFirst()), context: .standard())
exit(status.rawValue)
