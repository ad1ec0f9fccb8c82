// What the options ask of a cache hit, written once for the two paths that answer from the cache: the
// synchronous memory fast path and the final stage's query. A hit delivered by either is the same hit.
extension ImageOptions {
    /// `avoidDecodeImage` without `preloadAllFrames`: an animation is delivered as its first frame plus its bytes.
    var leavesFramesUndecoded: Bool { contains(.avoidDecodeImage) && !contains(.preloadAllFrames) }

    /// Whether the load decodes (and delivers) only the first frame of an animation.
    var decodesFirstFrameOnly: Bool { contains(.decodeFirstFrameOnly) || leavesFramesUndecoded }

    /// Whether a cache hit is delivered with its stored bytes, which the memory tier does not hold: when they are
    /// asked for, when the hit is revalidated (the stored validators come with the bytes), and for an animation
    /// whose frames are left undecoded (`animated`; pass `true` when the image is not known yet).
    func hitNeedsStoredData(animated: Bool) -> Bool {
        contains(.queryMemoryData) || contains(.refreshCached) || contains(.refreshIfStale)
            || (animated && leavesFramesUndecoded)
    }
}
