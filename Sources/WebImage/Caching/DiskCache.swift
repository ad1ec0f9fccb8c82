import Foundation

/// A folder of image bytes, one file per entry, safe to share between threads and between processes, that
/// answers as fast with a million entries as with ten.
///
/// - **Names.** A file is named by the SHA-256 of its key in hex plus a short extension from the key's URL
///   path, so no key can reach outside the folder.
/// - **Entries.** Each file is a header (magic, version, key, format, validators, lengths, checksums; see
///   `DiskEntryHeader`) followed by the payload. It is written to a temporary file in the same folder and
///   renamed into place in one atomic step. A reader checks magic, version, lengths and both checksums; a
///   damaged or truncated entry is deleted and reads as a miss.
/// - **Lookups.** The file system is the index, as in SDWebImage, Kingfisher and Nuke: a lookup opens the one
///   path its key names. A miss costs one failed `open` (one per additional folder), a hit five or six system
///   calls, whatever the number of entries and in any process; nothing is listed or held in memory per entry.
///   Another process's writes are visible at once. (Listing the folder on first use and keeping ~750 bytes per
///   entry instead costs 10 s and 750 MB before the first answer at a million entries.)
/// - **Last access** is the file's modification time. A hit rewrites it at most once per
///   ``Configuration/accessTimeResolution``; hits in between are remembered in a small table (at most
///   `recentAccessCapacity` entries, ~80 bytes each; when it is full a hit writes the time at once).
/// - **Totals.** Where the baseline libraries list the whole folder to answer "how big is the cache", this one
///   keeps entries and bytes in a 48-byte file beside the entries, `.webimage-totals` (see `DiskTotalsFile`):
///   every process adds its stores and removals to it under `flock`, batched to once a second and when the cache
///   is released, and every sweep sets it from the folder itself. It survives restarts; it can drift between
///   sweeps only by what a process killed within a second of its writes did not add, and by two processes
///   replacing the same key at the same moment. ``totals()`` reads it; ``count`` and ``totalSize`` list the
///   folder for the exact numbers (and correct the file).
/// - **Limits.** Entries unused for ``Configuration/maxAge`` read as misses and are deleted at once; sweeps
///   delete the rest. When the totals go over ``Configuration/sizeLimit``, a sweep in the background deletes
///   least recently used entries down to ``Configuration/trimTarget`` of it. Sweeps walk the folder in chunks
///   of 1 024 names with no lock held across chunks (a deletion holds this process's rename lock for two system
///   calls), find the oldest entries with a fixed-size age histogram instead of sorting (see
///   `DiskAgeHistogram`), and take an `flock` on the folder so that two processes never sweep it at once; a
///   sweep killed half-way leaves whole entries and totals that the next sweep corrects.
/// - **Additional folders** are searched, read-only, after the main one (SDWebImage's additional cache paths).
///
/// The methods block on file I/O: call them from `IOExecutor` lanes (as ``ImageCache`` does) or from a
/// thread that may wait, not from many cooperative-pool tasks at once.
public final class DiskCache: Sendable {
    /// The folder entries are written to.
    public let folder: URL
    /// Read-only folders searched after ``folder``.
    public let additionalFolders: [URL]
    /// The limits and behaviour chosen at creation.
    public let configuration: Configuration

    /// At most this many hits are remembered in memory before their time is written to their file.
    static let recentAccessCapacity = 4096
    /// This process's changes to the totals are added to the totals file at most this often (seconds).
    static let totalsFlushInterval = 1.0

    struct State {
        /// Hits whose time is not yet in their file's modification time.
        var recentAccess: [DiskEntryName: Double] = [:]
        /// This process's changes not yet added to the totals file.
        var pendingEntries = 0
        var pendingBytes = 0
        var lastFlush = CacheClock.system.now()
        /// The totals file as last read or written; `nil` until read, or when unknown.
        var knownTotals: Totals?
        var totalsRead = false
        var statistics = Statistics()
        var isSweeping = false
        var sweepScheduled = false
    }

