import Foundation

/// Several caches used as one (SDWebImage's `SDImageCachesManager`): say a small fast cache in front of a
/// large shared one. Each kind of operation follows its own ``Policy``.
///
/// Caches are ordered by priority, lowest first: the cache added last has the highest priority (as in
/// SDWebImage, and as with ``ImageCoders``, where the coder added last is asked first).
public final class ImageCaches: ImageCaching {
    /// How an operation runs over the caches.
    public enum Policy: Sendable, Hashable {
        /// One cache after another, from the highest priority to the lowest. A query or a containment check
        /// stops at the first hit; a store, removal or clear goes through every cache.
        case serial
        /// Every cache at once. A query or a containment check answers with the first hit to arrive.
        case concurrent
        /// Only the highest-priority (last added) cache.
        case highestOnly
        /// Only the lowest-priority (first added) cache.
        case lowestOnly
    }

    /// The policy of each operation. The defaults are SDWebImage's.
    public struct Policies: Sendable, Hashable {
        /// Default ``Policy/serial``.
        public var query: Policy
        /// Default ``Policy/highestOnly``.
        public var store: Policy
        /// Default ``Policy/concurrent``.
        public var remove: Policy
        /// Default ``Policy/serial``.
        public var contains: Policy
        /// Default ``Policy/concurrent``.
        public var clear: Policy

        /// Creates policies; each defaults to SDWebImage's choice.
        public init(query: Policy = .serial, store: Policy = .highestOnly, remove: Policy = .concurrent,
                    contains: Policy = .serial, clear: Policy = .concurrent) {
            self.query = query
            self.store = store
            self.remove = remove
            self.contains = contains
            self.clear = clear
        }
    }

    private struct State {
        var caches: [any ImageCaching]
        var policies: Policies
    }

    private let state: Locked<State>

    /// Chains `caches`, given from lowest to highest priority.
    public init(caches: [any ImageCaching] = [], policies: Policies = Policies()) {
        state = Locked(State(caches: caches, policies: policies))
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCaching] {
        get { state.withLock { $0.caches } }
        set { state.withLock { $0.caches = newValue } }
    }

    /// The policies in force.
    public var policies: Policies {
        get { state.withLock { $0.policies } }
        set { state.withLock { $0.policies = newValue } }
    }

    /// Adds `cache` with the highest priority.
    public func add(_ cache: any ImageCaching) {
        state.withLock { $0.caches.append(cache) }
    }

    /// Removes `cache` (compared by identity).
    public func remove(_ cache: any ImageCaching) {
        state.withLock { $0.caches.removeAll { $0 === cache } }
    }

    /// The caches an operation under `policy` visits, in the order a serial run visits them.
    private func targets(_ policy: KeyPath<Policies, Policy>) -> (caches: [any ImageCaching], policy: Policy) {
        state.withLock { state in
            let policy = state.policies[keyPath: policy]
            switch policy {
            case .serial, .concurrent: return (state.caches.reversed(), policy)
            case .highestOnly: return (state.caches.last.map { [$0] } ?? [], policy)
            case .lowestOnly: return (state.caches.first.map { [$0] } ?? [], policy)
            }
        }
    }

    // MARK: Memory

    /// The first memory hit, highest priority first. Under ``Policy/concurrent`` this runs serially: a
    /// synchronous call cannot wait for several caches at once.
    public func image(forKey key: String) -> Image? {
        for cache in targets(\.query).caches {
            if let image = cache.image(forKey: key) { return image }
        }
        return nil
    }

    public func storeImage(_ image: Image, forKey key: String) {
        for cache in targets(\.store).caches { cache.storeImage(image, forKey: key) }
    }

    public func removeImage(forKey key: String) {
        for cache in targets(\.remove).caches { cache.removeImage(forKey: key) }
    }

    public func removeAllImages() {
        for cache in targets(\.clear).caches { cache.removeAllImages() }
    }

    // MARK: Data

    public func cachedData(forKey key: String) async -> CachedImageData? {
        let (caches, policy) = targets(\.query)
        guard policy == .concurrent else {
            for cache in caches {
                if let hit = await cache.cachedData(forKey: key) { return hit }
            }
            return nil
        }
        return await firstHit(of: caches) { await $0.cachedData(forKey: key) }
    }

    /// Under ``Policy/concurrent`` this runs serially, as ``image(forKey:)`` does.
    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        for cache in targets(\.query).caches {
            if let hit = cache.cachedDataSynchronously(forKey: key) { return hit }
        }
        return nil
    }

    /// Writes `data` to every cache the store policy selects; throws the first failure after trying every cache.
    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        let (caches, policy) = targets(\.store)
        var failures: [any Error] = []
        if policy == .concurrent {
            failures = await withTaskGroup(of: (any Error)?.self) { group in
                for cache in caches {
                    group.addTask {
                        do { try await cache.storeData(data, forKey: key, validators: validators) } catch { return error }
                        return nil
                    }
                }
                return await group.reduce(into: []) { if let error = $1 { $0.append(error) } }
            }
        } else {
            for cache in caches {
                do { try await cache.storeData(data, forKey: key, validators: validators) } catch { failures.append(error) }
            }
        }
        if let first = failures.first { throw first }
    }

    /// Updates the validators in every cache the store policy selects; `true` when any of them had the entry.
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        var updated = false
        for cache in targets(\.store).caches where try await cache.updateValidators(validators, forKey: key) {
            updated = true
        }
        return updated
    }

    public func removeData(forKey key: String) async {
        await forEach(\.remove) { await $0.removeData(forKey: key) }
    }

    public func containsData(forKey key: String) async -> Bool {
        let (caches, policy) = targets(\.contains)
        guard policy == .concurrent else {
            for cache in caches where await cache.containsData(forKey: key) { return true }
            return false
        }
        return await firstHit(of: caches) { await $0.containsData(forKey: key) ? true : nil } ?? false
    }

    public func removeAllData() async {
        await forEach(\.clear) { await $0.removeAllData() }
    }

    private func forEach(_ policy: KeyPath<Policies, Policy>,
                         _ body: @escaping @Sendable (any ImageCaching) async -> Void) async {
        let (caches, policy) = targets(policy)
        if policy == .concurrent {
            await withTaskGroup(of: Void.self) { group in
                for cache in caches { group.addTask { await body(cache) } }
            }
        } else {
            for cache in caches { await body(cache) }
        }
    }

    /// Asks every cache at once; the first non-nil answer wins and the other questions are cancelled.
    private func firstHit<T: Sendable>(of caches: [any ImageCaching],
                                       _ ask: @escaping @Sendable (any ImageCaching) async -> T?) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            for cache in caches { group.addTask { await ask(cache) } }
            for await answer in group {
                if let answer {
                    group.cancelAll()
                    return answer
                }
            }
            return nil
        }
    }
}
