public import Foundation
import SensorCore
public import Zones

extension CalendarDate {
    /// The day `date` falls on in UTC: the day a workout's load and its profile's age are taken on.
    public init?(utcDayOf date: Date) {
        let day = ISO8601.calendarDay(date.timeIntervalSince1970)
        self.init(year: day.year, month: day.month, day: day.day)
    }
}
