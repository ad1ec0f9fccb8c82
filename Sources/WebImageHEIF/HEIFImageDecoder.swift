import CHeif
import WebImage

/// Decodes one image handle (the primary image or an embedded thumbnail) to RGBA8 with straight alpha.
enum HEIFImageDecoder {
    /// Decodes `handle` after checking its displayed and coded sizes against `limits`.
    static func decode(_ handle: OpaquePointer, limits: DecodeLimits) throws -> PixelBuffer {
        let size = HEIFFile.size(of: handle)
        try limits.check(size)
        let coded = HEIFFile.codedSize(of: handle)
        if coded.width > 0, coded.height > 0 { try limits.check(coded) }

        guard let options = heif_decoding_options_alloc() else {
            throw ImageError(.imageTooLarge, "HEIF: cannot allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1  // 10- and 12-bit images come out as 8-bit RGBA
        var image: OpaquePointer?
        try HEIFError.check(heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options),
                            "decoding the image")
        guard let image else { throw ImageError(.badImageData, "HEIF: libheif returned no image") }
        defer { heif_image_release(image) }

        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * PixelBuffer.bytesPerPixel
        else {
            throw ImageError(.badImageData, "HEIF: the decoded image has no RGBA plane")
        }
        let premultiplied = heif_image_is_premultiplied_alpha(image) != 0
        return try PixelBuffer(width: width, height: height) { output in
            let rowBytes = width * PixelBuffer.bytesPerPixel
            for row in 0..<height {
                let destination = output.baseAddress! + row * rowBytes
                destination.copyMemory(from: plane + row * Int(stride), byteCount: rowBytes)
            }
            if premultiplied {
                AlphaPremultiplication.unpremultiply(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), pixels: width * height)
            }
        }
    }
}
