import CSpng
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one libspng context (a decoder or an encoder) for the length of one call, and turns libspng's status
/// codes into `ImageError`s. Never shared between tasks: each decode or encode makes its own.
final class SpngContext {
    /// The largest ancillary chunk libspng may hold in memory after inflating it (iCCP, zTXt, iTXt, eXIf …).
    /// Without it, a 40 KB zTXt chunk inflating to gigabytes would be allocated in full.
    static let maxChunkBytes = 16 << 20
    /// The most memory all stored ancillary chunks of one file may take together.
    static let maxChunkCacheBytes = 64 << 20

    let handle: OpaquePointer

    private init(flags: Int32) throws {
        guard let handle = spng_ctx_new(flags) else {
            throw ImageError(.imageTooLarge, "libspng could not allocate a context")
        }
        self.handle = handle
    }

    deinit { spng_ctx_free(handle) }

    /// A decoder reading `bytes`, which must stay valid (and unmoved) as long as the context is used.
    ///
    /// libspng's own size limit is set from `limits` (no side may exceed the pixel limit, which also keeps it
    /// from allocating row buffers for absurd widths) and its chunk limits from ``maxChunkBytes``.
    static func decoder(reading bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws -> SpngContext {
        let context = try SpngContext(flags: 0)
        // PNG sides are at most 2^31 - 1; libspng rejects larger limits.
        let side = UInt32(min(max(limits.maxPixels, 1), Int(Int32.max)))
        try context.check(spng_set_image_limits(context.handle, side, side), "setting the size limit")
        try context.check(spng_set_chunk_limits(context.handle, maxChunkBytes, maxChunkCacheBytes),
                          "setting the chunk limits")
        try context.check(spng_set_png_buffer(context.handle, bytes.baseAddress, bytes.count), "reading the data")
        return context
    }

    /// An encoder writing into a buffer libspng grows itself (see ``takeEncodedBytes()``).
    static func encoder() throws -> SpngContext {
        let context = try SpngContext(flags: Int32(SPNG_CTX_ENCODER.rawValue))
        try context.check(spng_set_option(context.handle, SPNG_ENCODE_TO_BUFFER, 1), "preparing the encoder")
        return context
    }

    /// Throws the `ImageError` for a libspng status other than success.
    func check(_ status: Int32, _ action: @autoclosure () -> String) throws {
        guard status != 0 else { return }
        throw Self.error(for: status, action: action())
    }

    /// The error for a libspng failure `status` during `action`.
    static func error(for status: Int32, action: String) -> ImageError {
        let reason = String(cString: spng_strerror(status))
        switch status {
        case SPNG_EUSER_WIDTH.rawValue, SPNG_EUSER_HEIGHT.rawValue:
            return ImageError(.imageTooLarge, "PNG: the header declares a side over the pixel limit (\(reason))")
        case SPNG_EMEM.rawValue:
            return ImageError(.imageTooLarge, "PNG: out of memory while \(action)")
        case SPNG_ECHUNK_LIMITS.rawValue:
            return ImageError(.imageTooLarge, "PNG: a metadata chunk is over the \(maxChunkBytes >> 20) MB limit")
        default:
            return ImageError(.badImageData, "PNG: \(reason) while \(action)")
        }
    }

    /// The IHDR fields; reading them parses every chunk before the first IDAT.
    func header() throws -> spng_ihdr {
        var header = spng_ihdr()
        try check(spng_get_ihdr(handle, &header), "reading the header")
        return header
    }

    /// Whether the file has a tRNS chunk (a colour key or palette alphas).
    var hasTransparencyChunk: Bool {
        var transparency = spng_trns()
        return spng_get_trns(handle, &transparency) == 0
    }

    /// The orientation from the eXIf chunk, if any. Asking reads the chunks after the image data up to IEND, so a
    /// file cut after its pixels throws here.
    func exifOrientation() throws -> Orientation? {
        var exif = spng_exif()
        let status = spng_get_exif(handle, &exif)
        if status == SPNG_ECHUNKAVAIL.rawValue { return nil }
        try check(status, "reading the chunks after the image data")
        guard let data = exif.data, exif.length > 0 else { return nil }
        return EXIFReader.orientation(in: UnsafeRawBufferPointer(start: data, count: exif.length))
    }

    /// The encoded file after a finalising encode, copied out of libspng's buffer (which is then freed).
    func takeEncodedBytes() throws -> [UInt8] {
        var length = 0
        var status: Int32 = 0
        guard let buffer = spng_get_png_buffer(handle, &length, &status) else {
            throw Self.error(for: status == 0 ? SPNG_EINTERNAL.rawValue : status, action: "collecting the output")
        }
        defer { free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
