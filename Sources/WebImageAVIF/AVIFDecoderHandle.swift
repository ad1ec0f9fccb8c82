import CAVIF
import WebImage

/// Owns one libavif decoder reading a file from memory; destroyed with the handle.
///
/// libavif does not copy its input: the bytes given to ``parse(_:sizeLimit:)`` must stay valid for as long as
/// the handle is used (callers keep both inside one `withUnsafeBytes`).
final class AVIFDecoderHandle {
    let decoder: UnsafeMutablePointer<avifDecoder>

    private init(_ decoder: UnsafeMutablePointer<avifDecoder>) {
        self.decoder = decoder
    }

    deinit {
        avifDecoderDestroy(decoder)
    }

    /// A decoder that has parsed the container of `bytes`: box structure, item and track properties, sizes,
    /// frame count and timing, Exif. No AV1 data is decoded. `sizeLimit` (pixels) is handed to libavif, which
    /// then refuses larger images in the header and makes the AV1 decoder refuse larger frames.
    static func parse(_ bytes: UnsafeRawBufferPointer, sizeLimit: Int) throws -> AVIFDecoderHandle {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw ImageError(.badImageData, "AVIF: the data is empty")
        }
        guard let decoder = avifDecoderCreate() else {
            throw ImageError(.imageTooLarge, "AVIF: cannot allocate a decoder")
        }
        let handle = AVIFDecoderHandle(decoder)
        // libavif treats 0 as reserved and never accepts more than its own default.
        decoder.pointee.imageSizeLimit = UInt32(min(max(sizeLimit, 1), Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)))
        // Read leniently, as browsers, libvips and Pillow do: files without `pixi` (libheif 1.11 and older), with
        // an invalid `clap` (never applied here) or an alpha item without `ispe` still show. The size, dimension
        // and frame-count limits above and in the callers stay as they are.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        try AVIFStatus.check(
            avifDecoderSetIOMemory(decoder, base.assumingMemoryBound(to: UInt8.self), bytes.count),
            action: "reading from memory")
        try AVIFStatus.check(avifDecoderParse(decoder), diagnostics: decoder.pointee.diag, action: "parsing the header")
        guard decoder.pointee.image != nil, decoder.pointee.imageCount > 0 else {
            throw ImageError(.badImageData, "AVIF: the file holds no image")
        }
        return handle
    }

    /// The image as the container describes it (after parsing) or as last decoded (after a frame).
    var image: avifImage { decoder.pointee.image.pointee }

    /// Frames in the sequence; 1 for a still image.
    var imageCount: Int { Int(decoder.pointee.imageCount) }

    /// Whether the container declares an alpha plane (known from the header, before any decoding).
    var alphaPresent: Bool { decoder.pointee.alphaPresent != 0 }

    /// The display time of frame `index`, from the sample table, without decoding it.
    func duration(ofFrame index: Int) throws -> Double {
        var timing = avifImageTiming()
        try AVIFStatus.check(avifDecoderNthImageTiming(decoder, UInt32(index), &timing),
                             diagnostics: decoder.pointee.diag, action: "reading the timing of frame \(index + 1)")
        return timing.duration
    }

    /// Decodes the next frame (the first one after parsing) into ``image``.
    func decodeNextFrame() throws {
        let index = Int(decoder.pointee.imageIndex) + 1
        try AVIFStatus.check(avifDecoderNextImage(decoder), diagnostics: decoder.pointee.diag,
                             action: "decoding frame \(index + 1)")
    }

    /// Decodes frame `index` into ``image`` (libavif starts from the keyframe before it).
    func decodeFrame(at index: Int) throws {
        try AVIFStatus.check(avifDecoderNthImage(decoder, UInt32(index)), diagnostics: decoder.pointee.diag,
                             action: "decoding frame \(index + 1)")
    }
}
