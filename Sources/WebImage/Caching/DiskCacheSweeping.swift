extension DiskCache {
    /// Deletes entries unused for longer than ``Configuration/maxAge``, then, when the total is over
    /// ``Configuration/sizeLimit``, least recently used entries until it is at most ``Configuration/trimTarget``
    /// of the limit. The folder is listed again first, so other processes' entries and stale temporary files
    /// are accounted for. Runs after writes that cross the limit and on the sweep timer; callable any time.
    /// When a sweep is already running, returns at once with nothing removed.
    @discardableResult
    public func sweep() -> SweepReport {
        let claimed = state.withLock { state -> Bool in
            guard !state.isSweeping else { return false }
            state.isSweeping = true
            return true
        }
        guard claimed else { return currentReport(SweepReport()) }
        return finishSweep(performSweep())
    }

    /// Deletes entries unused for longer than ``Configuration/maxAge`` (or `age` seconds when given).
    @discardableResult
    public func removeExpired(olderThan age: Double? = nil) -> SweepReport {
        var report = SweepReport()
        if let age = age ?? configuration.maxAge {
            report.expiredEntries = removeUnused(for: age, removedBytes: &report.removedBytes)
        }
        return currentReport(report)
    }

    /// Deletes least recently used entries until the main folder holds at most `size` bytes.
    @discardableResult
    public func trim(toSize size: Int) -> SweepReport {
        var report = SweepReport()
        report.evictedEntries = evict(downTo: max(0, size), removedBytes: &report.removedBytes)
        return currentReport(report)
    }

    /// The sweep itself; the caller has set `isSweeping`.
    func performSweep() -> SweepReport {
        relist(nil)
        var report = SweepReport()
        if let age = configuration.maxAge {
            report.expiredEntries = removeUnused(for: age, removedBytes: &report.removedBytes)
        }
        if let limit = configuration.sizeLimit, state.withLock({ $0.main.totalSize }) > limit {
            let target = Int(Double(limit) * configuration.trimTarget)
            report.evictedEntries = evict(downTo: target, removedBytes: &report.removedBytes)
        }
        return report
    }

    /// Clears `isSweeping`, fills in what is left and tells the observer.
    @discardableResult
    func finishSweep(_ report: SweepReport) -> SweepReport {
        state.withLock { $0.isSweeping = false }
        let report = currentReport(report)
        configuration.sweepObserver?(report)
        return report
    }

    private func currentReport(_ report: SweepReport) -> SweepReport {
        var report = report
        state.withLock { state in
            loadIfNeeded(&state)
            report.remainingEntries = state.main.entries.count
            report.remainingBytes = state.main.totalSize
        }
        return report
    }

    private func removeUnused(for age: Double, removedBytes: inout Int) -> Int {
        let cutoff = configuration.clock.now() - age
        let candidates = state.withLock { state in
            loadIfNeeded(&state)
            return state.main.entriesByAge().prefix { $0.entry.lastAccess < cutoff }.map { ($0.name, $0.entry.lastAccess) }
        }
        return remove(candidates, removedBytes: &removedBytes) { _ in false }
    }

    private func evict(downTo target: Int, removedBytes: inout Int) -> Int {
        let candidates = state.withLock { state in
            loadIfNeeded(&state)
            return state.main.totalSize <= target ? [] : state.main.entriesByAge().map { ($0.name, $0.entry.lastAccess) }
        }
        return remove(candidates, removedBytes: &removedBytes) { $0.main.totalSize <= target }
    }

    /// Deletes `candidates` in order until `isDone`, in chunks so that readers are not held up by a long
    /// sweep. An entry used since it was picked is kept. Deletions happen under the lock, like renames, so a
    /// sweep never deletes an entry this process has just written.
    private func remove(
        _ candidates: [(name: DiskEntryName, lastAccess: Double)], removedBytes: inout Int,
        isDone: (State) -> Bool
    ) -> Int {
        var removed = 0, bytes = 0
        var start = 0
        while start < candidates.count {
            let end = min(start + 256, candidates.count)
            let finished = state.withLock { state -> Bool in
                for (name, planned) in candidates[start..<end] {
                    if isDone(state) { return true }
                    guard let entry = state.main[name], entry.lastAccess == planned else { continue }
                    state.main.forget(name)
                    FileSystem.removeFile(state.main.filePath(name))
                    removed += 1
                    bytes += entry.fileSize
                }
                return isDone(state)
            }
            if finished { break }
            start = end
        }
        removedBytes += bytes
        return removed
    }
}
