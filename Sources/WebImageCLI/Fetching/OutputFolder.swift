import Foundation
import WebImage

/// The folder of `fetch --out` (and the demo's output): created when missing, checked for writing before any
/// work starts, so an unwritable folder fails the command at once with one line.
enum OutputFolder {
    static func prepare(_ path: String) throws -> URL {
        let folder = URL(fileURLWithPath: path, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ImageError(.io, "cannot write to \(path): not a folder") }
        } else {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw ImageError(.io, "cannot create the folder \(path): \(reason(error))")
            }
        }
        guard access(folder.path, W_OK | X_OK) == 0 else {
            throw ImageError(.io, "cannot write to \(path): \(String(cString: strerror(errno)))")
        }
        return folder
    }

    /// Writes `data` to `folder/name` in one step (a temporary file renamed into place).
    static func write(_ data: Data, named name: String, in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent(name, isDirectory: false)
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw ImageError(.io, "cannot write \(file.path): \(reason(error))")
        }
        return file
    }

    /// The POSIX reason inside a Foundation error when there is one ("Permission denied"), else its description.
    private static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
