/// The data structure under ``MemoryCache``: a dictionary from key to slot plus an intrusive doubly linked
/// list threaded through contiguous arrays, most recently used at the head.
///
/// Every operation is O(1). Slots are recycled through a free list, so a hit (lookup + move to the head)
/// allocates nothing and an insertion allocates only when the arrays must grow. The links live in their own
/// array of 8-byte pairs, apart from the entries: moving an entry to the head touches its neighbours' links,
/// and a compact array keeps those in cache. Not thread-safe on its own: ``MemoryCache`` keeps it behind a lock.
///
/// Everything is `@usableFromInline` / `@inlinable` so that a cache used from another module is specialised
/// for its key and value types: unspecialised generic code is several times slower.
@usableFromInline
struct LRUStorage<Key: Hashable, Value> {
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        /// Last access (or insertion) time in seconds since 1970; 0 while the cache has no age limit.
        @usableFromInline var stamp: Double

        @inlinable
        init(key: Key?, value: Value?, cost: Int, stamp: Double) {
            self.key = key
            self.value = value
            self.cost = cost
            self.stamp = stamp
        }
    }

    @usableFromInline
    struct Link {
        @usableFromInline var previous: Int32
        @usableFromInline var next: Int32

        @inlinable init(previous: Int32, next: Int32) {
            self.previous = previous
            self.next = next
        }
    }

    @usableFromInline static var none: Int32 { -1 }

    @usableFromInline var entries: [Entry] = []
    @usableFromInline var links: [Link] = []
    @usableFromInline var slots: [Key: Int32] = [:]
    @usableFromInline var head = LRUStorage.none
    @usableFromInline var tail = LRUStorage.none
    @usableFromInline var freeList = LRUStorage.none
    @usableFromInline var totalCost = 0

    @inlinable init() {}

    @inlinable var count: Int { slots.count }

    /// Slots allocated, live or free.
    @inlinable var capacity: Int { entries.count }

    /// When `key` was last used, without touching its recency.
    @inlinable func stamp(of key: Key) -> Double? {
        slots[key].map { entries[Int($0)].stamp }
    }

    /// Looks `key` up. On a hit the entry moves to the head and is stamped `now`. An entry unused for longer
    /// than `ageLimit` is removed instead and handed back in `expired`, so the caller can release it later.
    @inlinable mutating func lookup(_ key: Key, now: Double, ageLimit: Double?, expired: inout Value?) -> Value? {
        guard let slot = slots[key] else { return nil }
        if let ageLimit, now - entries[Int(slot)].stamp > ageLimit {
            slots.removeValue(forKey: key)
            expired = release(slot)
            return nil
        }
        entries[Int(slot)].stamp = now
        moveToHead(slot)
        return entries[Int(slot)].value
    }

    /// Inserts or replaces the value for `key` at the head. Returns the replaced value so the caller can
    /// release it outside any lock.
    @inlinable @discardableResult
    mutating func insert(_ value: Value, forKey key: Key, cost: Int, now: Double) -> Value? {
        // One hash of the key: the slot is claimed through the dictionary's in-place default subscript.
        let candidate = freeList != Self.none ? freeList : Int32(truncatingIfNeeded: entries.count)
        let (slot, isNew) = Self.claim(&slots[key, default: Self.none], candidate: candidate)
        let index = Int(slot)
        if !isNew {
            let old = entries[index].value
            totalCost += cost - entries[index].cost
            entries[index].value = value
            entries[index].cost = cost
            entries[index].stamp = now
            moveToHead(slot)
            return old
        }
        let entry = Entry(key: key, value: value, cost: cost, stamp: now)
        let link = Link(previous: Self.none, next: head)
        if index == entries.count {
            entries.append(entry)
            links.append(link)
        } else {
            freeList = links[index].next
            entries[index] = entry
            links[index] = link
        }
        if head != Self.none { links[Int(head)].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
        totalCost += cost
        return nil
    }

    /// The slot already stored for a key, or `candidate` stored in its place.
    @inlinable
    static func claim(_ stored: inout Int32, candidate: Int32) -> (slot: Int32, isNew: Bool) {
        guard stored == none else { return (stored, false) }
        stored = candidate
        return (candidate, true)
    }

    /// Removes `key`; returns its value.
    @inlinable @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// The least recently used entry's stamp, if any.
    @inlinable var oldestStamp: Double? {
        tail == Self.none ? nil : entries[Int(tail)].stamp
    }

    /// Removes the least recently used entry; returns its value.
    @inlinable mutating func removeOldest() -> Value? {
        guard tail != Self.none, let key = entries[Int(tail)].key else { return nil }
        slots.removeValue(forKey: key)
        return release(tail)
    }

    /// Sets every entry's stamp to `now`.
    @inlinable mutating func restamp(_ now: Double) {
        for index in entries.indices where entries[index].key != nil { entries[index].stamp = now }
    }

    /// Keys from most to least recently used.
    @inlinable var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var slot = head
        while slot != Self.none {
            if let key = entries[Int(slot)].key { keys.append(key) }
            slot = links[Int(slot)].next
        }
        return keys
    }

    @inlinable mutating func unlink(_ slot: Int32) {
        let link = links[Int(slot)]
        if link.previous != Self.none { links[Int(link.previous)].next = link.next } else { head = link.next }
        if link.next != Self.none { links[Int(link.next)].previous = link.previous } else { tail = link.previous }
    }

    @inlinable mutating func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        links[Int(slot)] = Link(previous: Self.none, next: head)
        if head != Self.none { links[Int(head)].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
    }

    @inlinable mutating func release(_ slot: Int32) -> Value? {
        unlink(slot)
        let index = Int(slot)
        let value = entries[index].value
        totalCost -= entries[index].cost
        entries[index] = Entry(key: nil, value: nil, cost: 0, stamp: 0)
        links[index] = Link(previous: Self.none, next: freeList)
        freeList = slot
        return value
    }
}

extension LRUStorage: Sendable where Key: Sendable, Value: Sendable {}
extension LRUStorage.Entry: Sendable where Key: Sendable, Value: Sendable {}
extension LRUStorage.Link: Sendable {}
