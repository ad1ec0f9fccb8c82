import Foundation

/// A ``DiskCache`` as a tier of bytes (``ImageDataCaching``): each call runs on the I/O threads shared by every
/// cache in the process, in order per key, never on the threads of Swift's cooperative pool. ``ImageCache`` keeps
/// its disk behind one; a ``DataCacheTiers`` takes one as its disk tier.
public final class DiskDataCache: ImageDataCaching {
    /// The entries.
    public let disk: DiskCache
    private let executor: IOExecutor

    /// The tier of `disk`.
    public convenience init(disk: DiskCache) {
        self.init(disk: disk, executor: .shared)
    }

    /// A tier whose file work runs on `executor` (tests give it one of their own).
    init(disk: DiskCache, executor: IOExecutor) {
        self.disk = disk
        self.executor = executor
    }

    public func cachedData(forKey key: String) async -> CachedImageData? {
        await executor.run(lane: lane(key)) { [disk] in disk.entry(forKey: key) }.map(Self.hit)
    }

    /// The same lookup on the calling thread, which it blocks while the file is read.
    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        disk.entry(forKey: key).map(Self.hit)
    }

    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        try await executor.run(lane: lane(key)) { [disk] () throws in
            try disk.store(data, forKey: key, validators: validators)
        }
    }

    /// Stores the hit's bytes with its format and validators (the file records its own times).
    public func backFill(_ hit: CachedImageData, forKey key: String) async throws {
        let (data, format, validators) = (hit.data, hit.metadata?.format, hit.metadata?.validators ?? .none)
        try await executor.run(lane: lane(key)) { [disk] () throws in
            try disk.store(data, forKey: key, format: format, validators: validators)
        }
    }

    /// Replaces the HTTP validators of the entry for `key` (after a `304 Not Modified`); `false` when there is
    /// no entry.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        try await executor.run(lane: lane(key)) { [disk] () throws -> Bool in
            try disk.updateValidators(validators, forKey: key)
        }
    }

    public func removeData(forKey key: String) async {
        await executor.run(lane: lane(key)) { [disk] in disk.remove(forKey: key) }
    }

    public func containsData(forKey key: String) async -> Bool {
        await executor.run(lane: lane(key)) { [disk] in disk.contains(key) }
    }

    public func removeAllData() async {
        await executor.run { [disk] in disk.removeAll() }
    }

    private static func hit(_ entry: DiskCache.Entry) -> CachedImageData {
        CachedImageData(data: entry.data, metadata: entry.metadata)
    }

    /// Keys hash to lanes, so operations on one key keep their order.
    private func lane(_ key: String) -> Int { key.hashValue }
}
