import CPNGIncremental
import Foundation

/// PNG bytes as they arrive, through libpng's progressive reader kept alive between chunks (libspng, behind the
/// PNG coder, has no push API). See `PNGIncremental.h`.
///
/// - Rows go straight into a canvas; a partial image is the rows decoded so far. Interlaced (Adam7) files fill
///   the whole canvas coarsely in the first pass and sharpen with each pass (libpng repeats each early pass's
///   pixels over the block it stands for), so a partial image of one shows every row.
/// - The output is the PNG coder's, pixel for pixel: RGBA8 with tRNS applied and 16-bit samples rounded.
/// - Orientation comes from an eXIf chunk; one placed after the image data only turns the final image.
/// - Text and ICC chunks are skipped unread, so a compressed-text bomb that makes the PNG coder fail with
///   `imageTooLarge` is simply ignored here.
/// - Animated PNG (an acTL chunk before the image data) is handed back to the coders whole (`needsWholeFile`):
///   libpng would read only its default image. Chunk headers are walked as they arrive until the first IDAT.
final class PNGPushDecoder: PushDecoder {
    /// The largest ancillary chunk libpng may inflate into memory (the PNG coder's libspng limit).
    static let maxChunkBytes = 16 << 20

    private let decoder: OpaquePointer
    private let options: DecodeOptions
    private var canvas: PixelCanvas?
    private var header = wi_png_header()
    private var finalPixels: PixelBuffer?
    /// Where the next chunk header starts, while looking for acTL; `nil` once IDAT was reached.
    private var animationScanOffset: Int? = PNGChunkReader.signature.count

    init(options: DecodeOptions) throws {
        let maxPixels = UInt64(max(options.limits.maxPixels, 0))
        guard let decoder = wi_png_create(maxPixels, Self.maxChunkBytes) else {
            throw ImageError(.imageTooLarge, "PNG: libpng could not allocate a decoder")
        }
        self.decoder = decoder
        self.options = options
    }

    deinit { wi_png_destroy(decoder) }

    var isComplete: Bool { finalPixels != nil }

    var outputPixelCount: Int { canvas.map { $0.width * $0.height } ?? 0 }

    var progress: Int {
        if finalPixels != nil { return Int.max }
        // Interlaced files improve in every pass: count rows over all passes.
        return Int(wi_png_progress(decoder))
    }

    func consume(_ chunk: UnsafeRawBufferPointer, received: Data) throws -> PushOutcome {
        guard finalPixels == nil else { return .decoding }  // bytes after IEND are ignored, as the coder does
        if declaresAnimation(received) { return .needsWholeFile }
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), !chunk.isEmpty else {
            return .decoding
        }
        try check(wi_png_process(decoder, base, chunk.count))
        if canvas == nil, wi_png_wants_canvas(decoder, &header) != 0 {
            let size = PixelSize(width: Int(header.width), height: Int(header.height))
            try options.limits.check(size)
            // Interlaced: libpng's first pass writes every row it reaches (it repeats each pass-1 row over its
            // 8-row block), but a snapshot shows the whole canvas; zeros keep any row not reached transparent.
            let canvas = try PixelCanvas(width: size.width, height: size.height, zeroed: header.interlaced != 0)
            self.canvas = canvas
            wi_png_set_canvas(decoder, canvas.baseAddress, canvas.bytesPerRow)
            try check(wi_png_process(decoder, nil, 0))
        }
        if wi_png_ended(decoder) != 0, let canvas {
            finalPixels = try canvas.freeze()
        }
        return .decoding
    }

    /// Whether an acTL chunk came before the first IDAT, walking the chunk headers that arrived since last time.
    private func declaresAnimation(_ received: Data) -> Bool {
        guard var offset = animationScanOffset else { return false }
        let start = received.startIndex
        func bigEndian32(at index: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 << 8 | UInt32(received[start + index + $1]) }
        }
        while offset + 8 <= received.count {
            let type = PNGChunkType(rawValue: bigEndian32(at: offset + 4))
            if type == .acTL { return true }
            if type == .IDAT {
                animationScanOffset = nil
                return false
            }
            offset += 12 + Int(bigEndian32(at: offset))
        }
        animationScanOffset = offset
        return false
    }

    func partialPixels() -> PartialPixels? {
        let pixels: PixelBuffer?
        var missingRows = false
        let rows = Int(wi_png_rows_filled(decoder))
        if let finalPixels {
            pixels = finalPixels
        } else if let canvas, rows > 0 {
            // Sequential: the rows so far, then transparent ones. Interlaced: the zeroed canvas as it stands.
            pixels = try? canvas.snapshot(validRows: header.interlaced != 0 ? canvas.height : rows)
            missingRows = rows < canvas.height
        } else {
            pixels = nil
        }
        guard let pixels else { return nil }
        return PartialPixels(pixels: pixels, sourceSize: pixels.size, orientation: orientation(),
                             hasAlpha: header.has_alpha != 0 || missingRows)
    }

    func finalImage(received: Data) throws -> Image {
        guard let finalPixels else { throw ImageError(.badImageData, "PNG: the data ends before the IEND chunk") }
        let orientation = orientation()
        var flags: Image.Flags = header.has_alpha != 0 ? .hasAlpha : []
        let finished = try options.finish(finalPixels, sourceSize: finalPixels.size, orientation: orientation)
        if finished.reduced { flags.insert(.thumbnail) }
        return Image(frames: [ImageFrame(pixels: finished.pixels)], loopCount: 1, format: .png,
                     scale: options.resolvedScale, orientation: orientation, flags: flags)
    }

    /// The orientation from the eXIf chunk read so far.
    private func orientation() -> Orientation {
        var length: UInt32 = 0
        guard let exif = wi_png_exif(decoder, &length), length > 0 else { return .up }
        return EXIFReader.orientation(in: UnsafeRawBufferPointer(start: exif, count: Int(length))) ?? .up
    }

    private func check(_ status: wi_png_status) throws {
        guard status != WI_PNG_OK else { return }
        let message = "PNG: \(String(cString: wi_png_message(decoder)))"
        throw ImageError(wi_png_error_is_too_large(decoder) != 0 ? .imageTooLarge : .badImageData, message)
    }
}
