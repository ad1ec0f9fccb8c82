import CWebP
import Foundation

/// Still WebP bytes as they arrive, through libwebp's incremental decoder (WebPIDecode / WebPIAppend), writing
/// rows straight into a canvas with the same configuration as the WebP coder (RGBA, libwebp's scaler for
/// thumbnails), so the final image equals its one-shot decode.
///
/// - A partial image is the rows decoded so far.
/// - WebP keeps its EXIF chunk after the image data, so partial images are never turned; the final one is.
/// - Animations, and files with EXIF when a thumbnail or scale-down is asked for (the scaled size depends on an
///   orientation that arrives last), are handed back to the coders whole (`needsWholeFile`).
/// - The file must be whole, up to the size its RIFF header declares, as the coder requires.
final class WebPPushDecoder: PushDecoder {
    private let options: DecodeOptions
    /// libwebp keeps pointers to the configuration's output and options, so it lives at a fixed address.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private var decoder: OpaquePointer?
    private var canvas: PixelCanvas?
    private var storedSize = PixelSize(width: 0, height: 0)
    private var hasAlpha = false
    private var rowsDone = 0
    private var imageDecoded = false
    private var finalPixels: PixelBuffer?

    init(options: DecodeOptions) throws {
        self.options = options
        config = .allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        guard WebPInitDecoderConfig(config) != 0 else {
            config.deallocate()
            throw ImageError(.unsupportedFormat, "WebP: the libwebp decoder library does not match its headers")
        }
    }

    deinit {
        if let decoder { WebPIDelete(decoder) }
        WebPFreeDecBuffer(&config.pointee.output)  // frees nothing of ours: the memory is external
        config.deallocate()
    }

    var isComplete: Bool { finalPixels != nil }

    var outputPixelCount: Int { canvas.map { $0.width * $0.height } ?? 0 }

    var progress: Int { finalPixels != nil ? Int.max : rowsDone }

    func consume(_ chunk: UnsafeRawBufferPointer, received: Data) throws -> PushOutcome {
        guard finalPixels == nil else { return .decoding }
        if decoder == nil {
            guard let outcome = try startIfHeaderIsIn(received) else { return .decoding }
            if case .needsWholeFile = outcome { return outcome }
            // The first append gives everything received so far, this chunk included.
            try received.withUnsafeBytes { try append($0) }
        } else if !imageDecoded {
            try append(chunk)
        }
        if imageDecoded, let canvas, received.count >= Self.declaredLength(received) ?? Int.max {
            if let decoder { WebPIDelete(decoder) }
            decoder = nil
            finalPixels = try canvas.freeze()
        }
        return .decoding
    }

    /// Reads the features once enough bytes are in; `nil` while they are not.
    private func startIfHeaderIsIn(_ received: Data) throws -> PushOutcome? {
        var features = WebPBitstreamFeatures()
        let status = received.withUnsafeBytes { bytes in
            WebPGetFeatures(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        }
        if status == VP8_STATUS_NOT_ENOUGH_DATA { return nil }
        guard status == VP8_STATUS_OK else { throw WebPStatus.error(status, action: "reading the header") }
        if features.has_animation != 0 { return .needsWholeFile }
        // The scaled size depends on the orientation (a quarter turn swaps the axes), which comes last.
        let wantsSmaller = options.thumbnailPixelSize != nil || options.scaleDownLimitBytes != nil
        if wantsSmaller, options.applyOrientation, Self.declaresEXIF(received) { return .needsWholeFile }

        storedSize = PixelSize(width: Int(features.width), height: Int(features.height))
        hasAlpha = features.has_alpha != 0
        try options.limits.check(storedSize)
        let target = options.storedTargetSize(for: storedSize, orientation: .up) ?? storedSize
        let canvas = try PixelCanvas(width: target.width, height: target.height)
        self.canvas = canvas
        if target != storedSize {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(target.width)
            config.pointee.options.scaled_height = Int32(target.height)
        }
        config.pointee.output.colorspace = MODE_RGBA
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA.rgba = canvas.baseAddress
        config.pointee.output.u.RGBA.stride = Int32(canvas.bytesPerRow)
        config.pointee.output.u.RGBA.size = canvas.byteCount
        guard let decoder = WebPIDecode(nil, 0, config) else {
            throw ImageError(.imageTooLarge, "WebP: libwebp could not make an incremental decoder")
        }
        self.decoder = decoder
        return .decoding
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard let decoder, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let status = WebPIAppend(decoder, base, bytes.count)
        var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        if WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride) != nil { rowsDone = Int(lastRow) }
        switch status {
        case VP8_STATUS_OK: imageDecoded = true
        case VP8_STATUS_SUSPENDED: break
        default: throw WebPStatus.error(status, action: "decoding the image")
        }
    }

    func partialPixels() -> PartialPixels? {
        let pixels: PixelBuffer?
        if let finalPixels {
            pixels = finalPixels
        } else if let canvas, rowsDone > 0 {
            pixels = try? canvas.snapshot(validRows: rowsDone)
        } else {
            pixels = nil
        }
        guard let pixels else { return nil }
        return PartialPixels(pixels: pixels, sourceSize: storedSize, orientation: .up,
                             hasAlpha: hasAlpha || rowsDone < pixels.height)
    }

    func finalImage(received: Data) throws -> Image {
        guard let finalPixels else { throw ImageError(.badImageData, "WebP: the data ends before the image does") }
        let orientation = try received.withUnsafeBytes { bytes in
            WebPStillDecoder.isExtendedFormat(bytes) ? try WebPContainer(bytes).exifOrientation ?? .up : .up
        }
        let finished = try options.finish(finalPixels, sourceSize: storedSize, orientation: orientation)
        var flags: Image.Flags = hasAlpha ? .hasAlpha : []
        if finished.reduced { flags.insert(.thumbnail) }
        return Image(frames: [ImageFrame(pixels: finished.pixels)], loopCount: 1, format: .webp,
                     scale: options.resolvedScale, orientation: orientation, flags: flags)
    }

    /// The file length the RIFF header declares, once its first 8 bytes are in.
    static func declaredLength(_ data: Data) -> Int? {
        guard data.count >= 8 else { return nil }
        let start = data.startIndex
        let size = (4..<8).reduce(0) { $0 | Int(data[start + $1]) << (8 * ($1 - 4)) }
        return size + 8
    }

    /// Whether the file is in the extended format with the VP8X flag that announces an EXIF chunk.
    static func declaresEXIF(_ data: Data) -> Bool {
        guard data.count >= 21 else { return false }
        let start = data.startIndex
        let isExtended = data[start + 12] == 0x56 && data[start + 13] == 0x50 && data[start + 14] == 0x38
            && data[start + 15] == 0x58
        return isExtended && data[start + 20] & 0x08 != 0
    }
}
