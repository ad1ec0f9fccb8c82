import Foundation

extension AnimatedImage {
    /// How an ``AnimatedImage`` decodes and how much it keeps.
    public struct Options: Sendable, Hashable {
        /// The most bytes of decoded pixels to hold: buffered frames, key frames and the canvas being composited.
        /// `nil` picks ``AnimatedImage/automaticBufferSize(frameByteCount:)``. Key frames take at most half of it
        /// less one frame.
        /// The canvas is kept even when the limit is smaller than one frame, so the image never holds more than
        /// the limit plus one canvas.
        public var maxBufferSize: Int?
        /// Decode every frame at creation and keep them all, whatever ``maxBufferSize`` says (SDWebImage's
        /// `preloadAllFrames`). The frames must pass ``DecodeLimits/maxTotalPixels``.
        public var preloadAllFrames: Bool
        /// Expose only the first frame, as a still image (SDWebImage's `decodeFirstFrameOnly`). The file is read
        /// no further than that frame. ``DecodeOptions/firstFrameOnly`` has the same effect.
        public var decodeFirstFrameOnly: Bool
        /// Save a composited canvas every this many frames while drawing, so that reaching an earlier frame draws
        /// at most this many frames. Smaller is faster to seek and costs more memory. Default 8.
        public var keyframeInterval: Int
        /// Thumbnail size, scale-down limit, orientation, scale and limits, as for an eager decode.
        public var decodeOptions: DecodeOptions

        /// Creates options; every parameter has the default described on its property.
        public init(
            maxBufferSize: Int? = nil, preloadAllFrames: Bool = false, decodeFirstFrameOnly: Bool = false,
            keyframeInterval: Int = 8, decodeOptions: DecodeOptions = DecodeOptions()
        ) {
            self.maxBufferSize = maxBufferSize
            self.preloadAllFrames = preloadAllFrames
            self.decodeFirstFrameOnly = decodeFirstFrameOnly
            self.keyframeInterval = keyframeInterval
            self.decodeOptions = decodeOptions
        }

        /// Whether only the first frame is wanted, by either option.
        var firstFrameOnly: Bool { decodeFirstFrameOnly || decodeOptions.firstFrameOnly }
    }

    /// The budget used when ``Options/maxBufferSize`` is `nil`: 2% of physical memory, at most 64 MiB, and never
    /// less than two frames (the canvas being composited plus one buffered frame).
    ///
    /// SDWebImage sizes its buffer from free memory (the smaller of 20% of total and 60% of free memory) for the
    /// one animation on screen. A library that may hold many animated images at once, on a server as well as a
    /// device, should not let each of them claim a fifth of the machine: 64 MiB holds about 90 frames of 480x360 or
    /// 8 frames of 1080p, which is plenty to play smoothly, and frames beyond it are decoded again as they come.
    public static func automaticBufferSize(frameByteCount: Int) -> Int {
        let physical = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        let budget = min(physical / 50, 64 << 20)
        let (twoFrames, overflow) = frameByteCount.multipliedReportingOverflow(by: 2)
        return max(budget, overflow ? .max : twoFrames)
    }
}
