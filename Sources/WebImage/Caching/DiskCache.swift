import Foundation

/// A folder of image bytes, one file per entry, safe to share between threads and between processes.
///
/// - **Names.** A file is named by the SHA-256 of its key in hex plus a short extension from the key's URL
///   path, so no key can reach outside the folder.
/// - **Entries.** Each file is a header (magic, version, key, format, validators, lengths, checksums; see
///   `DiskEntryHeader`) followed by the payload. It is written to a temporary file in the same folder and
///   renamed into place in one atomic step: no side files, no extended attributes. A reader checks magic,
///   version, lengths and both checksums; a damaged or truncated entry is deleted and reads as a miss.
/// - **Index.** The folder is listed once, on first use; from then on the index in memory answers misses
///   without a system call. Another process's writes become visible on a miss after at most
///   ``Configuration/externalChangeInterval`` (the folder's modification time is checked, then the folder
///   rescanned if it moved). Two processes never corrupt each other: every write goes to its own temporary
///   file and renames are atomic, so a reader sees a whole old entry, a whole new one, or none. The worst a
///   race can do is lose an entry (a miss), never damage one.
/// - **Limits.** Entries unused for ``Configuration/maxAge`` are deleted (a read finds them expired at once;
///   sweeps delete the rest); when a write takes the total over ``Configuration/sizeLimit``, least recently
///   used entries are deleted down to ``Configuration/trimTarget`` of it; a timer sweeps every
///   ``Configuration/sweepInterval`` while the cache lives.
/// - **Additional folders** are searched, read-only, after the main one (SDWebImage's additional cache paths).
///
/// The methods block on file I/O: call them from ``IOExecutor`` lanes (as ``ImageCache`` does) or from a
/// thread that may wait, not from many cooperative-pool tasks at once.
public final class DiskCache: Sendable {
    /// The folder entries are written to.
    public let folder: URL
    /// Read-only folders searched after ``folder``.
    public let additionalFolders: [URL]
    /// The limits and behaviour chosen at creation.
    public let configuration: Configuration

    struct State {
        var main: DiskFolderIndex
        var extras: [DiskFolderIndex]
        var lastExternalCheck = -Double.infinity
        var statistics = Statistics()
        var isSweeping = false
    }

    let state: Locked<State>
    private let sweepTask = Locked<Task<Void, Never>?>(nil)

    /// A cache in `folder` (created on first write), searching `additionalFolders` after it.
    public init(folder: URL, additionalFolders: [URL] = [], configuration: Configuration = Configuration()) {
        self.folder = folder.standardizedFileURL
        self.additionalFolders = additionalFolders.map(\.standardizedFileURL)
        self.configuration = configuration
        state = Locked(State(
            main: DiskFolderIndex(path: Self.path(of: self.folder), isWritable: true,
                                  staleTemporaryAge: configuration.staleTemporaryAge),
            extras: self.additionalFolders.map { DiskFolderIndex(path: Self.path(of: $0), isWritable: false) }))
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
    }

    /// An entry's bytes with what is recorded about them.
    public struct Entry: Sendable {
        /// The stored bytes.
        public var data: Data
        /// The entry's header and times.
        public var metadata: CacheEntryMetadata
    }

    // MARK: Reading

    /// The bytes stored for `key`, or `nil` (absent, expired, or damaged — a damaged entry is deleted).
    public func data(forKey key: String) -> Data? {
        entry(forKey: key)?.data
    }

    /// The bytes and metadata stored for `key`, or `nil`. A hit counts as an access for the age limit and
    /// the least-recently-used order.
    public func entry(forKey key: String) -> Entry? {
        let name = DiskEntryName(key: key)
        let now = configuration.clock.now()
        guard let location = locate(name, now: now, countingMiss: true) else { return nil }
        let persist = location.isMain && now - location.persistedAccess >= configuration.accessTimeResolution
        let outcome = DiskEntryFile.read(at: location.path, key: key, withPayload: true, touchAt: persist ? now : nil)
        return state.withLock { state -> Entry? in
            state.statistics.fileOpens += 1
            guard case .entry(let header, let payload?, let status) = outcome else {
                handleFailedRead(outcome, name: name, location: location, state: &state)
                state.statistics.misses += 1
                return nil
            }
            state.statistics.hits += 1
            if location.isMain { state.main.recordAccess(name, at: now, persisted: persist) }
            return Entry(data: payload, metadata: Self.metadata(header, status: status, lastAccess: now))
        }
    }

