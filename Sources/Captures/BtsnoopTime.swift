public import Foundation
import SensorCore

/// A btsnoop timestamp: microseconds since midnight, January 1st of year 0, as the record header
/// carries it (signed 64-bit, big-endian).
///
/// Every tool that writes or reads the format (BlueZ, Android, Wireshark) converts with the same
/// offset to the Unix epoch, 0x00DCDDB30F2F8000 µs (62,168,256,000 s). It is 12 days more than a
/// proleptic Gregorian count from 0000-01-01 gives (62,167,219,200 s); the files in the wild follow
/// the tools, so this type does too.
public struct BtsnoopTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since year 0 (the btsnoop epoch).
    public var microseconds: Int64

    /// The btsnoop epoch's distance to 1970-01-01T00:00:00Z, in microseconds.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// From microseconds since 1970-01-01T00:00:00Z.
    public init(unixMicroseconds: Int64) { microseconds = unixMicroseconds &+ Self.unixEpochOffset }

    /// From a wall-clock date, rounded to the nearest microsecond.
    public init(_ date: Date) {
        self.init(unixMicroseconds: Int64((date.timeIntervalSince1970 * 1e6).rounded()))
    }

    /// Microseconds since 1970-01-01T00:00:00Z.
    public var unixMicroseconds: Int64 { microseconds &- Self.unixEpochOffset }

    /// Seconds since 1970-01-01T00:00:00Z (a Double holds today's times to better than a microsecond).
    public var secondsSince1970: Double {
        let (seconds, micros) = unixMicroseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return Double(seconds) + Double(micros) / 1e6
    }

    public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }

    /// `this` minus `earlier` as a Duration: exact for any two times (a Duration holds far more
    /// than the ±292,000 years between them).
    public func since(_ earlier: BtsnoopTime) -> Duration {
        .microseconds(microseconds) - .microseconds(earlier.microseconds)
    }

    /// This time plus `offset`, rounded to the nearest microsecond.
    public func adding(_ offset: Duration) -> BtsnoopTime {
        let (seconds, attoseconds) = offset.components
        let micros = (Double(attoseconds) / 1e12).rounded()
        return BtsnoopTime(microseconds: microseconds &+ seconds &* 1_000_000 &+ Int64(micros))
    }

    /// `2023-11-14T22:13:20.250000Z`: UTC with microseconds.
    public var description: String {
        let (seconds, micros) = floorDivide(unixMicroseconds, 1_000_000)
        let whole = ISO8601.format(Double(seconds))
        let fraction = String(String(micros + 1_000_000).dropFirst())
        return whole.dropLast() + "." + fraction + "Z"
    }

    public static func < (a: BtsnoopTime, b: BtsnoopTime) -> Bool { a.microseconds < b.microseconds }
}

private func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
    let (q, r) = a.quotientAndRemainder(dividingBy: b)
    return r < 0 ? (q - 1, r + b) : (q, r)
}
