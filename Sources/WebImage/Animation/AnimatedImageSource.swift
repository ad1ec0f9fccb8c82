/// Where an ``AnimatedImage`` gets its frames: the facts about an animation that are cheap to read up front, and
/// cursors that composite frames one after another on demand.
///
/// Built in: GIF and animated WebP read from encoded data, and the frames of an already decoded ``Image``. A new
/// format (APNG, for example) plugs in by implementing this protocol and ``AnimationCursor``; ``AnimatedImage``
/// then adds the frame buffer, key frames, limits and thread safety.
///
/// Implementations must be immutable values or otherwise safe to share between tasks.
package protocol AnimatedImageSource: Sendable {
    /// The encoded format the frames come from (`ImageFormat.unknown` for frames made in memory).
    var format: ImageFormat { get }
    /// The size of every frame a cursor produces (after thumbnail reduction and orientation).
    var frameSize: PixelSize { get }
    /// How long each frame is shown, in seconds; the count is the number of frames (at least one).
    var frameDurations: [Double] { get }
    /// How many times the animation plays; 0 means forever.
    var loopCount: Int { get }
    /// The EXIF orientation the source declared (the frames are already turned upright unless the decode options
    /// said otherwise).
    var orientation: Orientation { get }
    /// Whether the file declares transparency; frames are scanned as well when an ``Image`` is built.
    var declaresAlpha: Bool { get }
    /// Whether the frames are smaller than the source on purpose (a thumbnail or scale-down decode).
    var isReduced: Bool { get }
    /// The display scale of the frames (2 for `@2x` sources).
    var scale: Double { get }
    /// Bytes of decoded pixels the source itself holds (0 for sources that decode from encoded data).
    var heldByteCount: Int { get }
    /// Whether the source already holds every decoded frame, so that ``AnimatedImage`` need not buffer them.
    var retainsFrames: Bool { get }

    /// Whether frame `index` can be drawn by a cursor made with ``makeCursor(startingAt:)``: its composited pixels
    /// do not depend on any earlier frame. Frame 0 always can. Answered from headers, without decoding.
    func isIndependent(_ index: Int) -> Bool

    /// A cursor whose next frame is `index`, which must be independent (see ``isIndependent(_:)``).
    func makeCursor(startingAt index: Int) throws -> any AnimationCursor
}

extension AnimatedImageSource {
    /// Sources decode on demand unless they say otherwise.
    package var retainsFrames: Bool { false }
}

/// Composites the frames of one animation in order, holding the canvas between them.
///
/// Cursors have value semantics: a copy is a snapshot that later drawing on the original does not change.
/// ``AnimatedImage`` keeps such copies as key frames, so a seek resumes from the nearest one instead of replaying
/// from frame 0. Store canvases in copy-on-write storage (arrays) so that a copy costs nothing until one side
/// draws again.
package protocol AnimationCursor: Sendable {
    /// The index of the frame ``drawNextFrame()`` draws; the canvas shows frame `nextFrameIndex - 1`.
    var nextFrameIndex: Int { get }
    /// Bytes of memory held by the canvas and whatever else the cursor keeps between frames.
    var heldByteCount: Int { get }

    /// Decodes the next frame and composites it onto the canvas. Throws `ImageError` for damaged frame data.
    mutating func drawNextFrame() throws

    /// The frame last drawn, as a new pixel buffer of ``AnimatedImageSource/frameSize``.
    func makePixels() throws -> PixelBuffer
}
