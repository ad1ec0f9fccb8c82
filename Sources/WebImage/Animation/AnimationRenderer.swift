/// Produces composited frames in any order from an ``AnimatedImageSource``: a live cursor for playing forward,
/// plus key frames (saved cursors) so that a jump costs a bounded replay.
///
/// To produce frame *i* it starts from whichever is nearest at or before *i*: the live cursor, a saved key frame,
/// or a frame the source can draw from scratch (see ``AnimatedImageSource/isIndependent(_:)``); then it draws
/// forward to *i*. While drawing it saves a key frame at every multiple of ``interval`` (unless that frame is
/// independent anyway), so once a stretch has been played, reaching any frame in it draws at most ``interval``
/// frames. Key frames are limited to a byte budget: when the next one would not fit, the interval doubles and the
/// key frames off the new grid are dropped.
struct AnimationRenderer {
    /// The cursor that drew last; playing forward continues from it.
    private var cursor: (any AnimationCursor)?
    /// Saved cursors by the index of the frame they draw next.
    private var keyframes: [Int: any AnimationCursor] = [:]
    private var keyframeBytes = 0
    /// Frames between key frames.
    private(set) var interval: Int
    /// The most bytes key frames may hold.
    let keyframeBudget: Int
    /// For each frame, the nearest frame at or before it that the source can draw from scratch.
    private let latestIndependent: [Int]
    /// Frames drawn since creation (for tests of the seek cost).
    private(set) var framesDrawn = 0

    init(source: any AnimatedImageSource, interval: Int, keyframeBudget: Int) {
        self.interval = max(interval, 1)
        self.keyframeBudget = max(keyframeBudget, 0)
        var latest: [Int] = []
        latest.reserveCapacity(source.frameDurations.count)
        var last = 0
        for index in source.frameDurations.indices {
            if source.isIndependent(index) { last = index }
            latest.append(last)
        }
        latestIndependent = latest
    }

    /// Bytes held by the live cursor and the key frames.
    var byteCount: Int { (cursor?.heldByteCount ?? 0) + keyframeBytes }

    /// Indices of the frames the key frames draw next, ascending.
    var keyframeIndices: [Int] { keyframes.keys.sorted() }

    /// Composites frame `index` of `source` (which the caller has checked is in range), and also returns the
    /// frames in `kept` that were drawn on the way to it.
    mutating func render(_ index: Int, from source: any AnimatedImageSource, keeping kept: Range<Int>) throws
        -> (pixels: PixelBuffer, kept: [(index: Int, pixels: PixelBuffer)])
    {
        var working = try startingCursor(for: index, source: source)
        var keptFrames: [(index: Int, pixels: PixelBuffer)] = []
        while working.nextFrameIndex <= index {
            saveKeyframeIfDue(working)
            try working.drawNextFrame()
            framesDrawn += 1
            let drawn = working.nextFrameIndex - 1
            if drawn < index && kept.contains(drawn) { keptFrames.append((drawn, try working.makePixels())) }
        }
        let pixels = try working.makePixels()
        cursor = working
        return (pixels, keptFrames)
    }

    /// Drops the live cursor and every key frame.
    mutating func removeAll() {
        cursor = nil
        keyframes.removeAll()
        keyframeBytes = 0
    }

    /// The nearest usable start at or before `index`, taken out of storage so that drawing on it does not copy
    /// the canvas (a key frame is copied, which keeps the saved one intact).
    private mutating func startingCursor(for index: Int, source: any AnimatedImageSource) throws
        -> any AnimationCursor
    {
        let fresh = latestIndependent.indices.contains(index) ? latestIndependent[index] : 0
        let live = cursor.map(\.nextFrameIndex).flatMap { $0 <= index ? $0 : nil } ?? -1
        let saved = keyframes.keys.filter { $0 <= index }.max() ?? -1
        if live >= 0, live >= fresh, live >= saved, let live = cursor {
            cursor = nil
            return live
        }
        cursor = nil  // about to be replaced; dropping it first keeps peak memory down
        if saved > fresh, let keyframe = keyframes[saved] { return keyframe }
        return try source.makeCursor(startingAt: fresh)
    }

    private mutating func saveKeyframeIfDue(_ working: any AnimationCursor) {
        let position = working.nextFrameIndex
        guard position > 0, keyframes[position] == nil, latestIndependent.indices.contains(position),
              latestIndependent[position] != position else { return }
        let cost = working.heldByteCount
        while position % interval == 0 && keyframeBytes + cost > keyframeBudget && !keyframes.isEmpty {
            widenInterval()
        }
        guard position % interval == 0, keyframeBytes + cost <= keyframeBudget else { return }
        keyframes[position] = working
        keyframeBytes += cost
    }

    /// Doubles the interval and drops the key frames that are off the new grid.
    private mutating func widenInterval() {
        interval *= 2
        for (position, keyframe) in keyframes where position % interval != 0 {
            keyframes[position] = nil
            keyframeBytes -= keyframe.heldByteCount
        }
    }
}
