import Foundation
import SensorCore
import Workouts
import Zones

/// Reads a FIT workout file (FIT Protocol; Profile: `file_id` type 5, `workout`, `workout_step`)
/// into a `WorkoutPlan`: the file header and its CRC, definition and data messages of either
/// byte order (compressed-timestamp headers and developer fields read past), and the file's CRC.
/// Steps: duration `time` (ms) or `open`, and `repeat_until_steps_cmplt` (back to a step, a count
/// of times) around the steps just before it; targets `open`, `heart_rate` and `power` (a zone,
/// or custom bpm + 100 and watts + 1000, below 1000 % of FTP) and `cadence` (rpm). Anything else
/// (a distance, a calorie or heart-rate condition, a nested repeat) is refused with the step.
enum FITWorkoutFile {
    static let workoutMessage: UInt16 = 26, stepMessage: UInt16 = 27, fileIDMessage: UInt16 = 0

    /// Whether `data` begins with a FIT file header.
    static func isFIT(_ data: Data) -> Bool {
        data.count >= 12 && (data[data.startIndex] == 12 || data[data.startIndex] == 14)
            && data[(data.startIndex + 8)..<(data.startIndex + 12)].elementsEqual(Array(".FIT".utf8))
    }

    private struct Field {
        var number: UInt8
        var size: Int
        var baseType: UInt8
    }

    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [Field]
        var developerBytes: Int
    }

    static func read(_ data: Data) throws(WorkoutPlanError) -> WorkoutPlan {
        let bytes = [UInt8](data)
        let headerSize = Int(bytes[0])
        let dataSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard bytes.count >= headerSize + dataSize + 2 else {
            throw WorkoutPlanError("a FIT file of \(headerSize + dataSize + 2) bytes by its header, cut short at \(bytes.count)")
        }
        if headerSize == 14, bytes[12] | bytes[13] != 0,
            FITCRC.checksum(bytes[0..<12]) != UInt16(bytes[12]) | UInt16(bytes[13]) << 8
        {
            throw WorkoutPlanError("the FIT file's header CRC does not match: the file is damaged")
        }
        let end = headerSize + dataSize
        guard FITCRC.checksum(bytes[0..<end]) == UInt16(bytes[end]) | UInt16(bytes[end + 1]) << 8 else {
            throw WorkoutPlanError("the FIT file's CRC does not match: the file is damaged")
        }
        var definitions: [Int: Definition] = [:]
        var position = headerSize
        var fileType: Int?
        var name: String?
        var sport = WorkoutActivityType.cycling
        var steps: [[UInt8: [UInt8]]] = []
        func take(_ count: Int) throws(WorkoutPlanError) -> ArraySlice<UInt8> {
            guard position + count <= end else { throw WorkoutPlanError("a FIT record runs past the end of the data at byte \(position)") }
            defer { position += count }
            return bytes[position..<(position + count)]
        }
        while position < end {
            let header = try take(1).first!
            if header & 0x80 == 0, header & 0x40 != 0 {
                let local = Int(header & 0x0F)
                let fixed = Array(try take(5))
                let bigEndian = fixed[1] == 1
                let global = bigEndian ? UInt16(fixed[2]) << 8 | UInt16(fixed[3]) : UInt16(fixed[3]) << 8 | UInt16(fixed[2])
                var fields: [Field] = []
                for _ in 0..<Int(fixed[4]) {
                    let f = Array(try take(3))
                    fields.append(Field(number: f[0], size: Int(f[1]), baseType: f[2] & 0x1F))
                }
                var developerBytes = 0
                if header & 0x20 != 0 {
                    for _ in 0..<Int(try take(1).first!) { developerBytes += Int(Array(try take(3))[1]) }
                }
                definitions[local] = Definition(global: global, bigEndian: bigEndian, fields: fields, developerBytes: developerBytes)
                continue
            }
            // A data message, or one with a compressed timestamp (local type in bits 5-6).
            let local = header & 0x80 != 0 ? Int((header >> 5) & 0x03) : Int(header & 0x0F)
            guard let definition = definitions[local] else {
                throw WorkoutPlanError("a FIT data message at byte \(position - 1) has no definition: the file is damaged")
            }
            var values: [UInt8: [UInt8]] = [:]
            for field in definition.fields {
                let raw = Array(try take(field.size))
                values[field.number] = definition.bigEndian && field.baseType != 0x07 ? raw.reversed() : raw
            }
            _ = try take(definition.developerBytes)
            switch definition.global {
            case fileIDMessage: fileType = integer(values[0])
            case workoutMessage:
                name = string(values[8])
                if let code = integer(values[4]) { sport = code == 1 ? .running : .cycling }
            case stepMessage: steps.append(values)
            default: break
            }
        }
        guard fileType == 5 else { throw WorkoutPlanError("a FIT file, but not a workout (file_id type \(fileType.map(String.init) ?? "none"), not 5)") }
        guard !steps.isEmpty else { throw WorkoutPlanError("the FIT workout has no workout_step") }
        return WorkoutPlan(name: name ?? "Workout", sport: sport, entries: try entries(steps))
    }

    /// The steps in the order written (by `message_index` when they have one).
    private static func entries(_ messages: [[UInt8: [UInt8]]]) throws(WorkoutPlanError) -> [WorkoutPlan.Entry] {
        let ordered = messages.enumerated().sorted { (integer($0.element[254]) ?? $0.offset) < (integer($1.element[254]) ?? $1.offset) }
            .map(\.element)
        var entries: [WorkoutPlan.Entry] = []
        // The written index of each plain step still outside a repeat, with its entry's position.
        var open: [(index: Int, entry: Int)] = []
        for (index, values) in ordered.enumerated() {
            let place = "workout step \(index)"
            let durationType = integer(values[1])
            let durationValue = integer(values[2])
            if durationType == 6 {
                guard let from = durationValue, let count = integer(values[4]), (1...1000).contains(count),
                    let first = open.firstIndex(where: { $0.index == from })
                else {
                    throw WorkoutPlanError("\(place): a repeat must go back to a step before it that is in no other repeat, 1 to 1000 times")
                }
                let repeated = open[first...].map { position -> PlanStep in
                    guard case .step(let step) = entries[position.entry] else { return PlanStep(length: .open) }
                    return step
                }
                entries.removeLast(open.count - first)
                open.removeLast(open.count - first)
                entries.append(.repeated(count: count, steps: repeated))
                continue
            }
            let length: PlanStep.Length
            switch durationType {
            case 0:
                guard let ms = durationValue, ms > 0 else { throw WorkoutPlanError("\(place): a time step needs its duration") }
                length = .time(.milliseconds(Int64(ms)))
            case 5, nil: length = .open
            default:
                throw WorkoutPlanError(
                    "\(place): duration type \(durationType!) (a distance, heart-rate, calorie or power condition) is not supported; "
                        + "give steps of a time, open ones, and repeats")
            }
            var target = PlanStep.Target.none
            var cadence: ClosedRange<Double>?
            let (value, low, high) = (integer(values[4]), integer(values[5]), integer(values[6]))
            switch integer(values[3]) {
            case 2, nil: break
            case 1:
                if let zone = value, zone > 0 {
                    target = .heartRateZones(zone...zone)
                } else if let low, let high, low > 100, high >= low {
                    target = .heartRate(Double(low - 100)...Double(high - 100))
                } else {
                    throw WorkoutPlanError("\(place): a heart-rate target as % of maximum is not supported; give bpm or a zone")
                }
            case 4:
                if let zone = value, zone > 0 {
                    target = .powerZones(zone...zone)
                } else if let low, let high, high >= low {
                    target = low >= 1000 ? .watts(Double(low - 1000)...Double(high - 1000)) : .powerOfFTP(Double(low) / 100...Double(high) / 100)
                    if (low >= 1000) != (high >= 1000) { throw WorkoutPlanError("\(place): a power range mixes watts and % of FTP") }
                } else {
                    throw WorkoutPlanError("\(place): a power target needs a zone or a range")
                }
            case 3:
                guard let low, let high, high >= low else { throw WorkoutPlanError("\(place): a cadence target needs a range") }
                cadence = Double(low)...Double(high)
            case let other?:
                throw WorkoutPlanError("\(place): target type \(other) (speed, grade, resistance, ...) is not supported")
            }
            // A cadence beside another target is the secondary one.
            if integer(values[19]) == 3, let low = integer(values[21]), let high = integer(values[22]), high >= low {
                cadence = Double(low)...Double(high)
            }
            open.append((index, entries.count))
            entries.append(.step(PlanStep(name: string(values[0]), length: length, target: target, cadence: cadence)))
        }
        return entries
    }

    /// An unsigned integer field (enum, uint8, uint16, uint32), little-endian as read; nil for the
    /// invalid value (all ones) or no field.
    private static func integer(_ bytes: [UInt8]?) -> Int? {
        guard let bytes, !bytes.isEmpty else { return nil }
        var value = 0
        for (shift, byte) in bytes.enumerated() where shift < 8 { value |= Int(byte) << (8 * shift) }
        let invalid = bytes.count >= 8 ? -1 : (1 << (8 * bytes.count)) - 1
        return value == invalid ? nil : value
    }

    /// A NUL-terminated UTF-8 string field; nil when empty.
    private static func string(_ bytes: [UInt8]?) -> String? {
        guard let bytes else { return nil }
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}

