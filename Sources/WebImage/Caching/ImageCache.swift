import Foundation

/// The image cache: a memory cache of decoded images in front of a disk cache of encoded bytes
/// (SDWebImage's `SDImageCache`).
///
/// The two parts answer the manager's two questions (``ImageMemoryCaching`` and ``ImageDataCaching``): the
/// manager decodes disk hits itself, with the load's decoding options, and decides what bytes go to disk (its
/// ``CacheSerializer``). Disk work runs on a few dedicated threads shared by every cache in the process, in
/// order per key, never on the threads of Swift's cooperative pool.
public final class ImageCache: ImageCaching {
    /// The cache used when no other is given: namespace `default` under the user's cache folder.
    public static let shared = ImageCache(namespace: "default")

    /// Decoded images, charged at ``Image/memoryCost``.
    public let memory: MemoryCache<String, Image>
    /// Encoded bytes with metadata.
    public let disk: DiskCache
    /// The coders that encode images stored without bytes (``store(_:data:forKey:in:validators:)``).
    public let coders: ImageCoders
    private let executor: IOExecutor

    /// A cache from its parts.
    public convenience init(memory: MemoryCache<String, Image> = MemoryCache(), disk: DiskCache,
                            coders: ImageCoders = .shared) {
        self.init(memory: memory, disk: disk, coders: coders, executor: .shared)
    }

    /// A cache whose disk work runs on `executor` (tests give it one of their own).
    init(memory: MemoryCache<String, Image>, disk: DiskCache, coders: ImageCoders, executor: IOExecutor) {
        self.memory = memory
        self.disk = disk
        self.coders = coders
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

    // MARK: Memory

    /// The image for `key` if it is in memory: synchronous, no I/O, no allocation on a hit.
    public func image(forKey key: String) -> Image? {
        memory.value(forKey: key)
    }

    public func storeImage(_ image: Image, forKey key: String) {
        memory.setImage(image, forKey: key)
    }

    public func removeImage(forKey key: String) {
        memory.removeValue(forKey: key)
    }

    public func removeAllImages() {
        memory.removeAll()
    }

    // MARK: Disk

    public func cachedData(forKey key: String) async -> CachedImageData? {
        await executor.run(lane: lane(key)) { [disk] in disk.entry(forKey: key) }.map(Self.hit)
    }

    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        disk.entry(forKey: key).map(Self.hit)
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

    // MARK: Both

    /// Stores `image` in memory and bytes for it on disk, as SDWebImage's `storeImage` does: `data` when given,
    /// else the image encoded by ``DefaultCacheSerializer`` (GIF for animations, PNG with alpha, JPEG otherwise).
    /// Throws ``ImageError/Code/io`` when the disk write fails (the image is in memory all the same).
    public func store(_ image: Image, data: Data? = nil, forKey key: String, in types: ImageCacheType = .all,
                      validators: HTTPValidators = .none) async throws {
        if types.contains(.memory) { storeImage(image, forKey: key) }
        guard types.contains(.disk),
              let bytes = try DefaultCacheSerializer().diskData(for: image, originalData: data, forKey: key,
                                                                coders: coders)
        else { return }
        try await storeData(bytes, forKey: key, validators: validators)
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
