import Foundation

/// Decodes an image while its bytes arrive, showing partial images on the way (SDWebImage's progressive
/// loading), without re-reading what came before.
///
/// ```swift
/// let decoder = IncrementalDecoder(options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 512, height: 512)))
/// for try await chunk in body {
///     try decoder.append(chunk)
///     if let preview = decoder.currentImage() { show(preview) }   // flagged .incremental until complete
/// }
/// let image = try decoder.finish()   // equals ImageCoders.shared.decode(allBytes, options: sameOptions)
/// ```
///
/// Each format's C decoder stays alive between chunks, so the work for one ``append(_:)`` grows with the new
/// bytes, not with everything received so far:
/// - JPEG: libjpeg's API with a suspending source. Baseline files decode row by row; progressive files are read
///   into libjpeg's coefficient buffer scan by scan (buffered-image mode) and a partial image is an output pass
///   over it as of the last complete scan.
/// - PNG: libpng's progressive reader, row by row; Adam7 files sharpen pass by pass.
/// - WebP (still): libwebp's incremental decoder, row by row.
/// - GIF: frame by frame. Once a frame's data is complete it is composited (giflib reading just the new
///   records), and a partial image holds every frame completed so far, as the GIF coder makes them.
/// - Animated WebP, animated PNG, CMYK JPEG and any format a plugin coder registered in `coders` takes over: the
///   bytes are collected and decoded once, by the coders, when ``finish()`` is called; there are no partial
///   images.
///
/// A partial image costs a pass over the whole bitmap, so it is built only when ``currentImage()`` asks, there is
/// more to show, and enough bytes arrived since the last one (``PartialImagePolicy``); GIF's frames are made as
/// they complete and cost nothing more to show. Partial images are full-size (after the options' thumbnail or
/// scale-down size and orientation, through the same last step as every decoder); rows not decoded yet are
/// transparent, so those images have ``Image/Flags/hasAlpha``. They carry ``Image/Flags/incremental``; the final
/// image does not and equals the one-shot decode with the same ``DecodeOptions`` pixel for pixel (every frame, for
/// GIF). Limits are checked from the header before any pixel memory is taken, and for GIF each frame against the
/// frame count and pixels over all frames as it completes.
///
/// Known differences from the one-shot coders, all at the edges:
/// - WebP keeps its EXIF chunk after the pixels: partial images are not turned (the final one is), and with a
///   thumbnail or scale-down size such a file is decoded whole at the end.
/// - PNG text chunks are skipped unread, so a compressed-text bomb the PNG coder refuses is ignored;
///   libpng refuses a damaged chunk name that libspng would skip.
/// - A JPEG whose sampling factors TurboJPEG cannot classify (unusual encoders, damage) decodes here, while the
///   JPEG coder refuses it.
/// - Damaged headers can get a different one of `ImageError.Code.badImageData` and
///   `ImageError.Code.imageTooLarge`: a chunk or segment is judged when its header arrives.
///
/// Memory: the received bytes (kept for WebP's container, GIF's records and the fallbacks), one bitmap, for
/// progressive JPEG libjpeg's coefficient buffer (about 3 bytes per pixel at 4:2:0), and for GIF the canvas and
/// every frame completed (what the one-shot decode holds too).
///
/// Not thread-safe, and deliberately not `Sendable`: use one decoder from one task at a time (the task that
/// receives the download is the natural owner).
public final class IncrementalDecoder {
    /// The options every image returned is decoded with.
    public let options: DecodeOptions
    /// How often ``currentImage()`` rebuilds a partial image.
    public let partialImagePolicy: PartialImagePolicy
    /// The format being decoded: given at creation, or recognised from the first bytes; `nil` until then.
    public private(set) var format: ImageFormat?
    private let coders: ImageCoders
    private var received = Data()
    private var backend: (any PushDecoder)?
    private var failure: ImageError?
    private var completeImage: Image?
    /// The last partial image, the decoder's progress it shows and the byte count when it was built.
    private var partial: (progress: Int, received: Int, image: Image)?
    /// The file's colour description, read once the image data has started (every colour chunk is in by then).
    private var sourceProfile: ColorProfile??

    /// Bytes needed to recognise a format that is not recognised sooner (JPEG needs 3, PNG 8, WebP 12).
    static let sniffLength = 32

    /// Creates a decoder for data of `format` (from a Content-Type, say), or recognised from the first bytes when
    /// `nil`. `coders` decodes what has no incremental path, and a plugin registered there for a format takes it
    /// over from the built-in incremental path. `partialImagePolicy` spaces partial images out (see
    /// ``PartialImagePolicy/default``).
    public init(format: ImageFormat? = nil, options: DecodeOptions = DecodeOptions(), coders: ImageCoders = .shared,
                partialImagePolicy: PartialImagePolicy = .default) {
        self.format = format
        self.options = options
        self.coders = coders
        self.partialImagePolicy = partialImagePolicy
    }

    /// Bytes received so far.
    public var receivedByteCount: Int { received.count }

    /// Whether the whole image has been read (the format's end marker seen); ``finish()`` then returns at once.
    /// Formats decoded only at the end report `false` until ``finish()`` has run.
    public var isComplete: Bool { completeImage != nil }

