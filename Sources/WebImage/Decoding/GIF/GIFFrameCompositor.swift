/// Turns a GIF's records, read one by one, into composited frames: the graphic control extension and loop count
/// from extensions, the canvas on the first image, the limits before each frame is drawn, and each finished frame
/// (reduced to the requested size). The one-shot decode (``GIFFrameDecoder``) and the incremental one
/// (``GIFPushDecoder``) both feed it, so they make the same frames and refuse the same files.
struct GIFFrameCompositor {
    /// What one record gave.
    enum Outcome {
        /// An extension (or nothing to show).
        case noFrame
        /// An image record: the frame it completed (also appended to ``progress``).
        case frame(ImageFrame)
        /// An image record whose data is damaged; the frames before it stand.
        case damaged(ImageError)
        /// The trailer: the file ends here.
        case trailer
    }

    let decoder: GIFFrameDecoder
    /// The frames so far, loop count and alpha; ``GIFFrameDecoder/Progress/stopReason`` is the caller's to set.
    var progress = GIFFrameDecoder.Progress()
    private var canvas: GIFCanvas?
    private var opacity: CanvasOpacity?
    private var control = GIFFrameDecoder.GraphicControl()
    private var frameNumber = 0

    init(decoder: GIFFrameDecoder) {
        self.decoder = decoder
    }

    /// Takes the record just read from `reader` (an image's data is read here, from `reader`).
    ///
    /// Throws ``ImageError/Code/imageTooLarge`` when a limit is passed; damage to an image's data is returned as
    /// ``Outcome/damaged(_:)``.
    mutating func take(_ record: GIFFileReader.Record, from reader: GIFFileReader) throws -> Outcome {
        switch record {
        case .trailer:
            return .trailer
        case .extension(let label, let blocks):
            GIFFrameDecoder.interpret(
                extension: label, blocks: blocks, control: &control, loopCount: &progress.loopCount)
            return .noFrame
        case .image(let descriptor):
            return try composite(descriptor, from: reader)
        }
    }

    private mutating func composite(_ descriptor: GIFImageDescriptor, from reader: GIFFileReader) throws -> Outcome {
        let options = decoder.options
        frameNumber += 1
        if canvas == nil {
            let size = reader.screenSize.area > 0 ? reader.screenSize : GIFFrameDecoder.extent(of: descriptor.rect)
            try options.limits.check(size)
            canvas = GIFCanvas(size: size)
            opacity = CanvasOpacity(canvas: size)
        }
        guard var current = canvas else { return .noFrame }
        canvas = nil  // keep the canvas uniquely referenced while drawing
        try options.limits.check(frameCount: frameNumber, canvas: current.size)
        do {
            try decoder.draw(descriptor, control: control, from: reader, on: &current)
        } catch let error as ImageError where error.code == .badImageData {
            return .damaged(error)
        }
        let pixels = try current.snapshot()
        // Alpha from the records, not the pixels, so that ``GIFCoder/properties(of:)`` says the same.
        opacity?.draw(rect: descriptor.rect, declaresTransparency: control.transparentIndex != nil,
                      disposal: control.disposal.canvasDisposal)
        progress.hasAlpha = opacity?.hasShownTransparency ?? true
        let finished = try options.finish(pixels, sourceSize: current.size, orientation: .up)
        progress.reduced = progress.reduced || finished.reduced
        let frame = ImageFrame(pixels: finished.pixels, duration: GIFFrameDecoder.duration(control.delayCentiseconds))
        progress.frames.append(frame)
        canvas = current
        control = GIFFrameDecoder.GraphicControl()
        return .frame(frame)
    }
}
