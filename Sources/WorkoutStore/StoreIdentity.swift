/// What a database is to this build, read without writing anything: a blank database to make a
/// store in, a SensorBridge store of some schema version, or another program's database, which
/// is refused and left byte for byte as it is.
enum StoreIdentity: Equatable {
    /// No schema objects and no version: an empty file, or a database nobody has used.
    case blank
    /// A SensorBridge store: its `application_id` is ours, or (stores from before schema 3, which
    /// set it) it has a version and the tables every version has.
    case ours(version: Int64)
    /// Anything else, with what gives it away.
    case foreign(reason: String)

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        let applicationID = try connection.scalarText("PRAGMA application_id").flatMap { Int32($0) } ?? 0
        let version = try connection.userVersion
        if applicationID == Schema.applicationID {
            self = .ours(version: version)
            return
        }
        guard applicationID == 0 else {
            let hex = String(UInt32(bitPattern: applicationID), radix: 16)
            self = .foreign(reason: "its application id is 0x\(hex), another program's")
            return
        }
        let statement = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        var tables: [String] = []
        while try statement.step() { tables.append(statement.text(0)) }
        let objects = try connection.scalarText("SELECT count(*) FROM sqlite_schema") ?? "0"
        if version == 0 && objects == "0" {
            self = .blank
        } else if version >= 1 && Schema.tablesOfEveryVersion.isSubset(of: tables) {
            self = .ours(version: version)
        } else {
            let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", ..." : "")
            var what = tables.isEmpty ? "no tables" : "tables SensorBridge does not make (\(shown))"
            if version != 0 { what += " and user_version \(version)" }
            self = .foreign(reason: "it holds \(what)")
        }
    }
}
