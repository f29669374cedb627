public import GATT
public import SensorCore
import Workouts

/// The one decode → extract → push path of a session, for live notifications and replayed ones
/// alike: decodes a characteristic value, turns it into samples with the device's
/// `SampleExtractor`, and hands them on as session items. A value that does not decode becomes a
/// `malformed` control; a heart rate that does not count (no contact, implausible) becomes a
/// `noContact` or `invalidValues` control when the device's values stop counting (once, until a
/// value counts again).
///
/// One producer thread owns a decoder (not `Sendable`: it keeps per-device state).
public struct NotificationDecoder {
    private var extractors: [SensorID: SampleExtractor] = [:]
    /// Devices whose values do not count at the moment, with why.
    private var refused: [SensorID: SensorState] = [:]
    private var samples: [Sample] = []

    public init() { samples.reserveCapacity(8) }

    /// Decodes `bytes` of characteristic `uuid` from `sensor`, received at `time`, and passes each
    /// resulting item to `push`; returns the samples, for observers.
    @discardableResult
    public mutating func decode(
        _ bytes: [UInt8], uuid: BluetoothUUID, from sensor: SensorID, at time: Duration, push: (SessionItem) -> Void
    ) -> ArraySlice<Sample> {
        decode(Result { try GATTValue.decode(uuid: uuid, bytes: bytes) }, from: sensor, at: time, push: push)
    }

    /// The same for a value already parsed (`GATTValue.decode`'s result: nil for a characteristic
    /// that is not a measurement, an error for a malformed one), so that whoever had to look at
    /// it first (serve's schedule) does not make the session parse it again.
    @discardableResult
    public mutating func decode(
        _ parsed: Result<GATTValue?, any Error>, from sensor: SensorID, at time: Duration, push: (SessionItem) -> Void
    ) -> ArraySlice<Sample> {
        samples.removeAll(keepingCapacity: true)
        let value: GATTValue
        switch parsed {
        case .success(let decoded?): value = decoded
        case .success(nil): return []
        case .failure:
            push(.control(SessionControl(.malformed, at: time, sensor: sensor)))
            return []
        }
        let state = extractors[sensor, default: SampleExtractor(sensor: sensor)].extract(value, at: time, into: &samples)
        if let state {
            if refused.updateValue(state, forKey: sensor) != state {
                push(.control(SessionControl(state == .noContact ? .noContact : .invalidValues, at: time, sensor: sensor)))
            }
        } else if !samples.isEmpty {
            refused[sensor] = nil
        }
        for sample in samples { push(.sample(sample)) }
        return samples[...]
    }
}