extension FITWorkoutFile {
    /// The `workout` and `workout_step` messages of `plan`, as Garmin's devices write them: steps
    /// in the order written, each repeat after its steps (`repeat_until_steps_cmplt` back to its
    /// first, its count in `target_value`), so that a step's `message_index` is
    /// `WorkoutPlan.Planned.index`. Targets: power as % of FTP (0-1000) or watts + 1000, a power
    /// or heart-rate zone, bpm + 100; a ramp as the range it spans (FIT has no ramp); a range of
    /// several zones as the watts or bpm the zones of `zones` span (else its lowest zone); cadence
    /// as the target of a step without another, else its secondary target. What `read` reads back.
    static func messages(_ plan: WorkoutPlan, zones: [QuantityType: WorkoutZoneConfiguration] = [:]) -> [FITMessage] {
        var steps: [FITMessage] = []
        func add(_ step: PlanStep) {
            var m = FITMessage(stepMessage)
            m.add(254, .uint16, steps.count)
            if let name = step.name { m.add(0, string: name, size: 16) }
            m.add(1, .enum, step.timeLength == nil ? 5 : 0)  // time, or open
            m.add(2, .uint32, step.timeLength.map { Int64($0.clampedNanoseconds / 1_000_000) })
            // Target type, value, custom low and high: the primary's fields 3-6, the secondary's 19-22.
            func write(_ fields: [UInt8], _ target: FITTarget) {
                m.add(fields[0], .enum, target.type)
                m.add(fields[1], .uint32, target.value)
                m.add(fields[2], .uint32, target.low)
                m.add(fields[3], .uint32, target.high)
            }
            let primary = target(step.target, zones: zones)
            let cadence = step.cadence.map { FITTarget(type: 3, value: 0, low: Int($0.lowerBound.rounded()), high: Int($0.upperBound.rounded())) }
            if let first = primary ?? cadence {
                write([3, 4, 5, 6], first)
                if primary != nil, let cadence { write([19, 20, 21, 22], cadence) }
            } else {
                m.add(3, .enum, 2)  // open
            }
            steps.append(m)
        }
        for entry in plan.entries {
            switch entry {
            case .step(let step): add(step)
            case .repeated(let count, let repeated):
                let first = steps.count
                repeated.forEach(add)
                var m = FITMessage(stepMessage)
                m.add(254, .uint16, steps.count)
                m.add(1, .enum, 6)
                m.add(2, .uint32, first)
                m.add(4, .uint32, count)
                steps.append(m)
            }
        }
        var workout = FITMessage(workoutMessage)
        workout.add(4, .enum, FITActivityEncoding.sport(plan.sport))
        workout.add(6, .uint16, steps.count)
        workout.add(8, string: plan.name, size: 32)
        return [workout] + steps
    }