    let state: Locked<State>
    /// Held around every rename into place and every deletion, so that a sweep never deletes an entry this
    /// process has just written; the value counts those changes. (Not `Locked<Void>`: ThreadSanitizer reports the
    /// zero-sized value's accesses as races on the lock object itself.)
    let renameLock = Locked<UInt64>(0)
    let main: DiskFolder
    let extras: [DiskFolder]
    /// Where sweeps run, one at a time, off the callers' threads.
    let maintenance: DispatchQueue
    private let sweepTask = Locked<Task<Void, Never>?>(nil)

    /// A cache in `folder` (created on first write), searching `additionalFolders` after it.
    public init(folder: URL, additionalFolders: [URL] = [], configuration: Configuration = Configuration()) {
        self.folder = folder.standardizedFileURL
        self.additionalFolders = additionalFolders.map(\.standardizedFileURL)
        self.configuration = configuration
        state = Locked(State())
        main = DiskFolder(path: Self.path(of: self.folder), isWritable: true,
                          staleTemporaryAge: configuration.staleTemporaryAge)
        extras = self.additionalFolders.map { DiskFolder(path: Self.path(of: $0), isWritable: false, staleTemporaryAge: 0) }
        maintenance = DispatchQueue(label: "swift-web-image.disk-cache.sweep", qos: .utility)
        if let interval = configuration.sweepInterval, interval > 0 { startSweeping(every: interval) }
    }

    /// A cache in ``defaultFolder(namespace:)``.
    public convenience init(
        namespace: String = "default", additionalFolders: [URL] = [], configuration: Configuration = Configuration()
    ) {
        self.init(folder: Self.defaultFolder(namespace: namespace), additionalFolders: additionalFolders,
                  configuration: configuration)
    }

    deinit {
        sweepTask.withLock { $0?.cancel() }
        flushTotals(force: true)
    }

    /// An entry's bytes with what is recorded about them.
    package struct Entry: Sendable {
        /// The stored bytes.
        package var data: Data
        /// The entry's header and times.
        package var metadata: CacheEntryMetadata
    }

    // MARK: Reading

    /// The bytes stored for `key`, or `nil` (absent, expired, or damaged — a damaged entry is deleted).
    public func data(forKey key: String) -> Data? {
        entry(forKey: key)?.data
    }

    /// The bytes and metadata stored for `key`, or `nil`. A hit counts as an access for the age limit and
    /// the least-recently-used order.
    package func entry(forKey key: String) -> Entry? {
        lookUp(key, withPayload: true).map { Entry(data: $0.payload ?? Data(), metadata: $0.metadata) }
    }

    /// The metadata stored for `key`, reading only the entry's header; `nil` when absent or damaged.
    /// Does not count as an access.
    public func metadata(forKey key: String) -> CacheEntryMetadata? {
        lookUp(key, withPayload: false)?.metadata
    }

    /// Whether an entry for `key` exists: one `lstat` per folder, no file opened.
    public func contains(_ key: String) -> Bool {
        let name = DiskEntryName(key: key)
        let now = configuration.clock.now()
        let remembered = state.withLock { $0.recentAccess[name] }
        var operations = 0
        defer { state.withLock { $0.statistics.fileOperations += operations } }
        for (index, folder) in ([main] + extras).enumerated() {
            operations += 1
            guard let status = FileSystem.status(name.fileName(in: folder.path)), status.isRegularFile else { continue }
            return index > 0 || !isExpired(status, remembered: remembered, now: now)
        }
        return false
    }

    // MARK: Writing

