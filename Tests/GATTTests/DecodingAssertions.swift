import GATT

/// The decoding error `body` throws, or nil when it decodes (or throws anything else).
func decodingError(_ body: () throws -> Void) -> GATTDecodingError? {
    do {
        try body()
        return nil
    } catch {
        return error as? GATTDecodingError
    }
}
