import Foundation
import Synchronization

/// An animation whose frames are decoded when asked for (SDWebImage's SDAnimatedImage role).
///
/// Creating one reads only what is cheap: frame count, frame size, durations and loop count. For GIF that is one
/// pass over the records that skips the compressed pixel data (no LZW decoding, no canvas); for WebP, the
/// demuxer's parse of the chunk headers. ``frame(at:)`` composites a frame on
/// demand and keeps it in a buffer bounded by ``Options/maxBufferSize``, evicting the least recently used frames.
/// Going forward continues from the canvas of the last frame drawn; going back or jumping resumes from the nearest
/// key frame (a saved canvas every ``Options/keyframeInterval`` frames, or a frame that needs no predecessor), so
/// no seek replays more than a bounded number of frames once the stretch has been played. When frames are asked
/// for backwards (reverse playback), the frames drawn on the way to one are buffered too, as far as the budget
/// allows, since they are the next ones wanted.
///
/// Every method may be called from any task or thread. Frames are composited one at a time (they share the
/// canvas); reading a buffered frame never waits for a decode in progress.
///
/// GIF and animated WebP are decoded lazily; any other data (still images, APNG) is decoded at once by the
/// coders and played from memory. Other formats plug in as coders.
public final class AnimatedImage: Sendable {
    /// Where the frames come from.
    package let source: any AnimatedImageSource
    /// The options the image was made with.
    public let options: Options
    /// The byte budget in force (``Options/maxBufferSize`` or the automatic one).
    public let maxBufferSize: Int

    private let frameState: Locked<FrameState>
    private let renderer: Locked<AnimationRenderer>
    /// The renderer's byte count, mirrored so ``memoryCost`` never waits for a decode.
    private let rendererBytes = Atomic<Int>(0)

    private struct FrameState {
        var buffer = AnimationFrameBuffer()
        /// Bytes the buffer may use before the renderer's share is taken off (raised by preloading).
        var limit: Int
        /// The frame asked for last, to notice backward stepping.
        var lastRequested: Int?
    }

    /// Reads the animation's header from `data`; see the type's documentation for which formats are lazy.
    ///
    /// Throws `ImageError.Code.badImageData` for damaged data, `ImageError.Code.imageTooLarge` when the
    /// canvas or the frame count is over ``DecodeOptions/limits`` (and, with ``Options/preloadAllFrames``, the
    /// pixels of all frames), and `ImageError.Code.unsupportedFormat` for formats `coders` cannot read.
    public convenience init(data: Data, options: Options = Options(), coders: ImageCoders = .shared) throws {
        let firstOnly = options.firstFrameOnly
        let source: any AnimatedImageSource
        switch ImageFormat.detect(data) {
        case .gif:
            source = try GIFAnimationSource(data: data, decodeOptions: options.decodeOptions, firstFrameOnly: firstOnly)
        case .webp where WebPAnimationSource.isAnimated(data):
            source = try WebPAnimationSource(
                data: data, decodeOptions: options.decodeOptions, firstFrameOnly: firstOnly)
        default:
            var decodeOptions = options.decodeOptions
            decodeOptions.firstFrameOnly = firstOnly
            source = ImageFramesSource(image: try coders.decode(data, options: decodeOptions))
        }
        try self.init(source: source, options: options)
    }

    /// Plays the frames of an already decoded image (held in memory; nothing is buffered twice).
    public convenience init(image: Image, options: Options = Options()) {
        self.init(checkedSource: ImageFramesSource(image: image, firstFrameOnly: options.firstFrameOnly),
                  options: options)
    }

    /// Plays the frames of `source`. Throws only when ``Options/preloadAllFrames`` is set and preloading fails.
    package convenience init(source: any AnimatedImageSource, options: Options = Options()) throws {
        self.init(checkedSource: source, options: options)
        if options.preloadAllFrames { try preloadAllFrames() }
    }

    private init(checkedSource source: any AnimatedImageSource, options: Options) {
        self.source = source
        self.options = options
        let frameBytes = source.frameSize.area.multipliedReportingOverflow(by: PixelBuffer.bytesPerPixel)
        let frameByteCount = frameBytes.overflow ? Int.max : frameBytes.partialValue
        let budget = max(options.maxBufferSize ?? Self.automaticBufferSize(frameByteCount: frameByteCount), 0)
        maxBufferSize = budget
        frameState = Locked(FrameState(limit: budget))
        // Key frames get half the budget less one frame, so that a small budget still buffers frames.
        renderer = Locked(AnimationRenderer(
            source: source, interval: options.keyframeInterval, keyframeBudget: budget / 2 - frameByteCount))
    }

