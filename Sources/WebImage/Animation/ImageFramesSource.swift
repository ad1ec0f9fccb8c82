/// The frames of an already decoded ``Image`` as an ``AnimatedImageSource``: every frame is held and independent,
/// so ``AnimatedImage`` neither buffers nor composites anything. This is how eager images (and formats without a
/// lazy decoder yet, such as APNG and still images) are played by ``AnimatedImagePlayer``.
struct ImageFramesSource: AnimatedImageSource {
    let image: Image
    let frameDurations: [Double]

    /// Wraps `image`; with `firstFrameOnly` only its first frame, as a still.
    init(image: Image, firstFrameOnly: Bool = false) {
        if firstFrameOnly && image.frames.count > 1 {
            var still = image
            still.frames = [ImageFrame(pixels: image.pixels)]
            still.loopCount = 1
            self.image = still
        } else {
            self.image = image
        }
        frameDurations = self.image.frames.map(\.duration)
    }

    var format: ImageFormat { image.format }
    var frameSize: PixelSize { image.size }
    var loopCount: Int { image.loopCount }
    var orientation: Orientation { image.orientation }
    var declaresAlpha: Bool { image.hasAlpha }
    var isReduced: Bool { image.flags.contains(.thumbnail) }
    var scale: Double { image.scale }
    var heldByteCount: Int { image.memoryCost }
    var retainsFrames: Bool { true }

    func isIndependent(_ index: Int) -> Bool { image.frames.indices.contains(index) }

    func makeCursor(startingAt index: Int) throws -> any AnimationCursor {
        ImageFramesCursor(frames: image.frames, nextFrameIndex: index)
    }
}

/// "Draws" a held frame by pointing at it.
struct ImageFramesCursor: AnimationCursor {
    let frames: [ImageFrame]
    private(set) var nextFrameIndex: Int

    init(frames: [ImageFrame], nextFrameIndex: Int) {
        self.frames = frames
        self.nextFrameIndex = nextFrameIndex
    }

    var heldByteCount: Int { 0 }

    mutating func drawNextFrame() throws {
        guard frames.indices.contains(nextFrameIndex) else {
            throw ImageError(.badImageData, "there is no frame \(nextFrameIndex)")
        }
        nextFrameIndex += 1
    }

    func makePixels() throws -> PixelBuffer {
        let shown = nextFrameIndex - 1
        guard frames.indices.contains(shown) else { throw ImageError(.badImageData, "no frame has been drawn yet") }
        return frames[shown].pixels
    }
}
