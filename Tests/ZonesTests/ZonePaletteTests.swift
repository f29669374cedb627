import Testing
import Zones

@Suite struct ZonePaletteTests {
    /// Each ANSI index is the nearest xterm-256 colour (cube 16...231, greys 232...255) to its hex
    /// colour, by squared RGB distance, the lower index on a tie.
    @Test func ansiIndicesAreTheNearestXtermColours() throws {
        let levels = [0, 95, 135, 175, 215, 255]
        var xterm: [(index: Int, rgb: [Int])] = (16...231).map { index in
            let n = index - 16
            return (index, [levels[n / 36], levels[n / 6 % 6], levels[n % 6]])
        }
        xterm += (232...255).map { index in (index, Array(repeating: 8 + 10 * (index - 232), count: 3)) }
        #expect(ZonePalette.colors.count == 9)
        for color in ZonePalette.colors {
            let rgb = try [1, 3, 5].map { offset in
                try #require(Int(color.hex.dropFirst(offset).prefix(2), radix: 16))
            }
            func distance(_ other: [Int]) -> Int { zip(rgb, other).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) }
            let nearest = xterm.min { (distance($0.rgb), $0.index) < (distance($1.rgb), $1.index) }
            #expect(color.ansi256 == nearest?.index, "\(color.hex)")
        }
    }

    @Test func aZoneHasTheSameColourInEveryModel() {
        #expect(ZonePalette.hexColors(count: 5) == ["#9e9e9e", "#42a5f5", "#66bb6a", "#fdd835", "#ffa726"])
        #expect(ZonePalette.hexColors(count: 6) == ZonePalette.colors.prefix(6).map(\.hex))
        #expect(ZonePalette.hexColors(count: 3) == ["#9e9e9e", "#42a5f5", "#66bb6a"])
        #expect(ZonePalette.hexColors(count: 7) == ZonePalette.colors.prefix(7).map(\.hex))
        #expect(Set(ZonePalette.hexColors(count: 9)).count == 9)
        #expect(ZonePalette.colors(count: 12).count == 9 && ZonePalette.colors(count: 0).isEmpty)
    }
}
