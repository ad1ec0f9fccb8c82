/// The decoded frames an ``AnimatedImage`` keeps, within a byte limit, evicting the least recently used first.
///
/// Least recently used suits playback in any direction: the frames behind the play head were used longest ago,
/// and frames fetched ahead of it were used (inserted) last. The buffer holds a handful of entries, so finding
/// the oldest by a scan is cheaper than keeping an ordered list.
struct AnimationFrameBuffer {
    private struct Entry {
        var pixels: PixelBuffer
        var lastUse: UInt64
    }

    private var entries: [Int: Entry] = [:]
    private var useCounter: UInt64 = 0
    /// Bytes of all buffered frames.
    private(set) var byteCount = 0

    /// Number of frames held.
    var count: Int { entries.count }

    /// Indices of the frames held, ascending.
    var heldIndices: [Int] { entries.keys.sorted() }

    /// The frame at `index`, marked as just used.
    mutating func frame(at index: Int) -> PixelBuffer? {
        guard entries[index] != nil else { return nil }
        useCounter += 1
        entries[index]?.lastUse = useCounter
        return entries[index]?.pixels
    }

    /// Whether frame `index` is held (does not count as a use).
    func contains(_ index: Int) -> Bool { entries[index] != nil }

    /// Keeps `pixels` as frame `index` if it fits in `limit` bytes after evicting older frames; returns whether it
    /// was kept. A frame larger than the whole limit is not kept and evicts nothing.
    @discardableResult
    mutating func insert(_ pixels: PixelBuffer, at index: Int, limit: Int) -> Bool {
        remove(index)
        guard pixels.byteCount <= limit else {
            trim(to: limit)
            return false
        }
        trim(to: limit - pixels.byteCount)
        useCounter += 1
        entries[index] = Entry(pixels: pixels, lastUse: useCounter)
        byteCount += pixels.byteCount
        return true
    }

    /// Evicts least recently used frames until at most `limit` bytes are held.
    mutating func trim(to limit: Int) {
        while byteCount > max(limit, 0), let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            remove(oldest)
        }
    }

    /// Drops every frame.
    mutating func removeAll() {
        entries.removeAll()
        byteCount = 0
    }

    private mutating func remove(_ index: Int) {
        if let entry = entries.removeValue(forKey: index) { byteCount -= entry.pixels.byteCount }
    }
}
