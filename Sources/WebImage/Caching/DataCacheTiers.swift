import Foundation

/// Several tiers of bytes used as one, fastest first: say bytes in memory (``MemoryDataCache``), then a disk
/// (``DiskDataCache``), then a cache server shared with other processes.
///
/// A lookup asks one tier after another and stops at the first hit, then copies that hit into the faster tiers
/// that take back-fill (``Tier/isBackFilled``), so the next lookup stops earlier. A store writes through to every
/// tier, or to the kinds of tier the caller names: what a tier is for (a source kept in memory only, say) stays
/// the caller's rule. A tier that fails costs only itself: a lookup it cannot answer is a miss there and the next
/// tier is asked; a store or back-fill it refuses leaves the other tiers written.
///
/// It is itself an ``ImageDataCaching``, so a chain can stand wherever one tier can (behind the memory cache of
/// an ``ImageCache``, say). The tiers are fixed when it is made, so it holds no lock: lookups from many tasks at
/// once run side by side in the tiers.
public final class DataCacheTiers: ImageDataCaching {
    /// One tier of the chain.
    public struct Tier: Sendable {
        /// The tier's bytes.
        public let cache: any ImageDataCaching
        /// What a hit here is reported as (``ImageCacheType/memory``, ``ImageCacheType/disk`` or
        /// ``ImageCacheType/remote``), and the kind a store names to reach it.
        public let kind: ImageCacheType
        /// Whether a hit in a slower tier is copied into this one.
        public let isBackFilled: Bool

        /// A tier of `kind` (a single kind), back-filled unless `isBackFilled` is `false`.
        public init(_ cache: any ImageDataCaching, kind: ImageCacheType, isBackFilled: Bool = true) {
            self.cache = cache
            self.kind = kind
            self.isBackFilled = isBackFilled
        }
    }

    /// A lookup's answer and the tier that gave it.
    package struct Hit: Sendable {
        /// The bytes and metadata; its `tier` is the answering tier's ``Tier/kind``.
        package var entry: CachedImageData
        /// The position of the answering tier in ``DataCacheTiers/tiers``.
        package var index: Int
        /// The kind of the answering tier.
        package var kind: ImageCacheType { entry.tier }
    }

    /// The tiers, fastest first.
    public let tiers: [Tier]

    /// Chains `tiers`, given fastest first.
    public init(_ tiers: [Tier]) {
        self.tiers = tiers
    }

    /// The first hit for `key` among the tiers from position `first` on, after it was copied into the faster
    /// back-filled tiers (those before `first` included, so a caller that looked at its fastest tier itself still
    /// gets it filled). A back-fill that fails is ignored: the hit is answered all the same.
    package func lookup(forKey key: String, from first: Int = 0) async -> Hit? {
        guard first < tiers.count else { return nil }
        for index in max(0, first)..<tiers.count {
            guard var entry = await tiers[index].cache.cachedData(forKey: key) else { continue }
            entry.tier = tiers[index].kind
            for faster in tiers[..<index] where faster.isBackFilled {
                try? await faster.cache.backFill(entry, forKey: key)
            }
            return Hit(entry: entry, index: index)
        }
        return nil
    }

    /// The first hit for `key` that a tier answers synchronously, without back-fill (a synchronous call cannot
    /// wait for the writes).
    package func lookupSynchronously(forKey key: String) -> Hit? {
        for (index, tier) in tiers.enumerated() {
            guard var entry = tier.cache.cachedDataSynchronously(forKey: key) else { continue }
            entry.tier = tier.kind
            return Hit(entry: entry, index: index)
        }
        return nil
    }

    /// Writes `data` with `validators` to every tier whose kind is in `kinds` (`nil`: every tier), fastest first.
    /// Every selected tier is tried; throws the first failure after that.
    public func store(_ data: Data, forKey key: String, validators: HTTPValidators,
                      in kinds: ImageCacheType?) async throws {
        var failure: (any Error)?
        for tier in selected(kinds) {
            do {
                try await tier.cache.storeData(data, forKey: key, validators: validators)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// Deletes `key`'s entry from every tier whose kind is in `kinds` (`nil`: every tier).
    public func remove(forKey key: String, in kinds: ImageCacheType?) async {
        for tier in selected(kinds) { await tier.cache.removeData(forKey: key) }
    }

    private func selected(_ kinds: ImageCacheType?) -> [Tier] {
        guard let kinds else { return tiers }
        return tiers.filter { kinds.contains($0.kind) }
    }

    // MARK: ImageDataCaching

    /// `lookup(forKey:from:)` from the fastest tier.
    public func cachedData(forKey key: String) async -> CachedImageData? {
        await lookup(forKey: key)?.entry
    }

    /// `lookupSynchronously(forKey:)`.
    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        lookupSynchronously(forKey: key)?.entry
    }

    /// Writes through to every tier; throws the first failure after trying them all.
    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        try await store(data, forKey: key, validators: validators, in: nil)
    }

    /// Updates the validators in every tier; `true` when any of them had the entry. Throws the first failure
    /// after trying them all.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        var updated = false
        var failure: (any Error)?
        for tier in tiers {
            do {
                if try await tier.cache.updateValidators(validators, forKey: key) { updated = true }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return updated
    }

    public func removeData(forKey key: String) async {
        await remove(forKey: key, in: nil)
    }

    /// Whether any tier has `key`, fastest first.
    public func containsData(forKey key: String) async -> Bool {
        for tier in tiers where await tier.cache.containsData(forKey: key) { return true }
        return false
    }

    public func removeAllData() async {
        for tier in tiers { await tier.cache.removeAllData() }
    }
}
