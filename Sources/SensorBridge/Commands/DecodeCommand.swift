import GATT
import Outputs
import SensorCore

/// `sensorbridge decode`: GATT notification payloads to JSON, for anyone debugging a sensor.
enum DecodeCommand {
    static let help = """
        Usage: sensorbridge decode --uuid UUID --hex HEX
               sensorbridge decode --jsonl < lines.jsonl
               sensorbridge decode --capture FILE [--jsonl] [--handle H=UUID,...]

        Decodes GATT characteristic values (Heart Rate Measurement 2a37, Cycling Power
        Measurement 2a63, Cycling Power Vector 2a64, CSC Measurement 2a5b, Cycling Power
        Feature 2a65, Sensor Location 2a5d, Body Sensor Location 2a38, Battery Level 2a19)
        into JSON with the SIG field names in lowerCamelCase and SI units.

        Options:
          --uuid UUID   the characteristic: 2a37, 0x2A37 or the 128-bit form
          --hex HEX     the value's bytes as hex (spaces or colons between bytes allowed)
          --jsonl       read lines {"uuid":"2a63","hex":"..."} on standard input and write
                        one JSON object per line, in order
          --capture FILE
                        every notification and indication in a btsnoop capture ('btmon -w',
                        Android's btsnoop_hci.log) or a JSONL trace, in order: a table, or
                        with --jsonl one JSON object per line: {"time" (Unix seconds),
                        "record", "adapter", "connection", "handle", "direction", "pdu",
                        "uuid", "hex", then the decoded fields} ("device" instead of the
                        link keys for a JSONL trace)
        \(HandleMapArgument.help)

        Examples:
          sensorbridge decode --uuid 2a37 --hex 16480003
          {"uuid":"2a37","heartRate":72,"sensorContact":"detected","rrIntervals":[0.75]}
          echo '{"uuid":"2a63","hex":"2000c8000a00e803"}' | sensorbridge decode --jsonl
          sensorbridge decode --capture btsnoop_hci.log --jsonl

        A payload that does not decode prints {"uuid":...,"error":{"kind":"truncated",
        "field":...,"offset":...,"message":...}}; error kinds are truncated, malformed,
        unknownUUID, badHex and badLine, and undiscoveredHandle for a capture's handle no
        discovery named (give --handle). The single-payload form then exits with status 1;
        --capture exits with 1 only when the file cannot be read to its end.
        """

    static func run(_ words: [String], _ context: CommandContext) throws -> ExitStatus {
        let arguments = try CommandArguments(
            words, command: "decode", options: ["uuid", "hex", "capture", HandleMapArgument.option], flags: ["jsonl"])
        if arguments.has("help") {
            context.output.line(help)
            return .success
        }
        try arguments.expectPositionals(atMost: 0)
        if let path = arguments["capture"] {
            guard arguments["uuid"] == nil, arguments["hex"] == nil else {
                throw UsageError("--capture takes each notification's uuid and bytes from the file; leave out --uuid and --hex")
            }
            return try CaptureDecoding.run(
                path: path, jsonl: arguments.has("jsonl"), handles: try HandleMapArgument.parse(arguments), context)
        }
        if arguments[HandleMapArgument.option] != nil { throw UsageError("--handle goes with --capture FILE") }
        if arguments.has("jsonl") {
            guard arguments["uuid"] == nil, arguments["hex"] == nil else {
                throw UsageError("--jsonl reads uuid and hex from each input line; leave out --uuid and --hex")
            }
            decodeLines(context)
            return .success
        }
        guard let uuidText = arguments["uuid"] else {
            throw UsageError("give the characteristic with --uuid (for example --uuid 2a37), or use --jsonl")
        }
        guard let hex = arguments["hex"] else {
            throw UsageError("give the payload with --hex (for example --hex 16480003), or use --jsonl")
        }
        let (result, failed) = decode(uuid: uuidText, hex: hex)
        context.output.line(result.serialized)
        return failed ? .failure : .success
    }

    /// One line of output per non-blank input line, in order, errors included.
    static func decodeLines(_ context: CommandContext) {
        var lineNumber = 0
        var text: [UInt8] = []
        while let line = context.input.nextLine() {
            lineNumber += 1
            if !line.contains(where: { $0 != 0x20 && $0 != 0x09 }) { continue }
            let result: JSONValue
            let badLine: String?
            do {
                let object = try JSONValue(parsing: line)
                if let uuid = object["uuid"]?.stringValue, let hex = object["hex"]?.stringValue {
                    result = decode(uuid: uuid, hex: hex).json
                    badLine = nil
                } else {
                    result = .null
                    badLine = "expected an object with string members \"uuid\" and \"hex\""
                }
            } catch {
                result = .null
                badLine = "not JSON: \(error)"
            }
            let output = badLine.map {
                errorObject(
                    uuid: nil, kind: "badLine", message: "line \(lineNumber): \($0)",
                    extra: ["line": .number(Double(lineNumber))])
            } ?? result
            text.removeAll(keepingCapacity: true)
            output.write(to: &text)
            context.output.line(utf8: text)
        }
    }

    /// Decodes one payload to its output object; `failed` when that object is an error.
    static func decode(uuid uuidText: String, hex: String) -> (json: JSONValue, failed: Bool) {
        guard let uuid = BluetoothUUID(uuidText) else {
            return (
                errorObject(
                    uuid: uuidText, kind: "unknownUUID",
                    message: "'\(uuidText)' is not a Bluetooth UUID; write 2a37 or 00002a37-0000-1000-8000-00805f9b34fb"),
                true
            )
        }
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(hex)
        } catch {
            return (errorObject(uuid: uuid.description, kind: "badHex", message: error.description), true)
        }
        return decode(uuid: uuid, bytes: bytes)
    }

    /// Decodes one value of characteristic `uuid` to its output object.
    static func decode(uuid: BluetoothUUID, bytes: [UInt8]) -> (json: JSONValue, failed: Bool) {
        do {
            guard let value = try GATTValue.decode(uuid: uuid, bytes: bytes) else {
                let known = GATTValue.supportedUUIDs.map(\.description).joined(separator: ", ")
                return (
                    errorObject(
                        uuid: uuid.description, kind: "unknownUUID",
                        message: "characteristic \(uuid) is not one sensorbridge decodes (it decodes \(known))"),
                    true
                )
            }
            var object = JSONObject()
            object.append("uuid", .string(uuid.description))
            for pair in value.fields.pairs { object.append(pair.key, pair.value) }
            return (.object(object), false)
        } catch {
            return (
                errorObject(
                    uuid: uuid.description, kind: error.kind.rawValue, message: error.description,
                    extra: ["field": .string(error.field.rawValue), "offset": .number(Double(error.offset))]),
                true
            )
        }
    }

    static func errorObject(uuid: String?, kind: String, message: String, extra: JSONObject = [:]) -> JSONValue {
        var error = JSONObject()
        error.append("kind", .string(kind))
        for pair in extra.pairs { error.append(pair.key, pair.value) }
        error.append("message", .string(message))
        var object = JSONObject()
        if let uuid { object.append("uuid", .string(uuid)) }
        object.append("error", .object(error))
        return .object(object)
    }
}
