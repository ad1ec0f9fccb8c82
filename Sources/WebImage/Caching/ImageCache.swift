import Foundation

/// The image cache: a memory cache of decoded images in front of a disk cache of encoded bytes
/// (SDWebImage's `SDImageCache`).
///
/// A query looks in memory, then on disk; a disk hit is decoded with ``coders`` and put in memory, so the next
/// query is a memory hit. A store puts the image in memory and the bytes chosen by ``serializer`` on disk.
/// Disk work runs on an ``IOExecutor`` (bounded threads, in order per key); decoding runs in the caller's task.
/// ``memoryImage(forKey:)`` is the synchronous memory-only fast path.
public final class ImageCache: ImageCaching {
    /// The cache used when no other is given: namespace `default` under the user's cache folder.
    public static let shared = ImageCache(namespace: "default")

    /// Decoded images, charged at ``Image/memoryCost``.
    public let memory: MemoryCache<String, Image>
    /// Encoded bytes with metadata.
    public let disk: DiskCache
    /// The coders that decode disk hits (and encode images stored without bytes).
    public let coders: ImageCoders
    /// Decides what goes to disk.
    public let serializer: any CacheSerializer
    private let executor: IOExecutor

    /// A cache from its parts.
    public convenience init(
        memory: MemoryCache<String, Image> = MemoryCache(), disk: DiskCache, coders: ImageCoders = .shared,
        serializer: any CacheSerializer = DefaultCacheSerializer()
    ) {
        self.init(memory: memory, disk: disk, coders: coders, serializer: serializer, executor: .shared)
    }

    /// A cache whose disk work runs on `executor` (tests give it one of their own).
    init(memory: MemoryCache<String, Image>, disk: DiskCache, coders: ImageCoders, serializer: any CacheSerializer,
         executor: IOExecutor) {
        self.memory = memory
        self.disk = disk
        self.coders = coders
        self.serializer = serializer
        self.executor = executor
    }

    /// A cache whose disk part lives in ``DiskCache/defaultFolder(namespace:)``.
    public convenience init(
        namespace: String, memoryLimits: MemoryCache<String, Image>.Limits = .default,
        diskConfiguration: DiskCache.Configuration = DiskCache.Configuration(), coders: ImageCoders = .shared
    ) {
        self.init(memory: MemoryCache(limits: memoryLimits, clock: diskConfiguration.clock),
                  disk: DiskCache(namespace: namespace, configuration: diskConfiguration), coders: coders)
    }

    /// A cache whose disk part lives in `folder`.
    public convenience init(
        folder: URL, additionalFolders: [URL] = [], memoryLimits: MemoryCache<String, Image>.Limits = .default,
        diskConfiguration: DiskCache.Configuration = DiskCache.Configuration(), coders: ImageCoders = .shared
    ) {
        self.init(memory: MemoryCache(limits: memoryLimits, clock: diskConfiguration.clock),
                  disk: DiskCache(folder: folder, additionalFolders: additionalFolders, configuration: diskConfiguration),
                  coders: coders)
    }

    // MARK: Querying

    /// The image for `key` if it is in memory: synchronous, no I/O, no allocation on a hit.
    public func memoryImage(forKey key: String) -> Image? {
        memory.value(forKey: key)
    }

    public func query(forKey key: String, in types: ImageCacheType, options: ImageCacheQueryOptions) async
        -> ImageCacheResult? {
        if types.contains(.memory), let image = memory.value(forKey: key) {
            guard options.includeData else { return ImageCacheResult(image: image, data: nil, cacheType: .memory) }
            let entry = await executor.run(lane: lane(key)) { [disk] in disk.entry(forKey: key) }
            return ImageCacheResult(image: image, data: entry?.data, cacheType: .memory, metadata: entry?.metadata)
        }
        guard types.contains(.disk) else { return nil }
        let entry = await executor.run(lane: lane(key)) { [disk] in disk.entry(forKey: key) }
        return entry.flatMap { diskResult($0, key: key, options: options) }
    }