    /// Stores `data` for `key` with `validators`, replacing any earlier entry, atomically. `format` is
    /// recorded in the metadata; when not given it is detected from the first bytes of `data`.
    ///
    /// Throws `ImageError.Code.io` when the file cannot be written (a full disk, a read-only folder); no
    /// partial or temporary file is left behind then.
    public func store(
        _ data: Data, forKey key: String, format: ImageFormat? = nil, validators: HTTPValidators = .none
    ) throws(ImageError) {
        let now = configuration.clock.now()
        let checksum = data.withUnsafeBytes { EntryChecksum.hash($0) }
        // Magic bytes sit in the first bytes; detecting on all of `data` would also scan it for SVG text.
        let format = format ?? ImageFormat.detect(data.prefix(64))
        let header: [UInt8]
        do {
            header = try DiskEntryHeader(
                key: key, format: format.rawValue, created: now, validators: validators,
                payloadLength: data.count, payloadChecksum: checksum
            ).encoded()
        } catch {
            throw ImageError(.io, "cannot store the entry: \(error.description)")
        }
        let name = DiskEntryName(key: key)
        let written: (path: String, size: Int)
        do {
            written = try DiskEntryFile.writeTemporary(in: main.path, header: header, payload: data,
                                                       modificationTime: now, synchronous: configuration.synchronousWrites)
        } catch {
            // The folder may not exist yet, or was deleted behind our back: create it unless another store has
            // meanwhile (the first stores into a new folder race here), and try once more either way. A folder
            // this process creates is empty, so its totals start at zero. Any other failure (a full disk) fails
            // the second write too, and that error is thrown.
            if FileSystem.status(main.path)?.isDirectory != true {
                try FileSystem.makeDirectories(main.path)
                DiskTotalsFile.update(folder: main.path) { totals in
                    if totals == nil { totals = Totals(entries: 0, bytes: 0) }
                }
            }
            written = try DiskEntryFile.writeTemporary(in: main.path, header: header, payload: data,
                                                       modificationTime: now, synchronous: configuration.synchronousWrites)
        }
        let destination = name.fileName(in: main.path)
        let replaced = try renameLock.withLock { changes throws(ImageError) -> FileSystem.Status? in
            changes &+= 1
            let replaced = FileSystem.status(destination)
            if let error = FileSystem.renameFile(written.path, to: destination) {
                FileSystem.removeFile(written.path)
                throw ImageError(.io, "cannot move a cache entry into place: \(error)")
            }
            return replaced
        }
        let oldSize = replaced.flatMap { $0.isRegularFile ? $0.size : nil }
        state.withLock { state in
            state.recentAccess[name] = nil
            state.pendingEntries += oldSize == nil ? 1 : 0
            state.pendingBytes += written.size - (oldSize ?? 0)
            state.statistics.writes += 1
        }
        flushTotals(force: false)
        scheduleSweepIfOverLimit()
    }

    // MARK: Removing

    /// Deletes the entry for `key` from the main folder (whether or not this process had seen it).
    public func remove(forKey key: String) {
        let name = DiskEntryName(key: key)
        let path = name.fileName(in: main.path)
        let removed = renameLock.withLock { changes -> Int? in
            changes &+= 1
            guard let status = FileSystem.status(path), FileSystem.removeFile(path) else { return nil }
            return status.isRegularFile ? status.size : nil
        }
        state.withLock { state in
            state.recentAccess[name] = nil
            if let removed { state.noteRemoval(bytes: removed) }
        }
    }

    /// Deletes every entry of the main folder (the folder itself stays). Writes still in progress in other
    /// processes are left alone.
    public func removeAll() {
        removeAllEntries()
    }

    /// Deletes every entry of the main folder, like ``removeAll()``, and reports what was deleted. The totals
    /// are set to zero.
    @discardableResult
    public func removeAllEntries() -> SweepReport {
        var report = SweepReport()
        main.walk(visit: { visit in
            let removed = renameLock.withLock { changes in
                changes &+= 1
                return FileSystem.removeFile(visit.fileName, in: visit.directory)
            }
            if removed {
                report.evictedEntries += 1
                report.removedBytes += visit.status.size
            }
        })
        state.withLock { state in
            state.recentAccess = [:]
            state.pendingEntries = 0
            state.pendingBytes = 0
            state.statistics.folderScans += 1
        }
        let now = configuration.clock.now()
        let totals = DiskTotalsFile.update(folder: main.path) { $0 = Totals(entries: 0, bytes: 0, surveyed: now) }
        state.withLock { $0.knownTotals = totals }
        return report
    }

    // MARK: Inspecting

