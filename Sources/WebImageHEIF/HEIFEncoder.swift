import CHeif
import Foundation
import WebImage

/// HEIC through libheif's HEVC encoder (x265, built into Debian's and Homebrew's libheif): one still image, RGBA
/// with straight alpha, at the options' quality (``EncodeOptions/lossless`` asks x265 for lossless).
enum HEIFEncoder {
    /// Encodes `pixels` as HEIC.
    static func encode(_ pixels: PixelBuffer, hasAlpha: Bool, options: EncodeOptions) throws -> Data {
        guard let context = heif_context_alloc() else {
            throw ImageError(.imageTooLarge, "HEIC: cannot allocate a context")
        }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "finding an encoder")
        guard let encoder else { throw ImageError(.unsupportedFormat, "HEIC: libheif has no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        if options.lossless {
            try check(heif_encoder_set_lossless(encoder, 1), "asking for lossless")
        } else {
            try check(heif_encoder_set_lossy_quality(encoder, Int32((options.clampedQuality * 100).rounded())),
                      "setting the quality")
        }
        let image = try makeImage(pixels, hasAlpha: hasAlpha)
        defer { heif_image_release(image) }
        try check(heif_context_encode_image(context, image, encoder, nil, nil), "encoding")
        let output = Output()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, userdata in
            guard let data, let userdata else {
                return heif_error(code: heif_error_Encoding_error, subcode: heif_suberror_Unspecified, message: nil)
            }
            Unmanaged<Output>.fromOpaque(userdata).takeUnretainedValue().bytes
                .append(data.assumingMemoryBound(to: UInt8.self), count: size)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try check(heif_context_write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), "writing")
        return withExtendedLifetime(output) { output.bytes }
    }

    /// Where libheif's writer callback appends the file.
    private final class Output {
        var bytes = Data()
    }

    /// An interleaved RGB or RGBA libheif image holding a copy of `pixels`.
    private static func makeImage(_ pixels: PixelBuffer, hasAlpha: Bool) throws -> OpaquePointer {
        let chroma = hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        var image: OpaquePointer?
        try check(heif_image_create(Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB, chroma, &image),
                  "making an image")
        guard let image else { throw ImageError(.imageTooLarge, "HEIC: cannot allocate an image") }
        do {
            try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(pixels.width),
                                           Int32(pixels.height), 8), "adding a plane")
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
                throw ImageError(.imageTooLarge, "HEIC: cannot allocate the pixels")
            }
            let channels = hasAlpha ? 4 : 3
            pixels.withUnsafeBytes { source in
                for row in 0..<pixels.height {
                    let from = row * pixels.bytesPerRow, to = plane + row * Int(stride)
                    if hasAlpha {
                        to.update(from: source.baseAddress!.advanced(by: from).assumingMemoryBound(to: UInt8.self),
                                  count: pixels.width * 4)
                    } else {
                        for column in 0..<pixels.width {
                            for channel in 0..<channels {
                                to[column * 3 + channel] = source[from + column * 4 + channel]
                            }
                        }
                    }
                }
            }
            return image
        } catch {
            heif_image_release(image)
            throw error
        }
    }

    private static func check(_ error: heif_error, _ action: String) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "code \(error.code.rawValue)"
        throw ImageError(.badImageData, "HEIC: \(action): \(message)")
    }
}