    // MARK: - What the animation is

    /// The encoded format (`ImageFormat.unknown` for frames made in memory).
    public var format: ImageFormat { source.format }
    /// Number of frames (1 for still images and with ``Options/decodeFirstFrameOnly``).
    public var frameCount: Int { source.frameDurations.count }
    /// How long each frame is shown, in seconds (0 for a still image).
    public var frameDurations: [Double] { source.frameDurations }
    /// How many times the animation plays; 0 means forever, 1 for still images.
    public var loopCount: Int { source.loopCount }
    /// The size of every frame, after thumbnail reduction and orientation.
    public var size: PixelSize { source.frameSize }
    /// The display scale (2 for `@2x` sources).
    public var scale: Double { source.scale }
    /// The length of one loop, in seconds.
    public var duration: Double { source.frameDurations.reduce(0, +) }
    /// More than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    // MARK: - Frames

    /// Frame `index`, composited, with its duration; decoded now unless it is buffered.
    ///
    /// Throws `ImageError.Code.badImageData` when `index` is outside `0..<frameCount` or the frame's data (or
    /// that of a frame it builds on) is damaged.
    public func frame(at index: Int) throws -> ImageFrame {
        guard (0..<frameCount).contains(index) else {
            throw ImageError(.badImageData, "frame \(index) is outside 0..<\(frameCount)")
        }
        return ImageFrame(pixels: try pixels(at: index), duration: source.frameDurations[index])
    }

    /// Frame `index` if it is ready without decoding (buffered, or held by the source), else `nil`.
    public func cachedFrame(at index: Int) -> ImageFrame? {
        guard (0..<frameCount).contains(index) else { return nil }
        if source.retainsFrames { return try? frame(at: index) }
        return frameState.withLock { $0.buffer.frame(at: index) }.map {
            ImageFrame(pixels: $0, duration: source.frameDurations[index])
        }
    }

    /// Frame `index` as a still ``Image`` (one frame, duration 0, loop count 1) with this image's format, scale,
    /// orientation and flags.
    public func image(at index: Int) throws -> Image {
        let pixels = try frame(at: index).pixels
        return Image(frames: [ImageFrame(pixels: pixels)], loopCount: 1, format: format, scale: scale,
                     orientation: source.orientation, flags: flags(forFrames: [pixels]))
    }

    /// Every frame decoded into an eager ``Image``, like decoding the data with the coders.
    ///
    /// Throws `ImageError.Code.imageTooLarge` when all frames together exceed
    /// ``DecodeLimits/maxTotalPixels`` (the lazy image itself is not subject to that limit).
    public func makeImage() throws -> Image {
        if !source.retainsFrames {
            try options.decodeOptions.limits.check(frameCount: frameCount, canvas: size)
        }
        let frames = try (0..<frameCount).map { try frame(at: $0) }
        return Image(frames: frames, loopCount: loopCount, format: format, scale: scale,
                     orientation: source.orientation, flags: flags(forFrames: frames.map(\.pixels)))
    }

    /// Decodes every frame not yet buffered and keeps all of them from now on, whatever ``maxBufferSize`` says.
    ///
    /// Throws `ImageError.Code.imageTooLarge` when all frames together exceed ``DecodeLimits/maxTotalPixels``.
    public func preloadAllFrames() throws {
        guard !source.retainsFrames else { return }
        try options.decodeOptions.limits.check(frameCount: frameCount, canvas: size)
        let pixelCount = frameCount.multipliedReportingOverflow(by: size.area)
        let total = pixelCount.partialValue.multipliedReportingOverflow(by: PixelBuffer.bytesPerPixel)
        let bytes = pixelCount.overflow || total.overflow ? Int.max : total.partialValue
        frameState.withLock { $0.limit = max($0.limit, bytes) }
        for index in 0..<frameCount { _ = try pixels(at: index) }
    }

    /// Decodes the frames at `indices` that are not buffered yet (for playback a little ahead of time). Errors
    /// are not reported here: they surface when the frame is asked for with ``frame(at:)``.
    public func prefetchFrames(_ indices: some Sequence<Int>) {
        for index in indices where (0..<frameCount).contains(index) {
            _ = try? pixels(at: index)
        }
    }

