import Foundation

/// A thread-safe in-memory cache with least-recently-used eviction under a cost limit, a count limit and an
/// optional age limit. ``ImageCache`` uses one keyed by cache key holding ``Image``s whose cost is
/// ``Image/memoryCost``.
///
/// Lookups, insertions and removals are O(1) and a hit allocates nothing (see `LRUStorage`). Limits are
/// enforced at every insertion, not later: when an insertion leaves the cache over a limit, the least recently
/// used entries go at once. An entry dearer than ``Limits/maxEntryCost`` is not stored at all, so one huge
/// image cannot flush everything else. Evicted values are released after the lock is dropped.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The bounds a ``MemoryCache`` keeps to.
    public struct Limits: Sendable, Hashable {
        /// Most total cost (for images: bytes of decoded pixels).
        public var costLimit: Int
        /// Most entries.
        public var countLimit: Int
        /// Seconds an entry may go unused before it is dropped; `nil` for no age limit.
        public var ageLimit: Double?
        /// Most cost of one entry; `nil` means a quarter of ``costLimit``.
        public var maxEntryCost: Int?

        /// Creates limits; every parameter defaults to the value in ``default``.
        public init(
            costLimit: Int = Limits.defaultCostLimit, countLimit: Int = .max, ageLimit: Double? = nil,
            maxEntryCost: Int? = nil
        ) {
            self.costLimit = max(0, costLimit)
            self.countLimit = max(0, countLimit)
            self.ageLimit = ageLimit
            self.maxEntryCost = maxEntryCost
        }

        /// An eighth of physical memory: room for plenty of thumbnails without starving the process.
        public static var defaultCostLimit: Int {
            Int(clamping: ProcessInfo.processInfo.physicalMemory / 8)
        }

        /// Cost limit an eighth of physical memory, no count or age limit, one entry at most a quarter.
        public static var `default`: Limits { Limits() }

        /// The single-entry cap in force.
        public var effectiveMaxEntryCost: Int { maxEntryCost ?? costLimit / 4 }
    }

    @usableFromInline
    struct State: Sendable {
        @usableFromInline var storage = LRUStorage<Key, Value>()
        @usableFromInline var limits: Limits

        @usableFromInline init(limits: Limits) { self.limits = limits }
    }

    // `@usableFromInline` and `@inlinable` below let other modules specialise the hot paths.
    @usableFromInline let state: Locked<State>
    @usableFromInline let clock: CacheClock

    /// Creates an empty cache with `limits`.
    public convenience init(limits: Limits = .default) {
        self.init(limits: limits, clock: .system)
    }

    /// An empty cache whose age limit is timed by `clock` (tests).
    init(limits: Limits = .default, clock: CacheClock) {
        state = Locked(State(limits: limits))
        self.clock = clock
    }

    /// The limits in force. Lowering one evicts at once.
    public var limits: Limits {
        get { state.withLock { $0.limits } }
        set {
            let now = clock.now()
            var released = Released()
            state.withLock { state in
                // Without an age limit entries are not stamped; one that appears starts counting now.
                if state.limits.ageLimit == nil && newValue.ageLimit != nil { state.storage.restamp(now) }
                state.limits = newValue
                Self.enforceLimits(&state, now: now, released: &released)
            }
        }
    }

    /// The value for `key`, marked as the most recently used; `nil` when absent or unused for longer than the
    /// age limit (such an entry is removed).
    @inlinable
    public func value(forKey key: Key) -> Value? {
        var expired: Value?
        let value = state.withLock { state in
            // The clock is read only when there is an age limit: a hit costs one hash lookup and a few moves.
            let now = state.limits.ageLimit == nil ? 0 : clock.now()
            return state.storage.lookup(key, now: now, ageLimit: state.limits.ageLimit, expired: &expired)
        }
        _ = expired  // released here, after the lock
        return value
    }

    /// Whether `key` is present, without changing its recency.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        state.withLock { state in
            guard let stamp = state.storage.stamp(of: key) else { return false }
            if let age = state.limits.ageLimit, clock.now() - stamp > age { return false }
            return true
        }
    }

    /// Stores `value` for `key` with `cost`, evicting least recently used entries until every limit holds.
    ///
    /// Returns `false` (and removes any older value for `key`) when `cost` is above the single-entry cap.
    @inlinable @discardableResult
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0) -> Bool {
        let cost = max(0, cost)
        var released = Released()
        return state.withLock { state -> Bool in
            guard cost <= state.limits.effectiveMaxEntryCost, state.limits.countLimit > 0 else {
                released.append(state.storage.remove(key))
                return false
            }
            let now = state.limits.ageLimit == nil ? 0 : clock.now()
            released.append(state.storage.insert(value, forKey: key, cost: cost, now: now))
            Self.enforceLimits(&state, now: now, released: &released)
            return true
        }  // `released` goes after the lock is dropped
    }

    /// Removes the value for `key` and returns it.
    @inlinable @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { $0.storage.remove(key) }
    }

    /// Removes everything (for memory pressure).
    public func removeAll() {
        let old = state.withLock { state -> LRUStorage<Key, Value> in
            var old = LRUStorage<Key, Value>()
            swap(&old, &state.storage)
            return old
        }
        _ = old  // the values are released here, after the lock
    }

    /// Evicts least recently used entries until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        var released = Released()
        state.withLock { state in
            while state.storage.totalCost > cost, let value = state.storage.removeOldest() { released.append(value) }
        }
    }

    /// Evicts least recently used entries until at most `count` remain.
    public func trim(toCount count: Int) {
        var released = Released()
        state.withLock { state in
            while state.storage.count > count, let value = state.storage.removeOldest() { released.append(value) }
        }
    }

    /// Removes every entry older than the age limit (the cache also does this on each insertion).
    public func removeExpired() {
        let now = clock.now()
        var released = Released()
        state.withLock { Self.removeExpired(&$0, now: now, released: &released) }
    }

    /// The sum of the costs of the entries.
    public var totalCost: Int { state.withLock { $0.storage.totalCost } }
    /// The number of entries.
    public var count: Int { state.withLock { $0.storage.count } }
    /// Nodes allocated in the storage array, live or free: stays at the peak entry count, whatever the churn.
    var allocatedSlots: Int { state.withLock { $0.storage.capacity } }
    /// The keys from most to least recently used.
    public var keysByRecency: [Key] { state.withLock { $0.storage.keysByRecency } }

    @inlinable
    static func enforceLimits(_ state: inout State, now: Double, released: inout Released) {
        removeExpired(&state, now: now, released: &released)
        let limits = state.limits
        while state.storage.totalCost > limits.costLimit || state.storage.count > limits.countLimit,
              let value = state.storage.removeOldest() {
            released.append(value)
        }
    }

    /// Expired entries are the least recently used ones, so they all sit at the tail.
    @inlinable
    static func removeExpired(_ state: inout State, now: Double, released: inout Released) {
        guard let age = state.limits.ageLimit else { return }
        while let stamp = state.storage.oldestStamp, now - stamp > age, let value = state.storage.removeOldest() {
            released.append(value)
        }
    }

    /// Values taken out under the lock, released when this goes out of scope after it. The first one needs no
    /// allocation: most insertions evict at most one entry.
    @usableFromInline
    struct Released {
        @usableFromInline var first: Value?
        @usableFromInline var rest: [Value] = []

        @inlinable init() {}

        @inlinable mutating func append(_ value: Value?) {
            guard let value else { return }
            if first == nil { first = value } else { rest.append(value) }
        }
    }
}

extension MemoryCache where Value == Image {
    /// Stores `image` at its ``Image/memoryCost``.
    @discardableResult
    public func setImage(_ image: Image, forKey key: Key) -> Bool {
        setValue(image, forKey: key, cost: image.memoryCost)
    }
}
