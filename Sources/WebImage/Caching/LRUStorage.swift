/// The data structure under ``MemoryCache``: a dictionary from key to slot plus an intrusive doubly linked
/// list threaded through a contiguous array of nodes, most recently used at the head.
///
/// Every operation is O(1). Nodes are recycled through a free list, so a hit (lookup + move to the head)
/// allocates nothing and an insertion allocates only when the array must grow. Not thread-safe on its own:
/// ``MemoryCache`` keeps it behind a lock.
struct LRUStorage<Key: Hashable, Value> {
    struct Node {
        var key: Key?
        var value: Value?
        var cost: Int
        /// Last access (or insertion) time in seconds since 1970.
        var stamp: Double
        var previous: Int
        var next: Int
    }

    private static var none: Int { -1 }

    private(set) var nodes: [Node] = []
    private var slots: [Key: Int] = [:]
    private var head = LRUStorage.none
    private var tail = LRUStorage.none
    private var freeList = LRUStorage.none
    private(set) var totalCost = 0

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    /// The value for `key` without touching its recency.
    func peek(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        return nodes[slot].value
    }

    /// When `key` was last used, without touching its recency.
    func stamp(of key: Key) -> Double? {
        slots[key].map { nodes[$0].stamp }
    }

    /// Looks `key` up. On a hit the entry moves to the head and is stamped `now`. An entry unused for longer
    /// than `ageLimit` is removed instead and handed back in `expired`, so the caller can release it later.
    mutating func lookup(_ key: Key, now: Double, ageLimit: Double?, expired: inout Value?) -> Value? {
        guard let slot = slots[key] else { return nil }
        if let ageLimit, now - nodes[slot].stamp > ageLimit {
            slots.removeValue(forKey: key)
            expired = release(slot)
            return nil
        }
        nodes[slot].stamp = now
        moveToHead(slot)
        return nodes[slot].value
    }

    /// Inserts or replaces the value for `key` at the head. Returns the replaced value so the caller can
    /// release it outside any lock.
    @discardableResult
    mutating func insert(_ value: Value, forKey key: Key, cost: Int, now: Double) -> Value? {
        if let slot = slots[key] {
            let old = nodes[slot].value
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].stamp = now
            moveToHead(slot)
            return old
        }
        let node = Node(key: key, value: value, cost: cost, stamp: now, previous: Self.none, next: head)
        let slot: Int
        if freeList != Self.none {
            slot = freeList
            freeList = nodes[slot].next
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if head != Self.none { nodes[head].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
        slots[key] = slot
        totalCost += cost
        return nil
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// The least recently used entry's key and stamp, if any.
    var oldest: (key: Key, stamp: Double)? {
        guard tail != Self.none, let key = nodes[tail].key else { return nil }
        return (key, nodes[tail].stamp)
    }

    /// Removes the least recently used entry; returns its value.
    mutating func removeOldest() -> Value? {
        guard let key = oldest?.key else { return nil }
        return remove(key)
    }

    /// Keys from most to least recently used.
    var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var slot = head
        while slot != Self.none {
            if let key = nodes[slot].key { keys.append(key) }
            slot = nodes[slot].next
        }
        return keys
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous != Self.none { nodes[previous].next = next } else { head = next }
        if next != Self.none { nodes[next].previous = previous } else { tail = previous }
    }

    private mutating func moveToHead(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].previous = Self.none
        nodes[slot].next = head
        if head != Self.none { nodes[head].previous = slot }
        head = slot
        if tail == Self.none { tail = slot }
    }

    private mutating func release(_ slot: Int) -> Value? {
        unlink(slot)
        let value = nodes[slot].value
        totalCost -= nodes[slot].cost
        nodes[slot] = Node(key: nil, value: nil, cost: 0, stamp: 0, previous: Self.none, next: freeList)
        freeList = slot
        return value
    }
}
