import Testing
import Outputs

/// The bridge-out suites (the web server, the browser, MQTT) block their thread for most of their
/// run (processes, brokers, paced rides): nested here they run one at a time, so that they never
/// hold every thread of the cooperative pool (one per core) and starve the async tests' time limits.
@Suite(.serialized) struct BridgeOutTests {}

typealias WebTests = BridgeOutTests.WebTests
