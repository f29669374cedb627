import SensorCore

/// Up to `capacity` samples as the columns of one `sample_chunks` row: offsets from the workout
/// start in nanoseconds, values, quantity types and sensors.
struct SampleChunk {
    /// Samples per row: a three-hour ride (about 120,000 samples) is 30 rows.
    static let capacity = 4096

    var offsets: [Int64] = []
    var values: [Double] = []
    var quantityTypes: [UInt8] = []
    var sensors: [UInt16] = []

    var count: Int { offsets.count }

    init() {}

    /// `samples` with times made offsets from `start`.
    init(_ samples: some Collection<Sample>, start: Duration) {
        let startNanoseconds = start.nanoseconds
        offsets.reserveCapacity(samples.count)
        values.reserveCapacity(samples.count)
        quantityTypes.reserveCapacity(samples.count)
        sensors.reserveCapacity(samples.count)
        for sample in samples {
            offsets.append(sample.time.nanoseconds - startNanoseconds)
            values.append(sample.value)
            quantityTypes.append(sample.type.rawValue)
            sensors.append(sample.sensor.rawValue)
        }
    }

    /// Writes `samples` as rows `firstPosition...` of `workout` (with `COPY` on PostgreSQL);
    /// returns the next free position.
    static func insert(
        _ samples: some Collection<Sample>, start: Duration, workout: Int64, firstPosition: Int64,
        into connection: any StoreDatabase
    ) throws -> Int64 {
        var rows: [[(any StoreValue)?]] = []
        var position = firstPosition
        var index = samples.startIndex
        while index != samples.endIndex {
            let end = samples.index(index, offsetBy: capacity, limitedBy: samples.endIndex) ?? samples.endIndex
            let chunk = SampleChunk(samples[index..<end], start: start)
            rows.append([workout, position, chunk.count, chunk.offsets, chunk.values, chunk.quantityTypes, chunk.sensors])
            position += 1
            index = end
        }
        guard !rows.isEmpty else { return position }
        try connection.insertRows(
            into: "sample_chunks",
            columns: ["workout_id", "position", "sample_count", "offsets", "sample_values", "quantity_types", "sensors"],
            rows: rows)
        return position
    }

    /// Every sample of `workout`, in the order it received them, with times `start + offset`.
    static func samples(of workout: Int64, start: Duration, in connection: any StoreDatabase, path: String) throws
        -> [Sample]
    {
        var samples: [Sample] = []
        try connection.statement(
            """
            SELECT sample_count, offsets, sample_values, quantity_types, sensors FROM sample_chunks
            WHERE workout_id = ? ORDER BY position
            """
        ).forEachRow(workout) { row in
            let count = row.int(0)
            guard let offsets = row.blob(1, of: Int64.self), let values = row.blob(2, of: Double.self),
                let types = row.blob(3, of: UInt8.self), let sensors = row.blob(4, of: UInt16.self),
                offsets.count == count, values.count == count, types.count == count, sensors.count == count
            else {
                throw WorkoutStoreError.invalidData(path: path, reason: "a sample chunk of workout \(workout) is cut short")
            }
            samples.reserveCapacity(samples.count + count)
            for i in 0..<count {
                guard let type = QuantityType(rawValue: types[i]) else {
                    throw WorkoutStoreError.invalidData(
                        path: path, reason: "workout \(workout) has a sample of unknown quantity type \(types[i])")
                }
                samples.append(
                    Sample(
                        sensor: SensorID(sensors[i]), type: type, value: values[i],
                        time: start + .nanoseconds(offsets[i])))
            }
        }
        return samples
    }
}