    public func querySynchronously(forKey key: String, in types: ImageCacheType, options: ImageCacheQueryOptions)
        -> ImageCacheResult? {
        if types.contains(.memory), let image = memory.value(forKey: key) {
            guard options.includeData else { return ImageCacheResult(image: image, data: nil, cacheType: .memory) }
            let entry = disk.entry(forKey: key)
            return ImageCacheResult(image: image, data: entry?.data, cacheType: .memory, metadata: entry?.metadata)
        }
        guard types.contains(.disk) else { return nil }
        return disk.entry(forKey: key).flatMap { diskResult($0, key: key, options: options) }
    }

    /// Decodes a disk hit and fills the memory cache. Bytes that no coder can decode read as a miss (the
    /// entry stays: another coder registry may read it).
    private func diskResult(_ entry: DiskCache.Entry, key: String, options: ImageCacheQueryOptions) -> ImageCacheResult? {
        if options.skipDecoding {
            return ImageCacheResult(image: nil, data: entry.data, cacheType: .disk, metadata: entry.metadata)
        }
        var decodeOptions = options.decodeOptions
        if decodeOptions.scaleFactor == nil && decodeOptions.fileNameHint == nil { decodeOptions.fileNameHint = key }
        guard let image = try? coders.decode(entry.data, options: decodeOptions) else { return nil }
        if options.fillsMemory { memory.setImage(image, forKey: key) }
        return ImageCacheResult(image: image, data: options.includeData ? entry.data : nil, cacheType: .disk,
                                metadata: entry.metadata)
    }

    // MARK: Storing and removing

    public func store(_ image: Image?, data: Data?, forKey key: String, in types: ImageCacheType,
                      validators: HTTPValidators) async throws {
        if types.contains(.memory), let image { memory.setImage(image, forKey: key) }
        guard types.contains(.disk),
              let bytes = try serializer.diskData(for: image, originalData: data, forKey: key, coders: coders)
        else { return }
        try await executor.run(lane: lane(key)) { [disk] () throws in
            try disk.store(bytes, forKey: key, validators: validators)
        }
    }

    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        try await executor.run(lane: lane(key)) { [disk] () throws in
            try disk.store(data, forKey: key, validators: validators)
        }
    }

    /// Replaces the HTTP validators of the disk entry for `key` (after a `304 Not Modified`); `false` when
    /// there is no entry.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        try await executor.run(lane: lane(key)) { [disk] () throws -> Bool in
            try disk.updateValidators(validators, forKey: key)
        }
    }

    public func remove(forKey key: String, from types: ImageCacheType) async {
        if types.contains(.memory) { memory.removeValue(forKey: key) }
        if types.contains(.disk) { await executor.run(lane: lane(key)) { [disk] in disk.remove(forKey: key) } }
    }

    public func contains(forKey key: String, in types: ImageCacheType) async -> ImageCacheType {
        if types.contains(.memory), memory.contains(key) { return .memory }
        guard types.contains(.disk) else { return .none }
        return await executor.run(lane: lane(key)) { [disk] in disk.contains(key) } ? .disk : .none
    }

    public func clear(_ types: ImageCacheType) async {
        if types.contains(.memory) { memory.removeAll() }
        if types.contains(.disk) { await executor.run { [disk] in disk.removeAll() } }
    }

    // MARK: Maintenance

    /// Drops expired images from memory and deletes expired entries from disk.
    @discardableResult
    public func removeExpired() async -> DiskCache.SweepReport {
        memory.removeExpired()
        return await executor.run { [disk] in disk.removeExpired() }
    }

    /// How many entries the disk cache holds and how many bytes their files take.
    public func diskUsage() async -> (entries: Int, bytes: Int) {
        await executor.run { [disk] in (disk.count, disk.totalSize) }
    }

    /// Keys hash to lanes, so operations on one key keep their order.
    private func lane(_ key: String) -> Int { key.hashValue }
}
