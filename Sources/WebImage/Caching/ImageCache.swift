import Foundation

/// The image cache: a memory cache of decoded images in front of a disk cache of encoded bytes
/// (SDWebImage's `SDImageCache`), and in front of any slower tiers of bytes given to it (a cache server shared
/// with other processes, such as `RedisImageCache`).
///
/// The two parts answer the manager's two questions (``ImageMemoryCaching`` and ``ImageDataCaching``): the
/// manager decodes byte hits itself, with the load's decoding options, and decides what bytes are kept (its
/// ``CacheSerializer``). The bytes live in a ``DataCacheTiers``: the disk first, then the remote tiers; a remote
/// hit is copied to the disk, and a store reaches every tier. Disk work runs on a few dedicated threads shared by
/// every cache in the process, in order per key, never on the threads of Swift's cooperative pool.
public final class ImageCache: ImageCaching {
    /// The cache used when no other is given: namespace `default` under the user's cache folder.
    public static let shared = ImageCache(namespace: "default")

    /// Decoded images, charged at ``Image/memoryCost``.
    public let memory: MemoryCache<String, Image>
    /// Encoded bytes with metadata.
    public let disk: DiskCache
    /// The tiers of bytes: ``disk`` first, then the remote tiers, in the order given.
    public let dataTiers: DataCacheTiers
    /// The coders that encode images stored without bytes (``store(_:data:forKey:in:validators:)``).
    public let coders: ImageCoders
    private let executor: IOExecutor

    /// A cache from its parts, with `remoteTiers` (bytes only, slowest last) behind the disk.
    public convenience init(memory: MemoryCache<String, Image> = MemoryCache(), disk: DiskCache,
                            remoteTiers: [any ImageDataCaching] = [], coders: ImageCoders = .shared) {
        self.init(memory: memory, disk: disk, remoteTiers: remoteTiers, coders: coders, executor: .shared)
    }

    /// A cache whose disk work runs on `executor` (tests give it one of their own).
    init(memory: MemoryCache<String, Image>, disk: DiskCache, remoteTiers: [any ImageDataCaching] = [],
         coders: ImageCoders, executor: IOExecutor) {
        self.memory = memory
        self.disk = disk
        self.coders = coders
        self.executor = executor
        dataTiers = DataCacheTiers([DataCacheTiers.Tier(DiskDataCache(disk: disk, executor: executor), kind: .disk)]
                                   + remoteTiers.map { DataCacheTiers.Tier($0, kind: .remote) })
    }

    /// A cache whose disk part lives in ``DiskCache/defaultFolder(namespace:)``, with `remoteTiers` behind it.
    public convenience init(
        namespace: String, memoryLimits: MemoryCache<String, Image>.Limits = .default,
        diskConfiguration: DiskCache.Configuration = DiskCache.Configuration(),
        remoteTiers: [any ImageDataCaching] = [], coders: ImageCoders = .shared
    ) {
        self.init(memory: MemoryCache(limits: memoryLimits, clock: diskConfiguration.clock),
                  disk: DiskCache(namespace: namespace, configuration: diskConfiguration), remoteTiers: remoteTiers,
                  coders: coders)
    }

    /// A cache whose disk part lives in `folder`, with `remoteTiers` behind it.
    public convenience init(
        folder: URL, additionalFolders: [URL] = [], memoryLimits: MemoryCache<String, Image>.Limits = .default,
        diskConfiguration: DiskCache.Configuration = DiskCache.Configuration(),
        remoteTiers: [any ImageDataCaching] = [], coders: ImageCoders = .shared
    ) {
        self.init(memory: MemoryCache(limits: memoryLimits, clock: diskConfiguration.clock),
                  disk: DiskCache(folder: folder, additionalFolders: additionalFolders, configuration: diskConfiguration),
                  remoteTiers: remoteTiers, coders: coders)
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

    // MARK: Bytes

    /// The first hit among the tiers of bytes, copied into the faster ones.
    public func cachedData(forKey key: String) async -> CachedImageData? {
        await dataTiers.cachedData(forKey: key)
    }

    /// The disk's answer on the calling thread (a remote tier has no synchronous answer).
    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        dataTiers.cachedDataSynchronously(forKey: key)
    }

    /// Writes `data` to the disk and every remote tier; throws the first failure after trying them all.
    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        try await dataTiers.storeData(data, forKey: key, validators: validators)
    }

    /// Replaces the HTTP validators kept with `key`'s entry in every tier of bytes (after a `304 Not Modified`);
    /// `false` when none has an entry.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        try await dataTiers.updateValidators(validators, forKey: key)
    }

    public func removeData(forKey key: String) async {
        await dataTiers.removeData(forKey: key)
    }

    public func containsData(forKey key: String) async -> Bool {
        await dataTiers.containsData(forKey: key)
    }

    public func removeAllData() async {
        await dataTiers.removeAllData()
    }

    // MARK: Both

    /// Stores `image` in memory and bytes for it on disk, as SDWebImage's `storeImage` does: `data` when given,
    /// else the image encoded losslessly by ``CacheSerializer/default`` (PNG, APNG for animations).
    /// Throws `ImageError.Code.io` when the disk write fails (the image is in memory all the same).
    public func store(_ image: Image, data: Data? = nil, forKey key: String, in types: ImageCacheType = .all,
                      validators: HTTPValidators = .none) async throws {
        if types.contains(.memory) { storeImage(image, forKey: key) }
        guard types.contains(.disk),
              let bytes = try CacheSerializer.default.diskData(for: image, originalData: data, forKey: key,
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