    /// Bytes of all entry files in the main folder, headers included: exact, by listing the folder (as
    /// SDWebImage's `totalSize`); ``totals()`` answers without a listing.
    public var totalSize: Int { exactTotals().bytes }
    /// Entries in the main folder: exact, by listing the folder; ``totals()`` answers without a listing.
    public var count: Int { exactTotals().entries }
    /// Counters since creation (for tests and benchmarks).
    @_spi(Instrumentation)
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The totals of the main folder from its totals file, with this process's changes added: a few system
    /// calls whatever the number of entries. Lists the folder only when there is no valid totals file yet (a
    /// folder written by an older version, or a torn file), and writes one then.
    public func totals() -> Totals {
        flushTotals(force: true)
        if let totals = DiskTotalsFile.read(folder: main.path) {
            state.withLock { $0.knownTotals = totals }
            return totals
        }
        guard FileSystem.status(main.path)?.isDirectory == true else { return Totals(entries: 0, bytes: 0) }
        return exactTotals()
    }

    /// The totals found by listing the whole folder and reading the status of every entry (deleting stale
    /// temporary files and links posing as entries on the way); the totals file is set to them.
    public func exactTotals() -> Totals {
        flushTotals(force: true)
        var totals = Totals(entries: 0, bytes: 0, surveyed: configuration.clock.now())
        let listed = main.walk(visit: { visit in
            totals.entries += 1
            totals.bytes += visit.status.size
        })
        state.withLock { $0.statistics.folderScans += 1 }
        guard listed else { return Totals(entries: 0, bytes: 0) }
        DiskTotalsFile.update(folder: main.path) { $0 = totals }
        state.withLock { $0.knownTotals = totals }
        return totals
    }

    /// Calls `body` with the metadata of every valid entry in the main folder, least recently used first
    /// (reading each header; damaged entries met on the way are deleted). Return `false` to stop. Lists the
    /// folder and sorts it in memory: for tools and tests, not for the path of a request.
    public func enumerateEntries(_ body: (CacheEntryMetadata) throws -> Bool) rethrows {
        var found: [(fileName: String, name: DiskEntryName, lastAccess: Double)] = []
        let remembered = state.withLock { $0.recentAccess }
        main.walk(visit: { visit in
            found.append((visit.fileName, visit.name, max(visit.status.modified, remembered[visit.name] ?? 0)))
        })
        found.sort { $0.lastAccess < $1.lastAccess }
        for item in found {
            var operations = 0
            let path = main.path + "/" + item.fileName
            let outcome = DiskEntryFile.read(at: path, key: nil, withPayload: false, operations: &operations)
            guard case .entry(let header, _, let status) = outcome else {
                handleFailedRead(outcome, name: item.name, path: path, isMain: true)
                continue
            }
            if try !body(Self.metadata(header, status: status, lastAccess: item.lastAccess)) { return }
        }
    }

    /// Writes the access times remembered in memory into their files and reads the totals file again on next
    /// use (the index this method once reset no longer exists).
    public func reloadIndex() {
        let remembered = state.withLock { state in
            defer {
                state.recentAccess = [:]
                state.knownTotals = nil
                state.totalsRead = false
            }
            return state.recentAccess
        }
        for (name, time) in remembered { FileSystem.setModificationTime(name.fileName(in: main.path), to: time) }
    }

    // MARK: Internals

    static func metadata(_ header: DiskEntryHeader, status: FileSystem.Status, lastAccess: Double)
        -> CacheEntryMetadata {
        CacheEntryMetadata(
            key: header.key, format: ImageFormat(rawValue: header.format) ?? .unknown,
            payloadLength: header.payloadLength, fileSize: status.size, created: header.created,
            lastAccess: lastAccess, validators: header.validators)
    }

    static func path(of url: URL) -> String {
        let path = url.path
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    private func startSweeping(every interval: Double) {
        let task = Task.detached(priority: .background) { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(interval)) } catch { return }
                guard let cache = self else { return }
                await withCheckedContinuation { continuation in
                    cache.maintenance.async {
                        cache.sweep()
                        continuation.resume()
                    }
                }
            }
        }
        sweepTask.withLock { $0 = task }
    }
}

extension DiskCache.State {
    mutating func noteRemoval(bytes: Int) {
        pendingEntries -= 1
        pendingBytes -= bytes
    }
}
