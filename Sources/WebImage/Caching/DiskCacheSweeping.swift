extension DiskCache {
    /// Deletes entries unused for longer than ``Configuration/maxAge``, then, when the total is over
    /// ``Configuration/sizeLimit``, least recently used entries until it is at most ``Configuration/trimTarget``
    /// of the limit; stale temporary files go on the way, and the totals file is set from what the walk found.
    /// Runs in the background after writes that cross the limit and on the sweep timer; callable any time (it
    /// then runs on the caller's thread). When a sweep is already running, in this process or in another one on
    /// the same folder, returns at once with nothing removed.
    @discardableResult
    public func sweep() -> SweepReport {
        let claimed = state.withLock { state -> Bool in
            guard !state.isSweeping else { return false }
            state.isSweeping = true
            return true
        }
        guard claimed else { return currentReport(SweepReport()) }
        let limit = configuration.sizeLimit.map { (limit: $0, target: Int(Double($0) * configuration.trimTarget)) }
        let report = withFolderLock(wait: false) {
            sweepPass(maxAge: configuration.maxAge, sizeLimit: limit)
        } ?? currentReport(SweepReport())
        state.withLock { $0.isSweeping = false }
        configuration.sweepObserver?(report)
        return report
    }

    /// Deletes entries unused for longer than ``Configuration/maxAge`` (or `age` seconds when given). Waits for a
    /// sweep of another process to finish first.
    @discardableResult
    public func removeExpired(olderThan age: Double? = nil) -> SweepReport {
        guard let age = age ?? configuration.maxAge else { return currentReport(SweepReport()) }
        return withFolderLock(wait: true) { sweepPass(maxAge: age, sizeLimit: nil) } ?? currentReport(SweepReport())
    }

    /// Deletes least recently used entries until the main folder holds at most `size` bytes. Waits for a sweep of
    /// another process to finish first.
    @discardableResult
    public func trim(toSize size: Int) -> SweepReport {
        let size = max(0, size)
        return withFolderLock(wait: true) { sweepPass(maxAge: nil, sizeLimit: (size, size)) }
            ?? currentReport(SweepReport())
    }

    /// Runs `body` holding an exclusive `flock` on the main folder, which every sweep of every process takes:
    /// two sweeps deleting at once would each free the bytes the other already freed. The kernel releases the
    /// lock when a process dies, so a sweep killed half-way never blocks the next. `nil` when the folder does
    /// not exist (nothing to sweep) or, without `wait`, when another sweep holds the lock.
    private func withFolderLock(wait: Bool, _ body: () -> SweepReport) -> SweepReport? {
        guard let descriptor = FileSystem.openDirectory(main.path) else { return nil }
        defer { FileSystem.closeFile(descriptor) }
        guard FileSystem.lock(descriptor, exclusive: true, wait: wait) else { return nil }
        defer { FileSystem.unlock(descriptor) }
        return body()
    }

    /// One sweep: a walk that deletes expired entries, counts the rest and fills an age histogram, then sets the
    /// totals file; then, when the total is over `sizeLimit.limit`, a second walk that deletes the least
    /// recently used entries down to `sizeLimit.target`, adding its deletions to the totals chunk by chunk.
    private func sweepPass(maxAge: Double?, sizeLimit: (limit: Int, target: Int)?) -> SweepReport {
        flushTotals(force: true)
        let now = configuration.clock.now()
        var report = SweepReport()
        var totals = Totals(entries: 0, bytes: 0, surveyed: now)
        var histogram = DiskAgeHistogram()
        var remembered = state.withLock { $0.recentAccess }
        let observer = configuration.sweepChunkObserver
        main.walk(visit: { visit in
            let age = now - max(visit.status.modified, remembered[visit.name] ?? 0)
            if let maxAge, age > maxAge {
                if remove(visit) {
                    report.expiredEntries += 1
                    report.removedBytes += visit.status.size
                }
                return
            }
            totals.entries += 1
            totals.bytes += visit.status.size
            histogram.add(age: age, size: visit.status.size)
        }, chunkDone: {
            observer?(report)
            return true
        })
        state.withLock { $0.statistics.folderScans += 1 }
        var written = DiskTotalsFile.update(folder: main.path) { $0 = totals }

        if let sizeLimit, totals.bytes > sizeLimit.limit,
           let cut = histogram.cut(toFree: totals.bytes - sizeLimit.target) {
            let olderBytes = totals.bytes - sizeLimit.target - cut.budget
            var budget = cut.budget, removedOlder = 0
            var chunk = (entries: 0, bytes: 0)
            remembered = state.withLock { $0.recentAccess }
            func addChunk() {
                guard chunk.entries > 0 else { return }
                let removed = chunk
                written = DiskTotalsFile.update(folder: main.path) { totals in
                    totals?.entries -= removed.entries
                    totals?.bytes -= removed.bytes
                }
                chunk = (0, 0)
            }
            main.walk(visit: { visit in
                let size = visit.status.size
                let bucket = DiskAgeHistogram.bucket(ofAge: now - max(visit.status.modified, remembered[visit.name] ?? 0))
                guard bucket > cut.bucket || (bucket == cut.bucket && budget > 0) else { return }
                guard remove(visit) else { return }
                if bucket > cut.bucket { removedOlder += size } else { budget -= size }
                report.evictedEntries += 1
                report.removedBytes += size
                chunk.entries += 1
                chunk.bytes += size
            }, chunkDone: {
                addChunk()
                observer?(report)
                // Every older entry and the boundary's share are gone: the rest of the folder is younger.
                return removedOlder < olderBytes || budget > 0
            })
            addChunk()
            state.withLock { $0.statistics.folderScans += 1 }
        }
        state.withLock { $0.knownTotals = written }
        report.remainingEntries = written?.entries ?? 0
        report.remainingBytes = written?.bytes ?? 0
        return report
    }

    /// Deletes the entry a walk met, unless it was replaced or touched since (the same inode and modification
    /// time), under the rename lock so a store of this process never loses its fresh entry to a sweep.
    private func remove(_ visit: DiskFolder.Visit) -> Bool {
        let removed = renameLock.withLock { changes -> Bool in
            changes &+= 1
            guard let current = FileSystem.status(visit.fileName, in: visit.directory),
                  current.inode == visit.status.inode, current.device == visit.status.device,
                  current.modified == visit.status.modified else { return false }
            return FileSystem.removeFile(visit.fileName, in: visit.directory)
        }
        if removed { state.withLock { $0.recentAccess[visit.name] = nil } }
        return removed
    }

    /// `report` with the remaining entries and bytes from the totals file.
    private func currentReport(_ report: SweepReport) -> SweepReport {
        var report = report
        let totals = totals()
        report.remainingEntries = totals.entries
        report.remainingBytes = totals.bytes
        return report
    }
}
