public import Foundation
public import Zones

extension CalendarDate {
    /// The day `date` falls on in `zone`: the day a workout was recorded, for its zones and its load
    /// (an age from a birth date), as FIT files and `workouts load` take it too.
    public init?(localDayOf date: Date, in zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        self.init(year: year, month: month, day: day)
    }
}