    /// A step's target as FIT writes it: `target_type`, `target_value` (a zone, or 0 for a custom
    /// range) and the custom range.
    private struct FITTarget {
        var type: Int, value: Int, low: Int?, high: Int?
    }

    /// FIT's target of a plan's target; nil for none (open).
    private static func target(_ target: PlanStep.Target, zones: [QuantityType: WorkoutZoneConfiguration]) -> FITTarget? {
        func percent(_ value: Double) -> Int { Int((value * 100).rounded()) }
        func watts(_ value: Double) -> Int { Int(value.rounded()) + 1000 }
        func zoned(_ type: Int, _ quantity: QuantityType, _ numbers: ClosedRange<Int>, offset: Int) -> FITTarget {
            guard numbers.count > 1, let configuration = zones[quantity], numbers.upperBound <= configuration.zones.count else {
                return FITTarget(type: type, value: numbers.lowerBound, low: nil, high: nil)
            }
            // The lowest zone from 0, the highest up to what no rider reaches.
            let low = configuration.zones[numbers.lowerBound - 1].minimum?.value ?? 0
            let high = configuration.zones[numbers.upperBound - 1].maximum?.value ?? (quantity == .heartRate ? 250 : 3000)
            return FITTarget(type: type, value: 0, low: Int(low.rounded()) + offset, high: Int(high.rounded()) + offset)
        }
        switch target {
        case .none: return nil
        case .powerOfFTP(let r): return FITTarget(type: 4, value: 0, low: percent(r.lowerBound), high: percent(r.upperBound))
        case .watts(let r): return FITTarget(type: 4, value: 0, low: watts(r.lowerBound), high: watts(r.upperBound))
        case .rampOfFTP(let from, let to): return FITTarget(type: 4, value: 0, low: percent(min(from, to)), high: percent(max(from, to)))
        case .rampWatts(let from, let to): return FITTarget(type: 4, value: 0, low: watts(min(from, to)), high: watts(max(from, to)))
        case .powerZones(let z): return zoned(4, .cyclingPower, z, offset: 1000)
        case .heartRateZones(let z): return zoned(1, .heartRate, z, offset: 100)
        case .heartRate(let r): return FITTarget(type: 1, value: 0, low: Int(r.lowerBound.rounded()) + 100, high: Int(r.upperBound.rounded()) + 100)
        }
    }
}
