import GATT
import SensorBridge
import SensorCore
import SensorTestSupport
import Testing
import Outputs

@Suite struct DecodeCommandTests {
    @Test func singlePayloadPrintsOneObjectInOrder() {
        let run = runCLI(["decode", "--uuid", "2a37", "--hex", "16480003"])
        #expect(run.status == .success)
        #expect(run.output == #"{"uuid":"2a37","heartRate":72,"sensorContact":"detected","rrIntervals":[0.75]}"# + "\n")
    }

    @Test func everyCyclingPowerKeyInSpecificationOrder() throws {
        // The all-fields payload of CyclingPowerMeasurementTests.everyFieldInFlagOrder.
        let hex = "ff1f2c01654006102700000008640000 02f40138ff4001e0ffbc3a120a00be00d204".replacingOccurrences(of: " ", with: "")
        let run = runCLI(["decode", "--uuid", "2A63", "--hex", hex])
        #expect(run.status == .success)
        let object = try #require(try JSONValue(parsing: run.output).objectValue)
        #expect(
            object.keys == [
                "uuid", "instantaneousPower", "pedalPowerBalance", "pedalPowerBalanceReference", "accumulatedTorque",
                "accumulatedTorqueSource", "wheelRevolutions", "lastWheelEventTime", "crankRevolutions",
                "lastCrankEventTime", "maximumForceMagnitude", "minimumForceMagnitude", "maximumTorqueMagnitude",
                "minimumTorqueMagnitude", "maximumAngle", "minimumAngle", "topDeadSpotAngle", "bottomDeadSpotAngle",
                "accumulatedEnergy", "offsetCompensationIndicator",
            ])
        #expect(object["pedalPowerBalance"] == 50.5)
        #expect(object["pedalPowerBalanceReference"] == "left")
        #expect(object["accumulatedTorque"] == 50)
        #expect(object["lastWheelEventTime"] == 1)
        #expect(object["lastCrankEventTime"] == 0.5)
        #expect(object["maximumTorqueMagnitude"] == 10)
        #expect(object["minimumTorqueMagnitude"] == -1)
        #expect(object["maximumAngle"] == 2748)
        #expect(object["minimumAngle"] == 291)
        #expect(object["offsetCompensationIndicator"] == true)
    }

    @Test func undecodablePayloadIsAnErrorObjectAndExitStatus1() throws {
        // flags 0x18 (energy, RR), 72 bpm, and the flagged energy cut short
        let run = runCLI(["decode", "--uuid", "2a37", "--hex", "184810"])
        #expect(run.status == .failure)
        let object = try JSONValue(parsing: run.output)
        #expect(object["uuid"] == "2a37")
        #expect(object["error"]?["kind"] == "truncated")
        #expect(object["error"]?["field"] == "energyExpended")
        #expect(object["error"]?["offset"] == 2)
    }

    /// The README's example: a stray odd byte after the RR intervals is trailing, not an error.
    @Test func aStrayByteAfterTheRRIntervalsIsTrailing() throws {
        let run = runCLI(["decode", "--uuid", "2a37", "--hex", "1048000300"])
        #expect(run.status == .success, "\(run.output)")
        let object = try JSONValue(parsing: run.output)
        #expect(object["heartRate"] == 72)
        #expect(object["rrIntervals"]?.arrayValue?.count == 1)
        #expect(object["trailingBytes"] == 1)
    }

    @Test func unknownUUIDAndBadHexAreTheirOwnKinds() throws {
        let unknown = runCLI(["decode", "--uuid", "2a6e", "--hex", "00"])
        #expect(unknown.status == .failure)
        #expect(try JSONValue(parsing: unknown.output)["error"]?["kind"] == "unknownUUID")
        let notUUID = runCLI(["decode", "--uuid", "heart", "--hex", "00"])
        #expect(try JSONValue(parsing: notUUID.output)["error"]?["kind"] == "unknownUUID")
        let badHex = runCLI(["decode", "--uuid", "2a37", "--hex", "164"])
        #expect(badHex.status == .failure)
        #expect(try JSONValue(parsing: badHex.output)["error"]?["kind"] == "badHex")
    }

    @Test func jsonlDecodesEveryLineInOrder() throws {
        let input = """
            {"uuid":"2a63","hex":"2000c8000a00e803"}
            {"uuid":"2a63","hex":"2000c8000a00e8"}

            not json
            {"hex":"00"}
            {"uuid":"2a5b","hex":"0214000006","extra":1}
            {"uuid":"2a19","hex":"57"}
            """
        let run = runCLI(["decode", "--jsonl"], input: input)
        #expect(run.status == .success)
        let lines = try jsonLines(run.output)
        #expect(lines.count == 6)  // the blank line gives no output
        #expect(lines[0]["instantaneousPower"] == 200)
        #expect(lines[0]["crankRevolutions"] == 10)
        #expect(lines[1]["error"]?["kind"] == "truncated")
        #expect(lines[2]["error"]?["kind"] == "badLine")
        #expect(lines[2]["error"]?["line"] == 4)
        #expect(lines[3]["error"]?["kind"] == "badLine")
        #expect(lines[4]["crankRevolutions"] == 20)
        #expect(lines[4]["lastCrankEventTime"] == 1.5)
        #expect(lines[5]["batteryLevel"] == 87)
    }

    @Test func jsonlMatchesTheSingleForm() throws {
        var rng = SplitMix64(seed: 7)
        var input = ""
        var expected: [String] = []
        for _ in 0..<200 {
            let bytes = RandomMeasurements.cyclingPower(using: &rng).encoded()
            let hex = Hex.encode(bytes)
            input += #"{"uuid":"2a63","hex":"\#(hex)"}"# + "\n"
            expected.append(runCLI(["decode", "--uuid", "2a63", "--hex", hex]).output)
        }
        let run = runCLI(["decode", "--jsonl"], input: input)
        #expect(run.output.split(separator: "\n").map { $0 + "\n" } == expected)
    }

    @Test func trailingBytesAreReported() throws {
        let run = runCLI(["decode", "--uuid", "2a38", "--hex", "0100ff"])
        #expect(run.status == .success)
        #expect(run.output == #"{"uuid":"2a38","bodySensorLocation":"chest","trailingBytes":2}"# + "\n")
    }

    @Test func usageErrorsSayWhatToDo() {
        let missing = runCLI(["decode", "--uuid", "2a37"])
        #expect(missing.status == .usage)
        #expect(missing.errors.contains("--hex"))
        let unknown = runCLI(["decode", "--hexx", "00"])
        #expect(unknown.status == .usage)
        #expect(unknown.errors.contains("sensorbridge decode --help"))
        let both = runCLI(["decode", "--jsonl", "--uuid", "2a37"])
        #expect(both.status == .usage)
        let help = runCLI(["decode", "--help"])
        #expect(help.status == .success)
        #expect(help.output.contains("sensorbridge decode --uuid 2a37 --hex 16480003"))
    }

    @Test func unknownCommandAndOverview() {
        #expect(runCLI(["frobnicate"]).status == .usage)
        #expect(runCLI([]).status == .usage)
        let help = runCLI(["--help"])
        #expect(help.status == .success)
        #expect(help.output.contains("decode"))
    }
}
