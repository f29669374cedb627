/// "Did you mean" for a mistyped command, subcommand or option: the known word closest to what was typed, when it
/// is close enough to be a typo (an edit distance of at most 2, and less than half the word).
enum Suggestion {
    static func closest(to typed: String, among known: [String]) -> String? {
        let typed = typed.lowercased()
        let scored = known.map { ($0, distance(Array(typed), Array($0.lowercased()))) }
        guard let (word, score) = scored.min(by: { $0.1 < $1.1 }), score <= 2, score * 2 < max(typed.count, 1) else {
            return nil
        }
        return word
    }

    /// ` (did you mean 'record'?)`, or nothing.
    static func phrase(for typed: String, among known: [String]) -> String {
        closest(to: typed, among: known).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Damerau-Levenshtein distance (insertions, deletions, substitutions and swaps of neighbours).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
