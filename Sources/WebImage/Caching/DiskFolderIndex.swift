/// The in-memory picture of one cache folder: which entries exist, how big they are and when each was last
/// used. Built by listing the folder once (lazily, on first use), then kept up to date by this process's own
/// reads and writes, so that a miss is answered without a system call.
///
/// Another process's changes reach it by a rescan, which happens when the folder's modification time moved
/// (checked at most once per ``DiskCache/Configuration/externalChangeInterval``, and only on a miss).
struct DiskFolderIndex {
    struct Entry {
        var fileSize: Int
        /// Last use as this process knows it.
        var lastAccess: Double
        /// Last use as written into the file's modification time.
        var persistedAccess: Double
    }

    /// Files whose name starts with this are writes in progress (or left by a process that died).
    static let temporaryPrefix = ".tmp-"
    /// A folder modified this close to a scan may have changed within the same timestamp tick after the
    /// listing; the next check rescans it even when the time looks unchanged.
    static let timestampUncertainty = 2.0

    let path: String
    let isWritable: Bool
    /// Temporary files unchanged for this many seconds are deleted by a scan (writable folders only).
    let staleTemporaryAge: Double
    private(set) var entries: [DiskEntryName: Entry] = [:]
    private(set) var totalSize = 0
    private(set) var isLoaded = false
    private var scannedModification: Double?
    private var scanMayHaveMissedChanges = false

    init(path: String, isWritable: Bool, staleTemporaryAge: Double = 600) {
        self.path = path
        self.isWritable = isWritable
        self.staleTemporaryAge = staleTemporaryAge
    }

    func filePath(_ name: DiskEntryName) -> String { name.fileName(in: path) }

    subscript(name: DiskEntryName) -> Entry? { entries[name] }

    /// Lists the folder and makes the index match it. Entries already known keep their in-memory access time.
    /// In a writable folder, stale temporary files and symbolic links posing as entries are deleted.
    mutating func scan(statistics: inout DiskCache.Statistics) {
        statistics.folderScans += 1
        let folderStatus = FileSystem.status(path)
        let realNow = CacheClock.system.now()
        var found: [DiskEntryName: Entry] = [:]
        found.reserveCapacity(entries.count)
        FileSystem.forEachDirectoryEntry(path) { fileName, directory in
            if let name = DiskEntryName(fileName: fileName) {
                if let known = entries[name] {
                    found[name] = known
                    return
                }
                guard let status = FileSystem.status(fileName, in: directory) else { return }
                guard status.isRegularFile else {
                    // Never follow a planted link; a folder with an entry's name is left alone.
                    if isWritable && !status.isDirectory { FileSystem.removeFile(path + "/" + fileName) }
                    return
                }
                found[name] = Entry(fileSize: status.size, lastAccess: status.modified, persistedAccess: status.modified)
            } else if isWritable, fileName.hasPrefix(Self.temporaryPrefix),
                      let status = FileSystem.status(fileName, in: directory),
                      realNow - status.changed > staleTemporaryAge {
                // By change time: the modification time of an entry carries the cache clock's last access.
                FileSystem.removeFile(path + "/" + fileName)
            }
        }
        entries = found
        totalSize = found.values.reduce(0) { $0 + $1.fileSize }
        isLoaded = true
        scannedModification = folderStatus?.modified
        scanMayHaveMissedChanges = folderStatus.map { abs(realNow - $0.modified) < Self.timestampUncertainty } ?? false
    }

    /// Checks the folder's modification time and rescans when another process may have changed it.
    mutating func refreshIfChanged(statistics: inout DiskCache.Statistics) {
        statistics.folderChecks += 1
        let modified = FileSystem.status(path)?.modified
        if modified != scannedModification || scanMayHaveMissedChanges {
            scan(statistics: &statistics)
        }
    }

    /// Records an entry this process wrote (or found).
    mutating func insert(_ name: DiskEntryName, fileSize: Int, at time: Double) {
        totalSize += fileSize - (entries[name]?.fileSize ?? 0)
        entries[name] = Entry(fileSize: fileSize, lastAccess: time, persistedAccess: time)
    }

    /// Records a hit; `persisted` when the file's modification time was rewritten too.
    mutating func recordAccess(_ name: DiskEntryName, at time: Double, persisted: Bool) {
        guard var entry = entries[name] else { return }
        entry.lastAccess = max(entry.lastAccess, time)
        if persisted { entry.persistedAccess = time }
        entries[name] = entry
    }

    /// Forgets an entry (the caller deletes the file when it must).
    mutating func forget(_ name: DiskEntryName) {
        guard let entry = entries.removeValue(forKey: name) else { return }
        totalSize -= entry.fileSize
    }

    /// Forgets everything but stays loaded: the folder is known to be empty.
    mutating func forgetAll() {
        entries = [:]
        totalSize = 0
    }

    /// Entries whose last access is before `cutoff`.
    func entries(lastUsedBefore cutoff: Double) -> [DiskEntryName] {
        entries.compactMap { $0.value.lastAccess < cutoff ? $0.key : nil }
    }

    /// Every entry, least recently used first.
    func entriesByAge() -> [(name: DiskEntryName, entry: Entry)] {
        entries.map { (name: $0.key, entry: $0.value) }.sorted { $0.entry.lastAccess < $1.entry.lastAccess }
    }
}
