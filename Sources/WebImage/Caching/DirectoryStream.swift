#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder read a few names at a time: the sweep walks a folder of a million entries in chunks, keeping only
/// the open stream (and no list of names) between them.
///
/// Not `Sendable`: one sweep owns it, on one thread at a time.
final class DirectoryStream {
    private let directory: OpaquePointer
    /// A descriptor of the folder for ``FileSystem/status(_:in:)`` and ``FileSystem/removeFile(_:in:)``.
    let descriptor: Int32

    /// Opens `path`; `nil` when it cannot be opened.
    init?(_ path: String) {
        guard let directory = opendir(path) else { return nil }
        self.directory = directory
        descriptor = dirfd(directory)
    }

    deinit {
        closedir(directory)
    }

    /// The next name (never `.` or `..`), or `nil` at the end.
    func next() -> String? {
        while let entry = readdir(directory) {
            let name = FileSystem.entryName(entry)
            if name != "." && name != ".." { return name }
        }
        return nil
    }
}