    /// The metadata stored for `key`, reading only the entry's header; `nil` when absent or damaged.
    /// Does not count as an access.
    public func metadata(forKey key: String) -> CacheEntryMetadata? {
        let name = DiskEntryName(key: key)
        let now = configuration.clock.now()
        guard let location = locate(name, now: now) else { return nil }
        let outcome = DiskEntryFile.read(at: location.path, key: key, withPayload: false, touchAt: nil)
        return state.withLock { state -> CacheEntryMetadata? in
            state.statistics.fileOpens += 1
            guard case .entry(let header, _, let status) = outcome else {
                handleFailedRead(outcome, name: name, location: location, state: &state)
                return nil
            }
            let lastAccess = location.isMain ? state.main[name]?.lastAccess ?? status.modified : status.modified
            return Self.metadata(header, status: status, lastAccess: lastAccess)
        }
    }

    /// Whether an entry for `key` exists, from the index alone (no file is opened).
    public func contains(_ key: String) -> Bool {
        locate(DiskEntryName(key: key), now: configuration.clock.now()) != nil
    }

    // MARK: Writing

    /// Stores `data` for `key` with `validators`, replacing any earlier entry, atomically. `format` is
    /// recorded in the metadata; when not given it is detected from the first bytes of `data`.
    ///
    /// Throws ``ImageError/Code/io`` when the file cannot be written (a full disk, a read-only folder); no
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
        let folderPath = Self.path(of: folder)
        let written: (path: String, size: Int)
        do {
            written = try DiskEntryFile.writeTemporary(in: folderPath, header: header, payload: data,
                                                       modificationTime: now, synchronous: configuration.synchronousWrites)
        } catch {
            // The folder may not exist yet, or was deleted behind our back: create it and try once more.
            guard FileSystem.status(folderPath)?.isDirectory != true else { throw error }
            try FileSystem.makeDirectories(folderPath)
            written = try DiskEntryFile.writeTemporary(in: folderPath, header: header, payload: data,
                                                       modificationTime: now, synchronous: configuration.synchronousWrites)
        }
        let needsSweep = try state.withLock { state throws(ImageError) -> Bool in
            loadIfNeeded(&state)
            // Renames happen under the lock so that a sweep in this process never deletes a fresh entry.
            if let error = FileSystem.renameFile(written.path, to: state.main.filePath(name)) {
                FileSystem.removeFile(written.path)
                throw ImageError(.io, "cannot move a cache entry into place: \(error)")
            }
            state.main.insert(name, fileSize: written.size, at: now)
            state.statistics.writes += 1
            guard let limit = configuration.sizeLimit, state.main.totalSize > limit, !state.isSweeping else { return false }
            state.isSweeping = true
            return true
        }
        if needsSweep { finishSweep(performSweep()) }
    }

    /// Rewrites the validators of the entry for `key` and stamps it as freshly created (after a `304 Not
    /// Modified`). Returns `false` when there is no valid entry.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) throws(ImageError) -> Bool {
        guard let entry = entry(forKey: key) else { return false }
        try store(entry.data, forKey: key, format: entry.metadata.format, validators: validators)
        return true
    }

    // MARK: Removing

    /// Deletes the entry for `key` from the main folder (whether or not this process had seen it).
    public func remove(forKey key: String) {
        let name = DiskEntryName(key: key)
        state.withLock { state in
            loadIfNeeded(&state)
            state.main.forget(name)
            FileSystem.removeFile(state.main.filePath(name))
        }
    }

    /// Deletes every entry of the main folder (the folder itself stays). Writes still in progress in other
    /// processes are left alone.
    public func removeAll() {
        state.withLock { state in
            let path = state.main.path
            for fileName in FileSystem.contentsOfDirectory(path) ?? [] where DiskEntryName(fileName: fileName) != nil {
                FileSystem.removeFile(path + "/" + fileName)
            }
            state.main.scan(statistics: &state.statistics)
        }
    }

    // MARK: Inspecting

    /// Bytes of all entry files in the main folder, headers included.
    public var totalSize: Int { state.withLock { loadIfNeeded(&$0); return $0.main.totalSize } }
    /// Entries in the main folder.
    public var count: Int { state.withLock { loadIfNeeded(&$0); return $0.main.entries.count } }
    /// Counters since creation.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Calls `body` with the metadata of every valid entry in the main folder, least recently used first
    /// (reading each header; damaged entries met on the way are deleted). Return `false` to stop.
    public func enumerateEntries(_ body: (CacheEntryMetadata) throws -> Bool) rethrows {
        let names = state.withLock { state in
            loadIfNeeded(&state)
            return state.main.entriesByAge().map { (name: $0.name, path: state.main.filePath($0.name)) }
        }
        for (name, path) in names {
            let outcome = DiskEntryFile.read(at: path, key: nil, withPayload: false, touchAt: nil)
            let metadata = state.withLock { state -> CacheEntryMetadata? in
                state.statistics.fileOpens += 1
                guard case .entry(let header, _, let status) = outcome else {
                    handleFailedRead(outcome, name: name, location: Location(path: path, isMain: true, extraIndex: nil,
                                                                              persistedAccess: 0), state: &state)
                    return nil
                }
                return Self.metadata(header, status: status, lastAccess: state.main[name]?.lastAccess ?? status.modified)
            }
            if let metadata, try !body(metadata) { return }
        }
    }

    /// Forgets the index so the next use lists the folders again.
    public func reloadIndex() {
        state.withLock { state in
            state.main = DiskFolderIndex(path: state.main.path, isWritable: true,
                                         staleTemporaryAge: configuration.staleTemporaryAge)
            state.extras = state.extras.map { DiskFolderIndex(path: $0.path, isWritable: false) }
        }
    }

    // MARK: Internals

    struct Location {
        var path: String
        var isMain: Bool
        var extraIndex: Int?
        var persistedAccess: Double
    }

    /// Where the entry `name` is, from the index; expired entries are deleted on the way. On a miss, other
    /// processes' changes are looked for at most once per `externalChangeInterval`: one `stat` of each folder,
    /// and a listing of those that changed, made without the lock held.
    private func locate(_ name: DiskEntryName, now: Double, countingMiss: Bool = false) -> Location? {
        let outcome = state.withLock { state -> Result<Location, RescanPlan> in
            loadIfNeeded(&state)
            if let found = find(name, now: now, state: &state) { return .success(found) }
            var plan = RescanPlan()
            if now - state.lastExternalCheck >= configuration.externalChangeInterval {
                state.lastExternalCheck = now
                if state.main.mayHaveChanged(statistics: &state.statistics) { plan.folders.append(nil) }
                for index in state.extras.indices where state.extras[index].isLoaded
                    && state.extras[index].mayHaveChanged(statistics: &state.statistics) {
                    plan.folders.append(index)
                }
            }
            if plan.folders.isEmpty, countingMiss { state.statistics.misses += 1 }
            return .failure(plan)
        }
        guard case .failure(let plan) = outcome else { return try? outcome.get() }
        guard !plan.folders.isEmpty else { return nil }
        for folder in plan.folders { relist(folder) }
        return state.withLock { state in
            let found = find(name, now: now, state: &state)
            if found == nil, countingMiss { state.statistics.misses += 1 }
            return found
        }
    }

    /// Folders to list again: `nil` for the main one, else an index into the additional ones.
    private struct RescanPlan: Error {
        var folders: [Int?] = []
    }

    /// Lists a folder again without holding the lock, then merges the listing under it.
    func relist(_ folder: Int?) {
        let (index, snapshot) = state.withLock { state in
            let index = folder.map { state.extras[$0] } ?? state.main
            return (index, index.listingSnapshot)
        }
        let listing = index.list(known: snapshot.known, generation: snapshot.generation)
        state.withLock { state in
            if let folder {
                state.extras[folder].merge(listing, statistics: &state.statistics)
            } else {
                state.main.merge(listing, statistics: &state.statistics)
            }
        }
    }

    private func find(_ name: DiskEntryName, now: Double, state: inout State) -> Location? {
        if let entry = state.main[name] {
            if let maxAge = configuration.maxAge, now - entry.lastAccess > maxAge {
                state.main.forget(name)
                FileSystem.removeFile(state.main.filePath(name))
            } else {
                return Location(path: state.main.filePath(name), isMain: true, extraIndex: nil,
                                persistedAccess: entry.persistedAccess)
            }
        }
        for index in state.extras.indices {
            if !state.extras[index].isLoaded { state.extras[index].scan(statistics: &state.statistics) }
            if state.extras[index][name] != nil {
                return Location(path: state.extras[index].filePath(name), isMain: false, extraIndex: index,
                                persistedAccess: 0)
            }
        }
        return nil
    }

    /// After a read that found no valid entry: forget it, and delete a damaged file in the main folder —
    /// only if it is still the very file that was read.
    private func handleFailedRead(_ outcome: DiskEntryFile.ReadOutcome, name: DiskEntryName, location: Location,
                                  state: inout State) {
        if case .damaged(_, let device, let inode) = outcome {
            state.statistics.damagedEntries += 1
            if location.isMain, let current = FileSystem.status(location.path),
               inode == 0 || (current.device == device && current.inode == inode) {
                FileSystem.removeFile(location.path)
            }
        }
        if location.isMain {
            state.main.forget(name)
        } else if let index = location.extraIndex {
            state.extras[index].forget(name)
        }
    }

    /// Lists the main folder on first use. The listing is as fresh as a change check, so the next check for
    /// other processes' changes is due one interval later.
    func loadIfNeeded(_ state: inout State) {
        guard !state.main.isLoaded else { return }
        state.main.scan(statistics: &state.statistics)
        state.lastExternalCheck = configuration.clock.now()
    }

    private static func metadata(_ header: DiskEntryHeader, status: FileSystem.Status, lastAccess: Double)
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
                _ = await IOExecutor.shared.run { cache.sweep() }
            }
        }
        sweepTask.withLock { $0 = task }
    }
}
