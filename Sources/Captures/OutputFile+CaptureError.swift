import Foundation

/// `OutputFile` for the capture writers, whose errors are `CaptureError.unwritable` with the file
/// error's description.
extension OutputFile {
    static func forCapture(_ url: URL, mode: Mode) throws(CaptureError) -> OutputFile {
        do {
            return try OutputFile(url, mode: mode)
        } catch {
            throw .unwritable(error.description)
        }
    }

    func writeCapture(_ bytes: [UInt8]) throws(CaptureError) {
        do {
            try write(bytes)
        } catch {
            throw .unwritable(error.description)
        }
    }

    func commitCapture() throws(CaptureError) {
        do {
            try commit()
        } catch {
            throw .unwritable(error.description)
        }
    }
}
