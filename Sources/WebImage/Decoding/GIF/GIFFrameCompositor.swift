/// Turns a GIF's records, read one by one, into composited frames: the graphic control extension and loop count
/// from extensions, the canvas on the first image, the limits before each frame is drawn, and each finished frame
/// (reduced to the requested size). The thumbnail of a single frame skips the canvas: the frame is shrunk as it
/// is decompressed (``GIFFrameDecoder/firstFrameThumbnail(_:control:canvasSize:target:from:)``), and one frame
/// picked by index leaves the frames before it on the canvas without copying them out. The one-shot
/// decode (``GIFFrameDecoder``) and the incremental one (``GIFPushDecoder``) both feed it, so they make the same
/// frames and refuse the same files.
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

    /// The caller knows no frame follows the first (a first-frame-only decode, or a file whose records were
    /// counted), so a thumbnail's first frame may be shrunk as it is decompressed, without a canvas.
    private let onlyOneFrame: Bool
    /// The one frame the caller keeps (``DecodeOptions/frameIndex``): the frames before it are drawn for what they
    /// leave on the canvas, but never copied out or resized. `nil` keeps every frame.
    private let keptFrameIndex: Int?
    /// How many image records have been taken.
    var imageCount: Int { frameNumber }

    init(decoder: GIFFrameDecoder, onlyOneFrame: Bool = false, keptFrameIndex: Int? = nil) {
        self.decoder = decoder
        self.onlyOneFrame = onlyOneFrame
        self.keptFrameIndex = keptFrameIndex
    }

    /// Takes the record just read from `reader` (an image's data is read here, from `reader`).
    ///
    /// Throws `ImageError.Code.imageTooLarge` when a limit is passed; damage to an image's data is returned as
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
            if onlyOneFrame && frameNumber > 1 {
                // The records were counted before decoding; the same reader cannot find another image.
                return .damaged(ImageError(.badImageData, "GIF: an image record after the file's only one"))
            }
            let size = reader.screenSize.area > 0 ? reader.screenSize : GIFFrameDecoder.extent(of: descriptor.rect)
            try options.limits.check(size)
            if onlyOneFrame, let target = options.storedTargetSize(for: size, orientation: .up), target != size {
                return try firstFrameThumbnail(descriptor, canvasSize: size, target: target, from: reader)
            }
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
        canvas = current
        if let kept = keptFrameIndex, frameNumber - 1 < kept {
            recordOpacity(of: descriptor)
            return .noFrame
        }
        return try finishFrame(try current.snapshot(), descriptor: descriptor, canvasSize: current.size)
    }

    /// The thumbnail of the only frame to be read (a still GIF, or a first-frame-only decode), shrunk as it is
    /// decompressed: no canvas is kept, since no frame follows.
    private mutating func firstFrameThumbnail(
        _ descriptor: GIFImageDescriptor, canvasSize: PixelSize, target: PixelSize, from reader: GIFFileReader
    ) throws -> Outcome {
        opacity = CanvasOpacity(canvas: canvasSize)
        try decoder.options.limits.check(frameCount: frameNumber, canvas: canvasSize)
        let pixels: PixelBuffer
        do {
            pixels = try decoder.firstFrameThumbnail(
                descriptor, control: control, canvasSize: canvasSize, target: target, from: reader)
        } catch let error as ImageError where error.code == .badImageData {
            return .damaged(error)
        }
        return try finishFrame(pixels, descriptor: descriptor, canvasSize: canvasSize)
    }

    /// Records the frame just drawn (`pixels`, full-size or already shrunk) and its alpha, and gets ready for
    /// the next one.
    private mutating func finishFrame(_ pixels: PixelBuffer, descriptor: GIFImageDescriptor, canvasSize: PixelSize)
        throws -> Outcome
    {
        let duration = GIFFrameDecoder.duration(control.delayCentiseconds)
        recordOpacity(of: descriptor)
        let finished = try decoder.options.finish(pixels, sourceSize: canvasSize, orientation: .up)
        progress.reduced = progress.reduced || finished.reduced
        let frame = ImageFrame(pixels: finished.pixels, duration: duration)
        progress.frames.append(frame)
        return .frame(frame)
    }

    /// Follows the canvas's alpha through the frame just drawn and ends that frame's graphic control. Alpha comes
    /// from the records, not the pixels, so that ``GIFCoder/properties(of:)`` says the same.
    private mutating func recordOpacity(of descriptor: GIFImageDescriptor) {
        opacity?.draw(rect: descriptor.rect, declaresTransparency: control.transparentIndex != nil,
                      disposal: control.disposal.canvasDisposal)
        progress.hasAlpha = opacity?.hasShownTransparency ?? true
        control = GIFFrameDecoder.GraphicControl()
    }
}
