import CJPEGIncremental
import Foundation

/// JPEG bytes as they arrive, through libjpeg's API kept alive between chunks (see `JPEGIncremental.h`).
///
/// - Single-scan (baseline) files decode row by row into a canvas; a partial image is the rows done so far.
/// - Multi-scan (progressive) files are absorbed into libjpeg's coefficient buffer as bytes arrive
///   (buffered-image mode); a partial image is one output pass over that buffer as of the last complete scan.
/// - The final image is decoded exactly as the JPEG coder's TurboJPEG call does it (RGBA, accurate integer IDCT,
///   smooth upsampling, block smoothing, the same DCT scale for thumbnails), so the two are equal pixel for pixel.
/// - CMYK and YCCK files are handed back to the coders whole (`needsWholeFile`): they are rare on the web and
///   need the coder's colour conversion.
final class JPEGPushDecoder: PushDecoder {
    /// libjpeg refuses frames wider or taller than this (JPEG_MAX_DIMENSION).
    static let maximumDimension = 65_500

    private enum Stage {
        case header
        case rows(PixelCanvas)
        case scans
        case ended
    }

    private let decoder: OpaquePointer
    private let options: DecodeOptions
    private var stage = Stage.header
    private var frameSize = PixelSize(width: 0, height: 0)
    private(set) var outputPixelCount = 0
    private var orientation = Orientation.up
    private var rowsDone = 0
    private var completeScans = 0
    private var finalPixels: PixelBuffer?

    init(options: DecodeOptions) throws {
        guard let decoder = wi_jpeg_create() else {
            throw ImageError(.imageTooLarge, "JPEG: libjpeg could not allocate a decoder")
        }
        self.decoder = decoder
        self.options = options
    }

    deinit { wi_jpeg_destroy(decoder) }

    var isComplete: Bool {
        if case .ended = stage { return true }
        return false
    }

    var progress: Int {
        switch stage {
        case .header: 0
        case .rows: rowsDone
        case .scans: completeScans
        case .ended: Int.max
        }
    }

