import Foundation

extension DiskCache {
    /// What a lookup found.
    struct Found {
        var payload: Data?
        var metadata: CacheEntryMetadata
    }

    /// Opens the file `key` names in the main folder, then in each additional folder: a bounded number of system
    /// calls whatever the number of entries. With `withPayload` it is a read (a hit counts as an access);
    /// without, only the header is read. An entry of the main folder unused for longer than the age limit is
    /// deleted and reads as a miss.
    func lookUp(_ key: String, withPayload: Bool) -> Found? {
        let name = DiskEntryName(key: key)
        let now = configuration.clock.now()
        let (remembered, tableIsFull) = state.withLock {
            ($0.recentAccess[name], $0.recentAccess.count >= Self.recentAccessCapacity)
        }
        var operations = 0
        let resolution = configuration.accessTimeResolution
        for (index, folder) in ([main] + extras).enumerated() {
            let isMain = index == 0
            let path = name.fileName(in: folder.path)
            let outcome = DiskEntryFile.read(
                at: path, key: key, withPayload: withPayload, operations: &operations,
                isExpired: { isMain && isExpired($0, remembered: remembered, now: now) },
                touchTime: { status in
                    // The time goes into the file once per resolution, or at once when the table is full.
                    isMain && withPayload && (now - status.modified >= resolution || tableIsFull) ? now : nil
                })
            switch outcome {
            case .missing:
                continue
            case .entry(let header, let payload, let status):
                let lastAccess = withPayload ? now : max(status.modified, remembered ?? 0)
                state.withLock { state in
                    state.statistics.fileOpens += 1
                    state.statistics.fileOperations += operations
                    guard withPayload else { return }
                    state.statistics.hits += 1
                    guard isMain else { return }
                    if now - status.modified >= resolution || tableIsFull {
                        state.recentAccess[name] = nil
                    } else {
                        state.recentAccess[name] = now
                    }
                }
                return Found(payload: payload, metadata: Self.metadata(header, status: status, lastAccess: lastAccess))
            case .damaged, .expired:
                operations += handleFailedRead(outcome, name: name, path: path, isMain: isMain)
                state.withLock { state in
                    state.statistics.fileOpens += 1
                    state.statistics.fileOperations += operations
                    if withPayload { state.statistics.misses += 1 }
                }
                return nil
            }
        }
        state.withLock { state in
            state.statistics.fileOperations += operations
            if withPayload { state.statistics.misses += 1 }
        }
        return nil
    }

    /// Whether an entry whose file has `status` is past the age limit; `remembered` is a later access known to
    /// this process only.
    func isExpired(_ status: FileSystem.Status, remembered: Double?, now: Double) -> Bool {
        guard let maxAge = configuration.maxAge else { return false }
        return now - max(status.modified, remembered ?? 0) > maxAge
    }

    /// After a read that found no valid entry: in the main folder, delete a damaged or expired file — only if it
    /// is still the very file that was read — and count it out of the totals. Returns the system calls made.
    @discardableResult
    func handleFailedRead(_ outcome: DiskEntryFile.ReadOutcome, name: DiskEntryName, path: String,
                          isMain: Bool) -> Int {
        let identity: (device: UInt64, inode: UInt64)
        switch outcome {
        case .damaged(_, let device, let inode):
            state.withLock { $0.statistics.damagedEntries += 1 }
            identity = (device, inode)
        case .expired(_, let device, let inode):
            identity = (device, inode)
        case .missing, .entry:
            return 0
        }
        guard isMain else { return 0 }
        let removed = renameLock.withLock { changes -> Int? in
            changes &+= 1
            guard let current = FileSystem.status(path),
                  identity.inode == 0 || (current.device == identity.device && current.inode == identity.inode),
                  FileSystem.removeFile(path) else { return nil }
            return current.isRegularFile ? current.size : nil
        }
        state.withLock { state in
            state.recentAccess[name] = nil
            if let removed { state.noteRemoval(bytes: removed) }
        }
        return 2
    }

    /// Adds this process's changes to the totals file: when `force`, or when the last time was more than
    /// ``totalsFlushInterval`` ago. The totals file is read on the way, so other processes' changes are seen
    /// as often. Nothing is added while the totals are unknown: the next sweep sets them from the folder.
    func flushTotals(force: Bool) {
        let realNow = CacheClock.system.now()
        let pending = state.withLock { state -> (entries: Int, bytes: Int)? in
            let due = force || realNow - state.lastFlush >= Self.totalsFlushInterval || !state.totalsRead
            guard due else { return nil }
            state.lastFlush = realNow
            defer {
                state.pendingEntries = 0
                state.pendingBytes = 0
            }
            return (state.pendingEntries, state.pendingBytes)
        }
        guard let pending else { return }
        let totals: Totals?
        if pending.entries == 0 && pending.bytes == 0 {
            totals = DiskTotalsFile.read(folder: main.path)
        } else {
            totals = DiskTotalsFile.update(folder: main.path) { totals in
                totals?.entries += pending.entries
                totals?.bytes += pending.bytes
            }
        }
        state.withLock { state in
            state.knownTotals = totals
            state.totalsRead = true
        }
    }

    /// Starts a sweep in the background when the totals say the size limit is passed, or when they are unknown
    /// and there is a limit to keep (the sweep sets them). Never waits for it.
    func scheduleSweepIfOverLimit() {
        guard let limit = configuration.sizeLimit else { return }
        let start = state.withLock { state -> Bool in
            guard !state.sweepScheduled, !state.isSweeping else { return false }
            let estimate = state.knownTotals.map { $0.bytes + state.pendingBytes }
            guard estimate.map({ $0 > limit }) ?? true else { return false }
            state.sweepScheduled = true
            return true
        }
        guard start else { return }
        maintenance.async { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.sweepScheduled = false }
            self.sweep()
        }
    }

    /// Waits until the sweeps started so far have finished (for tests and tools).
    func waitForBackgroundSweeps() {
        maintenance.sync {}
    }
}
