/// A walk over a cache folder, a chunk of names at a time, for sweeps and the exact totals. Lookups never walk:
/// they open the one path a key names.
///
/// The walk reads each name once from an open directory stream and `lstat`s the entries (`fstatat`, relative to
/// the stream, so no path is walked again). In a writable folder it also deletes what the cache never keeps:
/// temporary files of writers that died (unchanged for ``DiskCache/Configuration`` `staleTemporaryAge`) and
/// links or other non-files posing as entries (never followed). Between chunks, `chunkDone` may stop the walk
/// (a sweep that is told to stop) and record progress; nothing of the walk is held in memory but the stream.
struct DiskFolder {
    /// Files whose name starts with this are writes in progress (or left by a process that died).
    static let temporaryPrefix = ".tmp-"
    /// Names the walk hands to `chunkDone` at a time.
    static let chunkSize = 1024

    /// One entry file met by a walk.
    struct Visit {
        var name: DiskEntryName
        var fileName: String
        var status: FileSystem.Status
        /// The open folder, for ``FileSystem/removeFile(_:in:)`` and ``FileSystem/status(_:in:)``.
        var directory: Int32
    }

    let path: String
    let isWritable: Bool
    /// Temporary files unchanged for this many seconds of real time are deleted (writable folders only).
    let staleTemporaryAge: Double

    /// Walks the folder, calling `visit` for every regular file named like an entry and `chunkDone` after every
    /// ``chunkSize`` names (return `false` to stop) and at the end. Returns `false` when the folder could not be
    /// opened (it does not exist, or is not a folder) or the walk was stopped.
    @discardableResult
    func walk(visit: (Visit) -> Void, chunkDone: () -> Bool = { true }) -> Bool {
        guard let stream = DirectoryStream(path) else { return false }
        let realNow = CacheClock.system.now()
        var inChunk = 0
        while let fileName = stream.next() {
            inChunk += 1
            if inChunk == Self.chunkSize {
                inChunk = 0
                guard chunkDone() else { return false }
            }
            if let name = DiskEntryName(fileName: fileName) {
                guard let status = FileSystem.status(fileName, in: stream.descriptor) else { continue }
                guard status.isRegularFile else {
                    // Never follow a planted link; a folder with an entry's name is left alone.
                    if isWritable && !status.isDirectory { FileSystem.removeFile(fileName, in: stream.descriptor) }
                    continue
                }
                visit(Visit(name: name, fileName: fileName, status: status, directory: stream.descriptor))
            } else if isWritable, fileName.hasPrefix(Self.temporaryPrefix),
                      let status = FileSystem.status(fileName, in: stream.descriptor),
                      realNow - status.changed > staleTemporaryAge {
                // By change time: the modification time of an entry carries the cache clock's last access.
                FileSystem.removeFile(fileName, in: stream.descriptor)
            }
        }
        return chunkDone()
    }
}