    /// Drops every buffered frame, key frame and the canvas: ``memoryCost`` goes down to what the source holds.
    /// Frames asked for later are decoded again.
    public func clearBuffer() {
        renderer.withLock { renderer in
            renderer.removeAll()
            rendererBytes.store(0, ordering: .relaxed)
            frameState.withLock { $0.buffer.removeAll() }
        }
    }

    // MARK: - Memory

    /// Bytes of decoded pixels held now: buffered frames, key frames, the canvas, and frames the source holds
    /// (for an image made from an eager ``Image``). The encoded data is not counted.
    public var memoryCost: Int {
        frameState.withLock { $0.buffer.byteCount } + rendererBytes.load(ordering: .relaxed) + source.heldByteCount
    }

    /// How many decoded frames are buffered now.
    public var bufferedFrameCount: Int { frameState.withLock { $0.buffer.count } }

    /// Frames composited since creation, including those replayed to reach another (for tests of the seek cost).
    var framesDrawn: Int { renderer.withLock { $0.framesDrawn } }

    /// Frames the key frames resume at (for tests).
    var keyframeIndices: [Int] { renderer.withLock { $0.keyframeIndices } }

    /// Drops the buffered frames but keeps the canvas and key frames (for tests that measure replays).
    func removeBufferedFrames() {
        frameState.withLock { $0.buffer.removeAll() }
    }

    // MARK: - Decoding

    private func pixels(at index: Int) throws -> PixelBuffer {
        if source.retainsFrames {
            var cursor = try source.makeCursor(startingAt: index)
            try cursor.drawNextFrame()
            return try cursor.makePixels()
        }
        let (buffered, previous) = frameState.withLock { state in
            defer { state.lastRequested = index }
            return (state.buffer.frame(at: index), state.lastRequested)
        }
        if let buffered { return buffered }
        return try renderer.withLock { renderer in
            // Another task may have decoded it while this one waited for the renderer.
            if let pixels = frameState.withLock({ $0.buffer.frame(at: index) }) { return pixels }
            // Stepping backwards (reverse playback, the way back of a bounce), the frames drawn on the way to this
            // one are the next ones wanted: keep as many of them as the buffer holds instead of replaying later.
            let keeping = previous == index + 1 ? framesBelow(index, fittingBeside: renderer) : index..<index
            do {
                let (pixels, kept) = try renderer.render(index, from: source, keeping: keeping)
                for frame in kept { keep(frame.pixels, at: frame.index, renderer: &renderer) }
                keep(pixels, at: index, renderer: &renderer)
                return pixels
            } catch {
                rendererBytes.store(renderer.byteCount, ordering: .relaxed)
                throw error
            }
        }
    }

    /// Buffers a new frame within the budget left after the renderer's share; once every frame is buffered, the
    /// renderer's canvas and key frames are no longer needed and are dropped.
    private func keep(_ pixels: PixelBuffer, at index: Int, renderer: inout AnimationRenderer) {
        let frameCount = self.frameCount
        let rendererByteCount = renderer.byteCount
        let complete = frameState.withLock { state in
            // The frame that completes the buffer may use the renderer's share, which is about to be freed.
            let completing = state.buffer.count + (state.buffer.contains(index) ? 0 : 1) == frameCount
            state.buffer.insert(pixels, at: index, limit: completing ? state.limit : state.limit - rendererByteCount)
            if state.buffer.count == frameCount { return true }
            state.buffer.trim(to: state.limit - rendererByteCount)
            return false
        }
        if complete { renderer.removeAll() }
        rendererBytes.store(renderer.byteCount, ordering: .relaxed)
    }

    /// The frames just below `index` that fit in the buffer together with frame `index`.
    private func framesBelow(_ index: Int, fittingBeside renderer: AnimationRenderer) -> Range<Int> {
        let frameBytes = max(size.area * PixelBuffer.bytesPerPixel, 1)
        let room = frameState.withLock { ($0.limit - renderer.byteCount) / frameBytes } - 1
        return room > 0 ? max(index - room, 0)..<index : index..<index
    }

    private func flags(forFrames frames: [PixelBuffer]) -> Image.Flags {
        var flags: Image.Flags = []
        if source.declaresAlpha || frames.contains(where: \.containsTransparency) { flags.insert(.hasAlpha) }
        if source.isReduced { flags.insert(.thumbnail) }
        return flags
    }
}
