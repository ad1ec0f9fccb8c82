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
        /// The index's generation when this process wrote the entry; 0 for entries found by a listing.
        var generation: UInt64
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
    /// Counts this process's writes, so a merge knows which entries are newer than its listing.
    private var generation: UInt64 = 0

    init(path: String, isWritable: Bool, staleTemporaryAge: Double = 600) {
        self.path = path
        self.isWritable = isWritable
        self.staleTemporaryAge = staleTemporaryAge
    }

    func filePath(_ name: DiskEntryName) -> String { name.fileName(in: path) }

    subscript(name: DiskEntryName) -> Entry? { entries[name] }

    /// What a listing of the folder found. Made by ``list(_:known:generation:)`` without the cache's lock held
    /// (listing 100 000 entries takes a few hundred milliseconds), then applied under it with ``merge(_:)``.
    struct Listing {
        var names: [DiskEntryName] = []
        /// Entries that were not in the index: their size and modification time.
        var found: [DiskEntryName: Entry] = [:]
        var folderModified: Double?
        var listedAt: Double = 0
        /// The index's generation when the listing started: entries written after it are kept by the merge
        /// even if the listing missed them.
        var generation: UInt64 = 0
        var isComplete = false
    }

    /// What ``list(_:known:generation:)`` needs: a copy of the entries (copy-on-write, so O(1) to take) and the
    /// generation. Taken under the lock.
    var listingSnapshot: (known: [DiskEntryName: Entry], generation: UInt64) { (entries, generation) }

    /// Lists the folder, reading the status only of names not in `known`. In a writable folder, stale
    /// temporary files and symbolic links posing as entries are deleted.
    func list(known: [DiskEntryName: Entry], generation: UInt64) -> Listing {
        var listing = Listing()
        listing.generation = generation
        listing.folderModified = FileSystem.status(path)?.modified
        listing.listedAt = CacheClock.system.now()
        listing.isComplete = FileSystem.forEachDirectoryEntry(path) { fileName, directory in
            if let name = DiskEntryName(fileName: fileName) {
                listing.names.append(name)
                guard known[name] == nil, let status = FileSystem.status(fileName, in: directory) else { return }
                guard status.isRegularFile else {
                    // Never follow a planted link; a folder with an entry's name is left alone.
                    if isWritable && !status.isDirectory { FileSystem.removeFile(path + "/" + fileName) }
                    return
                }
                listing.found[name] = Entry(fileSize: status.size, lastAccess: status.modified,
                                            persistedAccess: status.modified, generation: 0)
            } else if isWritable, fileName.hasPrefix(Self.temporaryPrefix),
                      let status = FileSystem.status(fileName, in: directory),
                      listing.listedAt - status.changed > staleTemporaryAge {
                // By change time: the modification time of an entry carries the cache clock's last access.
                FileSystem.removeFile(path + "/" + fileName)
            }
        }
        return listing
    }

    /// Makes the index match a listing. Entries already known keep their in-memory access time; entries this
    /// process wrote since the listing started are kept even when the listing missed them.
    mutating func merge(_ listing: Listing, statistics: inout DiskCache.Statistics) {
        statistics.folderScans += 1
        var merged: [DiskEntryName: Entry]
        if entries.isEmpty {
            merged = listing.found  // the first listing: everything was just read
        } else {
            merged = [:]
            merged.reserveCapacity(listing.names.count)
            for name in listing.names {
                if let known = entries[name] ?? listing.found[name] { merged[name] = known }
            }
        }
        for (name, entry) in entries where entry.generation > listing.generation { merged[name] = entry }
        entries = merged
        totalSize = merged.values.reduce(0) { $0 + $1.fileSize }
        isLoaded = true
        scannedModification = listing.folderModified
        scanMayHaveMissedChanges = listing.folderModified.map {
            abs(listing.listedAt - $0) < Self.timestampUncertainty
        } ?? false
    }

    /// Lists the folder and merges the listing, in one step (for the first use, when nothing can be answered
    /// before the index exists anyway).
    mutating func scan(statistics: inout DiskCache.Statistics) {
        merge(list(known: entries, generation: generation), statistics: &statistics)
    }

    /// Whether the folder's modification time says another process may have changed it since the last
    /// listing (one `stat`).
    mutating func mayHaveChanged(statistics: inout DiskCache.Statistics) -> Bool {
        statistics.folderChecks += 1
        return FileSystem.status(path)?.modified != scannedModification || scanMayHaveMissedChanges
    }

    /// Records an entry this process wrote (or found).
    mutating func insert(_ name: DiskEntryName, fileSize: Int, at time: Double) {
        generation += 1
        totalSize += fileSize - (entries[name]?.fileSize ?? 0)
        entries[name] = Entry(fileSize: fileSize, lastAccess: time, persistedAccess: time, generation: generation)
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
