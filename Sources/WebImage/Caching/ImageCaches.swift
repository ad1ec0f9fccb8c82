import Foundation

/// Several caches used as one (SDWebImage's `SDImageCachesManager`): say a small fast cache in front of a
/// large shared one. Each kind of operation follows its own ``Policy``.
///
/// A member may hold bytes only (an ``ImageDataCaching`` that is no ``ImageMemoryCaching``, such as a cache
/// server's tier): it takes part in the operations on bytes and is passed over by those on images.
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

    /// A member, with its images part found once when it is added rather than on every memory lookup.
    private struct Member: Sendable {
        let data: any ImageDataCaching
        let memory: (any ImageMemoryCaching)?

        init(_ cache: any ImageDataCaching) {
            data = cache
            memory = cache as? any ImageMemoryCaching
        }
    }

    private struct State {
        var members: [Member]
        var policies: Policies
    }

    private let state: Locked<State>

    /// Chains `caches`, given from lowest to highest priority.
    public init(caches: [any ImageDataCaching] = [], policies: Policies = Policies()) {
        state = Locked(State(members: caches.map(Member.init), policies: policies))
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageDataCaching] {
        get { state.withLock { $0.members.map(\.data) } }
        set { state.withLock { $0.members = newValue.map(Member.init) } }
    }

    /// The policies in force.
    public var policies: Policies {
        get { state.withLock { $0.policies } }
        set { state.withLock { $0.policies = newValue } }
    }

    /// Adds `cache` with the highest priority.
    public func add(_ cache: any ImageDataCaching) {
        state.withLock { $0.members.append(Member(cache)) }
    }

    /// Removes `cache` (compared by identity).
    public func remove(_ cache: any ImageDataCaching) {
        state.withLock { $0.members.removeAll { $0.data === cache } }
    }

    /// The members an operation under `policy` visits, in the order a serial run visits them.
    private func members(_ policy: KeyPath<Policies, Policy>) -> (members: [Member], policy: Policy) {
        state.withLock { state in
            let policy = state.policies[keyPath: policy]
            switch policy {
            case .serial, .concurrent: return (state.members.reversed(), policy)
            case .highestOnly: return (state.members.last.map { [$0] } ?? [], policy)
            case .lowestOnly: return (state.members.first.map { [$0] } ?? [], policy)
            }
        }
    }

    /// The caches of bytes an operation under `policy` visits, in the order a serial run visits them.
    private func targets(_ policy: KeyPath<Policies, Policy>) -> (caches: [any ImageDataCaching], policy: Policy) {
        let visited = members(policy)
        return (visited.members.map(\.data), visited.policy)
    }

    /// The images parts an operation under `policy` visits (members of bytes only have none).
    private func memories(_ policy: KeyPath<Policies, Policy>) -> [any ImageMemoryCaching] {
        members(policy).members.compactMap(\.memory)
    }

    // MARK: Memory

    /// The first memory hit, highest priority first. Under ``Policy/concurrent`` this runs serially: a
    /// synchronous call cannot wait for several caches at once.
    public func image(forKey key: String) -> Image? {
        for cache in memories(\.query) {
            if let image = cache.image(forKey: key) { return image }
        }
        return nil
    }

    public func storeImage(_ image: Image, forKey key: String) {
        for cache in memories(\.store) { cache.storeImage(image, forKey: key) }
    }

    public func removeImage(forKey key: String) {
        for cache in memories(\.remove) { cache.removeImage(forKey: key) }
    }

    public func removeAllImages() {
        for cache in memories(\.clear) { cache.removeAllImages() }
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
                         _ body: @escaping @Sendable (any ImageDataCaching) async -> Void) async {
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
    private func firstHit<T: Sendable>(of caches: [any ImageDataCaching],
                                       _ ask: @escaping @Sendable (any ImageDataCaching) async -> T?) async -> T? {
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