    /// Takes the next bytes and decodes as far as they allow.
    ///
    /// Throws as soon as the data shows an error: `ImageError.Code.imageTooLarge` for a header over the
    /// limits, `ImageError.Code.badImageData` for corrupt data. After an error every call throws it again.
    public func append(_ chunk: Data) throws {
        if let failure { throw failure }
        guard !chunk.isEmpty, completeImage == nil else { return }
        received.append(chunk)
        do {
            if let backend {
                try feed(backend, chunk)
            } else if let backend = try chooseBackend(dataIsComplete: false) {
                try feed(backend, received)  // the first bytes went to sniffing: give them all
            }
        } catch {
            let failure = error as? ImageError ?? ImageError(.badImageData, "\(error)")
            self.failure = failure
            throw failure
        }
    }

    /// The best image so far: `nil` before anything can be shown, a partial image flagged
    /// ``Image/Flags/incremental`` while data is missing, the final image once complete.
    ///
    /// Cheap to call after every chunk: a partial image is rebuilt only when the decoder has more to show than
    /// last time (new rows, a new pass or scan) and enough bytes arrived since the last one to pay for it (see
    /// ``partialImagePolicy``); otherwise the previous one is returned.
    public func currentImage() -> Image? {
        if let completeImage { return completeImage }
        guard failure == nil, let backend else { return nil }
        if let frames = backend.completedFrames() { return frames }  // already composited: nothing to rebuild
        let progress = backend.progress
        if let partial {
            let spacing = partialImagePolicy.spacing(forPixels: backend.outputPixelCount)
            if partial.progress == progress || received.count - partial.received < spacing { return partial.image }
        }
        guard progress > 0, let pixels = backend.partialPixels(),
              let finished = try? options.finish(pixels.pixels, sourceSize: pixels.sourceSize,
                                                 orientation: pixels.orientation)
        else { return partial?.image }
        var flags: Image.Flags = .incremental
        if pixels.hasAlpha { flags.insert(.hasAlpha) }
        if finished.reduced { flags.insert(.thumbnail) }
        let raw = Image(frames: [ImageFrame(pixels: finished.pixels)], format: format ?? .unknown,
                        scale: options.resolvedScale, orientation: pixels.orientation, flags: flags)
        guard let image = try? colorManaged(raw) else { return partial?.image }
        partial = (progress, received.count, image)
        return image
    }

    /// The final image, once every byte has been appended.
    ///
    /// Throws `ImageError.Code.badImageData` when the data ended before the image did, and any error
    /// ``append(_:)`` threw.
    public func finish() throws -> Image {
        if let failure { throw failure }
        if let completeImage { return completeImage }
        do {
            guard !received.isEmpty else { throw ImageError(.badImageData, "the data is empty") }
            if backend == nil, let chosen = try chooseBackend(dataIsComplete: true) {
                try feed(chosen, received)  // fewer bytes than it takes to recognise a format otherwise
            }
            guard let backend else { throw ImageError(.badImageData, "the data is not an image in any known format") }
            let image = try completeImage ?? colorManaged(backend.finalImage(received: received))
            completeImage = image
            partial = nil
            return image
        } catch {
            let failure = error as? ImageError ?? ImageError(.badImageData, "\(error)")
            self.failure = failure
            throw failure
        }
    }

    private func feed(_ backend: any PushDecoder, _ bytes: Data) throws {
        self.backend = backend
        let outcome = try bytes.withUnsafeBytes { try backend.consume($0, received: received) }
        if case .needsWholeFile = outcome {
            self.backend = WholeFileDecoder(coders: coders, options: options)
            partial = nil
            return
        }
        if backend.isComplete, completeImage == nil {
            completeImage = try colorManaged(backend.finalImage(received: received))
            partial = nil
        }
    }

    /// `image` from a push decoder in the colour the options ask for, as the coders' one-shot decode gives it.
    /// Images from the whole-file fallback went through the coders and are already converted.
    private func colorManaged(_ image: Image) throws -> Image {
        guard !(backend is WholeFileDecoder) else { return image }
        if sourceProfile == nil {
            sourceProfile = .some(received.withUnsafeBytes { EmbeddedColorProfile.read($0, format: format) })
        }
        var tagged = image
        tagged.colorProfile = sourceProfile ?? nil
        try ColorConversion.apply(options.colorHandling, to: &tagged)
        return tagged
    }

    /// The push decoder for the format, once it is known; `nil` while more bytes are needed to tell.
    private func chooseBackend(dataIsComplete: Bool) throws -> (any PushDecoder)? {
        if format == nil {
            let detected = ImageFormat.detect(received)
            guard detected != .unknown || dataIsComplete || received.count >= Self.sniffLength else { return nil }
            format = detected
        }
        // A plugin that took the format over from the built-in coder decodes it, whole.
        let coder = coders.coders.first { $0.canDecode(received) }
        switch format {
        case .jpeg? where coder is JPEGCoder: return try JPEGPushDecoder(options: options)
        case .png? where coder is PNGCoder: return try PNGPushDecoder(options: options)
        case .webp? where coder is WebPCoder: return try WebPPushDecoder(options: options)
        case .gif? where coder is GIFCoder: return GIFPushDecoder(options: options)
        default: return WholeFileDecoder(coders: coders, options: options)
        }
    }
}
