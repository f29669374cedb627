import Captures
import Foundation
import GATT
import Outputs
import SensorCore

/// `sensorbridge decode --capture FILE [--jsonl]`: every notification of a btsnoop capture (or a
/// JSONL trace) with its time, link, handle, characteristic and decoded fields.
enum CaptureDecoding {
    /// One notification on its way out.
    struct Line {
        var time: BtsnoopTime
        /// `time`, `record`, `adapter`, `connection`, `handle`, `direction`, `pdu` (btsnoop) or
        /// `time`, `device` (trace): what comes before `uuid`.
        var link: JSONObject
        /// The table's link and handle columns.
        var linkColumn: String
        var handleColumn: String
        var uuid: BluetoothUUID?
        var bytes: [UInt8]
        /// The handle, for the message when no discovery named it.
        var handle: UInt16?
    }

    static func run(path: String, jsonl: Bool, handles: [UInt16: BluetoothUUID], _ context: CommandContext) throws
        -> ExitStatus
    {
        let url = URL(fileURLWithPath: path)
        var printer = Printer(jsonl: jsonl, output: context.output)
        let failure: String?
        // A file that cannot be read is reported by the command line, as every failure (status 1).
        if try CaptureFile.kind(of: url) == .btsnoop {
            failure = btsnoop(url, handles: handles, &printer, context)
        } else {
            guard handles.isEmpty else {
                throw UsageError("--handle maps the handles of a btsnoop capture; \(path) is a JSONL trace")
            }
            failure = trace(url, &printer, context)
        }
        guard let failure else { return .success }
        context.errors.line("sensorbridge decode: \(path): \(failure)")
        return .failure
    }

    /// Prints the capture's notifications; the reason it stopped early, if it did.
    private static func btsnoop(
        _ url: URL, handles: [UInt16: BluetoothUUID], _ printer: inout Printer, _ context: CommandContext
    ) -> String? {
        let reader: BtsnoopReader
        do {
            reader = try BtsnoopReader(contentsOf: url, assumedHandles: handles)
        } catch {
            return error.description
        }
        defer {
            if let skipped = reader.statistics.summary {
                context.errors.line("sensorbridge decode: \(url.path): skipped \(skipped)")
            }
        }
        do {
            while let event = try reader.next() {
                guard case .notification(let n) = event.kind else { continue }
                let link: JSONObject = [
                    "time": .number(event.time.secondsSince1970), "record": .number(Double(event.record)),
                    "adapter": .number(Double(n.connection.adapter)),
                    "connection": .number(Double(n.connection.handle)),
                    "handle": .number(Double(n.handle)),
                    "direction": .string(n.direction == .received ? "received" : "sent"),
                    "pdu": .string(n.isIndication ? "indication" : "notification"),
                ]
                printer.print(
                    Line(
                        time: event.time, link: link, linkColumn: hex(n.connection.handle), handleColumn: hex(n.handle),
                        uuid: n.uuid, bytes: Array(n.value), handle: n.handle))
            }
        } catch {
            return error.description
        }
        return nil
    }

    private static func trace(_ url: URL, _ printer: inout Printer, _ context: CommandContext) -> String? {
        do {
            let reader = try TraceReader(contentsOf: url)
            defer {
                if let cut = reader.skippedLastLine { context.errors.line("sensorbridge decode: \(url.path): \(cut)") }
            }
            let start = BtsnoopTime(reader.header.start)
            while let record = try reader.next() {
                guard case .notification(let t, let device, let uuid, let bytes) = record else { continue }
                let time = start.adding(t)
                printer.print(
                    Line(
                        time: time, link: ["time": .number(time.secondsSince1970), "device": .string(device)],
                        linkColumn: device, handleColumn: "-", uuid: uuid, bytes: bytes))
            }
        } catch {
            return error.description
        }
        return nil
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Writes lines as JSON objects or as a table.
    struct Printer {
        let jsonl: Bool
        let output: TextOutput
        private var text: [UInt8] = []
        private var printedHeading = false

        init(jsonl: Bool, output: TextOutput) {
            self.jsonl = jsonl
            self.output = output
        }

        mutating func print(_ line: Line) {
            let decoded: JSONValue
            if let uuid = line.uuid {
                decoded = DecodeCommand.decode(uuid: uuid, bytes: line.bytes).json
            } else {
                let handle = line.handle.map(CaptureDecoding.hex) ?? "?"
                decoded = DecodeCommand.errorObject(
                    uuid: nil, kind: "undiscoveredHandle",
                    message: "no discovery in the capture named handle \(handle); give --handle \(handle)=UUID")
            }
            var object = line.link
            object.append("uuid", line.uuid.map { .string($0.description) } ?? .null)
            object.append("hex", .string(Hex.encode(line.bytes)))
            var fields: [String] = []
            for pair in decoded.objectValue?.pairs ?? [] where pair.key != "uuid" {
                object.append(pair.key, pair.value)
                if pair.key == "error" {
                    fields.append("error: " + (pair.value["message"]?.stringValue ?? ""))
                } else {
                    fields.append("\(pair.key)=\(pair.value.stringValue ?? pair.value.serialized)")
                }
            }
            if jsonl {
                text.removeAll(keepingCapacity: true)
                JSONValue.object(object).write(to: &text)
                output.line(utf8: text)
                return
            }
            if !printedHeading {
                output.line("time (UTC)                   link    handle  uuid  value")
                printedHeading = true
            }
            let uuid = line.uuid?.description ?? "?"
            output.line(
                "\(line.time)  \(pad(line.linkColumn, 6))  \(pad(line.handleColumn, 6))  \(pad(uuid, 4))  \(fields.joined(separator: " "))"
            )
        }

        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
    }
}
