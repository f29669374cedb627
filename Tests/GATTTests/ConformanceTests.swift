import Foundation
import GATT
import SensorCore
import Testing

/// Every case of the Wireshark-decoded conformance set (`Tests/Fixtures/conformance`, a copy of
/// the project's `shared/conformance`): 720 payloads of 2A37, 2A63, 2A5B and 2A64.
///
/// Rules (see the fixture's README for where tshark 4.0 departs from the specification):
/// - the length is what the flags imply (`spec_len_ok`): the value decodes, with no trailing
///   bytes, to the `spec` values when given, and to tshark's values otherwise;
/// - the length is not what the flags imply: a case cut short throws `truncated`; extra bytes
///   after a complete value are reported as `trailingBytes`, and so is an odd stray byte after an
///   array of uint16 that ends a value (RR intervals, magnitude arrays), which holds as many
///   complete values as the bytes allow (the fixture files those cases as `trailing`).
@Suite struct ConformanceTests {
    struct Case {
        let index: Int
        let uuid: String
        let kind: String
        let payload: [UInt8]
        let specLengthOK: Bool
        let spec: JSONObject?
        let tshark: JSONObject
    }

    static let fixture: (cases: [Case], specToTshark: JSONObject) = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/conformance/gatt-cases.json")
        let data = try! Data(contentsOf: url)
        let root = try! JSONValue(parsing: [UInt8](data))
        let cases = root["cases"]!.arrayValue!.enumerated().map { index, c in
            Case(
                index: index, uuid: c["uuid"]!.stringValue!, kind: c["kind"]!.stringValue!,
                payload: try! Hex.decode(c["payload_hex"]!.stringValue!), specLengthOK: c["spec_len_ok"]!.boolValue!,
                spec: c["spec"]?.objectValue, tshark: c["tshark_fields"]!.objectValue!)
        }
        return (cases, root["meta"]!["spec_to_tshark"]!.objectValue!)
    }()

    @Test func fixtureHasAllCases() {
        #expect(Self.fixture.cases.count == 720)
    }

    /// Raw field values (transmitted units) by the fixture's SIG field names.
    static func rawFields(_ value: GATTValue) -> [String: [Int]] {
        var f: [String: [Int]] = [:]
        func add(_ wheel: WheelRevolutionData?) {
            guard let wheel else { return }
            f["cumulative_wheel_revolutions"] = [Int(wheel.cumulativeRevolutions)]
            f["last_wheel_event_time"] = [Int(wheel.lastEventTime)]
        }
        func add(_ crank: CrankRevolutionData?) {
            guard let crank else { return }
            f["cumulative_crank_revolutions"] = [Int(crank.cumulativeRevolutions)]
            f["last_crank_event_time"] = [Int(crank.lastEventTime)]
        }
        func add(_ extremes: ExtremeMagnitudes?, _ quantity: String) {
            guard let extremes else { return }
            f["maximum_\(quantity)_magnitude"] = [Int(extremes.maximum)]
            f["minimum_\(quantity)_magnitude"] = [Int(extremes.minimum)]
        }
        switch value {
        case .heartRateMeasurement(let m):
            f["flags"] = [Int(m.flags)]
            f[m.heartRateIsUInt16 ? "heart_rate_16" : "heart_rate_8"] = [Int(m.heartRate)]
            if let e = m.energyExpended { f["energy_expended"] = [Int(e)] }
            if m.flags & 0x10 != 0 { f["rr_intervals"] = m.rrIntervals.map { Int($0.rawValue) } }
        case .cyclingPowerMeasurement(let m):
            f["flags"] = [Int(m.flags)]
            f["instantaneous_power"] = [Int(m.instantaneousPower)]
            if let v = m.pedalPowerBalance { f["pedal_power_balance"] = [Int(v)] }
            if let v = m.accumulatedTorque { f["accumulated_torque"] = [Int(v)] }
            add(m.wheelRevolutionData)
            add(m.crankRevolutionData)
            add(m.extremeForceMagnitudes, "force")
            add(m.extremeTorqueMagnitudes, "torque")
            if let v = m.extremeAngles {
                f["maximum_angle"] = [Int(v.maximum)]
                f["minimum_angle"] = [Int(v.minimum)]
            }
            if let v = m.topDeadSpotAngle { f["top_dead_spot_angle"] = [Int(v)] }
            if let v = m.bottomDeadSpotAngle { f["bottom_dead_spot_angle"] = [Int(v)] }
            if let v = m.accumulatedEnergy { f["accumulated_energy"] = [Int(v)] }
        case .cscMeasurement(let m):
            f["flags"] = [Int(m.flags)]
            add(m.wheelRevolutionData)
            add(m.crankRevolutionData)
        case .cyclingPowerVector(let v):
            f["flags"] = [Int(v.flags)]
            add(v.crankRevolutionData)
            if let a = v.firstCrankMeasurementAngle { f["first_crank_measurement_angle"] = [Int(a)] }
            if v.flags & 0x04 != 0 { f["instantaneous_force_magnitudes"] = v.instantaneousForceMagnitudes.map(Int.init) }
            if v.flags & 0x08 != 0 {
                f["instantaneous_torque_magnitudes"] = v.instantaneousTorqueMagnitudes.map(Int.init)
            }
        default:
            Issue.record("unexpected characteristic in the conformance set")
        }
        return f
    }

    /// tshark's values for one SIG field name, by the fixture's `spec_to_tshark` map.
    static func tsharkValues(_ name: String, _ c: Case) -> [Int]? {
        guard let mapping = fixture.specToTshark[c.uuid]?[name]?.arrayValue,
            let tsharkName = mapping[0].stringValue,
            let values = c.tshark[tsharkName]?.arrayValue?.compactMap(\.integerValue), !values.isEmpty
        else { return nil }
        switch mapping[1].integerValue {
        case nil: return values
        case -1: return [values[values.count - 1]]
        case let index?: return index < values.count ? [values[index]] : nil
        }
    }

    /// tshark 4.0 reads the extreme angles big-endian with swapped labels (fixture README), so
    /// they are compared with the `spec` values only.
    static let tsharkDisagrees: Set<String> = ["maximum_angle", "minimum_angle"]

    @Test(arguments: fixture.cases.map(\.index))
    func conformanceCase(_ index: Int) throws {
        let c = Self.fixture.cases[index]
        let uuid = try #require(BluetoothUUID(c.uuid))
        let context = "case \(index) \(c.uuid) \(c.kind) \(Hex.encode(c.payload))"
        let result = Result { () throws(GATTDecodingError) -> GATTValue? in try GATTValue.decode(uuid: uuid, bytes: c.payload) }

        if !c.specLengthOK && c.kind == "truncated" {
            guard case .failure(let error) = result else {
                Issue.record("expected truncated, decoded \(String(describing: try? result.get())); \(context)")
                return
            }
            #expect(error.kind == .truncated, "\(context)")
            #expect(error.offset <= c.payload.count, "\(context)")
            return
        }
        let value = try #require(try result.get(), "\(context)")
        let raw = Self.rawFields(value)
        if c.specLengthOK {
            #expect(value.trailingByteCount == 0, "\(context)")
        } else {
            #expect(c.kind == "trailing" && value.trailingByteCount > 0, "\(context)")
        }
        if let spec = c.spec {
            for (name, expected) in spec.pairs {
                let expectedValues = expected.arrayValue?.compactMap(\.integerValue) ?? [expected.integerValue!]
                #expect(raw[name] == expectedValues, "\(name); \(context)")
            }
            #expect(Set(raw.keys) == Set(spec.keys), "\(context)")
        }
        for name in raw.keys where !Self.tsharkDisagrees.contains(name) {
            if raw[name] == [] {
                // A flagged array with no bytes: tshark 4.0 reports no field for it (fixture README).
                #expect((Self.tsharkValues(name, c) ?? []).isEmpty, "\(name); \(context)")
            } else if let tshark = Self.tsharkValues(name, c) {
                #expect(raw[name] == tshark, "\(name) differs from tshark; \(context)")
            } else {
                Issue.record("tshark has no \(name); \(context)")
            }
        }
    }
}