    func consume(_ chunk: UnsafeRawBufferPointer, received: Data) throws -> PushOutcome {
        if case .ended = stage { return .decoding }  // bytes after the end-of-image marker are ignored
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .decoding }
        guard wi_jpeg_append(decoder, base, chunk.count) == 0 else {
            throw ImageError(.imageTooLarge, "JPEG: out of memory buffering the input")
        }
        if case .header = stage {
            var header = wi_jpeg_header()
            switch wi_jpeg_read_header(decoder, &header) {
            case WI_JPEG_SUSPENDED: return .decoding
            case WI_JPEG_OK: break
            default: throw failure()
            }
            if header.is_cmyk != 0 { return .needsWholeFile }
            try start(header)
        }
        try advance()
        return .decoding
    }

    /// Checks the limits against the header, picks the DCT scale and starts libjpeg.
    private func start(_ header: wi_jpeg_header) throws {
        frameSize = PixelSize(width: Int(header.width), height: Int(header.height))
        try options.limits.check(frameSize)
        guard frameSize.width <= Self.maximumDimension, frameSize.height <= Self.maximumDimension else {
            throw ImageError(.imageTooLarge, "\(frameSize) is beyond libjpeg's \(Self.maximumDimension)-pixel side limit")
        }
        if let exif = header.exif, header.exif_length > 0 {
            orientation = EXIFReader.orientation(in: UnsafeRawBufferPointer(start: exif, count: header.exif_length)) ?? .up
        }
        let target = options.storedTargetSize(for: frameSize, orientation: orientation)
        var width: UInt32 = 0, height: UInt32 = 0
        guard wi_jpeg_start(decoder, UInt32(Self.scaleEighths(for: frameSize, target: target)), &width, &height)
            == WI_JPEG_OK
        else { throw failure() }
        outputPixelCount = Int(width) * Int(height)
        if header.has_multiple_scans != 0 {
            stage = .scans
        } else {
            stage = .rows(try PixelCanvas(width: Int(width), height: Int(height)))
        }
    }

    /// Decodes whatever the buffered bytes allow.
    private func advance() throws {
        switch stage {
        case .rows(let canvas):
            var rows: UInt32 = 0
            let status = wi_jpeg_read_rows(decoder, canvas.baseAddress, canvas.bytesPerRow, &rows)
            rowsDone = Int(rows)
            if status == WI_JPEG_ERROR { throw failure() }
            try checkWarnings()
            if status == WI_JPEG_OK {
                finalPixels = try canvas.freeze()
                stage = .ended
            }
        case .scans:
            let status = wi_jpeg_consume(decoder)
            completeScans = Int(wi_jpeg_completed_scans(decoder))
            if status == WI_JPEG_ERROR { throw failure() }
            try checkWarnings()
            if status == WI_JPEG_OK {
                finalPixels = try render(scan: Int(wi_jpeg_input_scan(decoder)), smoothing: true)
                guard wi_jpeg_finish(decoder) == WI_JPEG_OK else { throw failure() }
                stage = .ended
            }
        case .header, .ended:
            break
        }
    }

    func partialPixels() -> PartialPixels? {
        let pixels: PixelBuffer?
        switch stage {
        case .rows(let canvas):
            pixels = rowsDone > 0 ? try? canvas.snapshot(validRows: rowsDone) : nil
        case .scans:
            // Without block smoothing: it halves the cost of an output pass (12 MP: ~30 ms instead of ~65 ms here)
            // and only softens the blocks of the first scans. The final pass smooths, as TurboJPEG does.
            pixels = completeScans > 0 ? try? render(scan: completeScans, smoothing: false) : nil
        case .ended:
            pixels = finalPixels
        case .header:
            pixels = nil
        }
        guard let pixels else { return nil }
        let missingRows = if case .rows = stage { rowsDone < pixels.height } else { false }
        return PartialPixels(pixels: pixels, sourceSize: frameSize, orientation: orientation, hasAlpha: missingRows)
    }

    func finalImage(received: Data) throws -> Image {
        guard let finalPixels else { throw ImageError(.badImageData, "JPEG: the data ends before the end-of-image marker") }
        let finished = try options.finish(finalPixels, sourceSize: frameSize, orientation: orientation)
        return Image(frames: [ImageFrame(pixels: finished.pixels)], format: .jpeg, scale: options.resolvedScale,
                     orientation: orientation, flags: finished.reduced ? .thumbnail : [])
    }

    /// One output pass over the coefficient buffer as of `scan`, straight into a new pixel buffer.
    private func render(scan: Int, smoothing: Bool) throws -> PixelBuffer {
        var width: UInt32 = 0, height: UInt32 = 0
        wi_jpeg_output_size(decoder, &width, &height)
        return try PixelBuffer(width: Int(width), height: Int(height)) { output in
            let status = wi_jpeg_render(decoder, Int32(scan), smoothing ? 1 : 0,
                                        output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                        Int(width) * PixelBuffer.bytesPerPixel)
            switch status {
            case WI_JPEG_OK: break
            case WI_JPEG_SUSPENDED: throw ImageError(.badImageData, "JPEG: the scan is not complete yet")
            default: throw failure()
            }
        }
    }

    /// The JPEG coder's damage policy: a warning other than a few harmless ones means guessed pixels, so the
    /// decode fails rather than show (and cache) a half-grey image.
    private func checkWarnings() throws { try Self.checkWarnings(decoder) }

    private func failure() -> ImageError { Self.failure(of: decoder) }

    /// The damage policy above, for any libjpeg decoder of this module.
    static func checkWarnings(_ decoder: OpaquePointer) throws {
        guard wi_jpeg_first_warning_is_harmless(decoder) == 0 else { return }
        throw ImageError(.badImageData, "JPEG: \(String(cString: wi_jpeg_warning_message(decoder)))")
    }

    /// libjpeg's error as a typed one: unsupported, too large, or bad data.
    static func failure(of decoder: OpaquePointer) -> ImageError {
        let message = "JPEG: \(String(cString: wi_jpeg_message(decoder)))"
        switch wi_jpeg_error_kind_of(decoder) {
        case WI_JPEG_KIND_UNSUPPORTED: return ImageError(.unsupportedFormat, message)
        case WI_JPEG_KIND_TOO_LARGE: return ImageError(.imageTooLarge, message)
        default: return ImageError(.badImageData, message)
        }
    }

    /// The DCT scale, in eighths, for a thumbnail or scale-down target: the JPEG coder's own choice, so that the
    /// final image equals its one-shot decode. Full size without a target.
    static func scaleEighths(for source: PixelSize, target: PixelSize?) -> Int {
        let factor = JPEGScaling.factor(for: source, target: target)
        return factor.numerator * 8 / factor.denominator
    }
}
