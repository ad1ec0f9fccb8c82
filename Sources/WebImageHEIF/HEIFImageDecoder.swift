import CHeif
import WebImage

/// Decodes one image handle (the primary image or an embedded thumbnail) to RGBA8 with straight alpha.
enum HEIFImageDecoder {
    /// Decodes `handle` after checking its displayed and coded sizes against `limits`. With a `conversion`, a
    /// 10 or 12-bit image is decoded at its own depth and converted from those samples; 8-bit images and
    /// premultiplied ones (whose colour must be made straight first, at 8 bits) take the usual path and are
    /// converted afterwards. The second value says whether `conversion` was applied.
    static func decode(_ handle: OpaquePointer, limits: DecodeLimits,
                       converting conversion: DeepColorConversion? = nil) throws -> (pixels: PixelBuffer, converted: Bool) {
        try checkSizes(of: handle, against: limits)
        if let conversion, decodesDeep(handle) {
            return (try decodeDeep(handle, with: conversion), true)
        }
        let image = try decodedImage(handle, chroma: heif_chroma_interleaved_RGBA, hdrTo8Bit: true)
        defer { heif_image_release(image) }
        let plane = try interleavedPlane(of: image, bytesPerPixel: PixelBuffer.bytesPerPixel)
        let premultiplied = heif_image_is_premultiplied_alpha(image) != 0
        let pixels = try PixelBuffer(width: plane.width, height: plane.height) { output in
            let rowBytes = plane.width * PixelBuffer.bytesPerPixel
            for row in 0..<plane.height {
                let destination = output.baseAddress! + row * rowBytes
                destination.copyMemory(from: plane.base + row * plane.stride, byteCount: rowBytes)
            }
            if premultiplied {
                AlphaPremultiplication.unpremultiply(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), pixels: plane.width * plane.height)
            }
        }
        return (pixels, false)
    }

    /// A deep image as libheif's little-endian 16-bit interleaved samples (holding the image's own bit depth),
    /// widened row by row to full-range RGBA16 and taken to RGBA8 by `conversion`.
    private static func decodeDeep(_ handle: OpaquePointer, with conversion: DeepColorConversion) throws -> PixelBuffer {
        let rows = try DeepRows(handle)
        let width = rows.size.width
        let row16 = UnsafeMutablePointer<UInt16>.allocate(capacity: width * 4)
        defer { row16.deallocate() }
        return try PixelBuffer(width: width, height: rows.size.height) { output in
            for row in 0..<rows.size.height {
                rows.widen(row, into: row16)
                conversion.convert(UnsafeRawPointer(row16), into: output.baseAddress! + row * width * 4, count: width)
            }
        }
    }

    /// A deep image kept deep (``DecodeOptions/keepsHighBitDepth``): its samples widened to full-range RGBA16,
    /// converted in 16 bits by `conversion` (one that keeps the depth) when there is one. Premultiplied images
    /// are refused here: their colour is made straight at 8 bits by the usual path.
    static func decodeKeepingDepth(_ handle: OpaquePointer, limits: DecodeLimits,
                                   converting conversion: DeepColorConversion?) throws -> DeepPixelBuffer {
        try checkSizes(of: handle, against: limits)
        let rows = try DeepRows(handle)
        let size = rows.size
        return try DeepPixelBuffer(width: size.width, height: size.height, significantBits: rows.depth) { output in
            for row in 0..<size.height {
                let destination = output.baseAddress! + row * size.width * 4
                rows.widen(row, into: destination)
                conversion?.convert(UnsafeRawPointer(destination), into: destination, count: size.width)
            }
        }
    }

    /// Checks `handle`'s displayed and coded sizes against `limits` before anything is decoded.
    private static func checkSizes(of handle: OpaquePointer, against limits: DecodeLimits) throws {
        try limits.check(HEIFFile.size(of: handle))
        let coded = HEIFFile.codedSize(of: handle)
        if coded.width > 0, coded.height > 0 { try limits.check(coded) }
    }

    /// Whether `handle` is decoded deep when asked: more than 8 bits and straight alpha.
    static func decodesDeep(_ handle: OpaquePointer) -> Bool {
        heif_image_handle_get_luma_bits_per_pixel(handle) > 8 && heif_image_handle_is_premultiplied_alpha(handle) == 0
    }

    /// libheif's decode of a deep image as little-endian 16-bit interleaved samples, read a row at a time.
    private final class DeepRows {
        let image: OpaquePointer
        let plane: (base: UnsafeRawPointer, stride: Int, width: Int, height: Int)
        let hasAlpha: Bool
        /// Bits a sample, 9 to 16.
        let depth: Int

        init(_ handle: OpaquePointer) throws {
            hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
            let chroma = hasAlpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE
            image = try decodedImage(handle, chroma: chroma, hdrTo8Bit: false)
            do {
                plane = try interleavedPlane(of: image, bytesPerPixel: (hasAlpha ? 4 : 3) * 2)
                depth = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
                guard (9...16).contains(depth) else {
                    throw ImageError(.badImageData, "HEIF: a deep image reports \(depth) bits a sample")
                }
            } catch {
                heif_image_release(image)
                throw error
            }
        }

        deinit { heif_image_release(image) }

        var size: PixelSize { PixelSize(width: plane.width, height: plane.height) }

        /// Row `row` as full-range RGBA16 (1023 becomes 65 535, as a 16-bit PNG of the same samples would hold).
        func widen(_ row: Int, into row16: UnsafeMutablePointer<UInt16>) {
            let maximum = UInt32(1 << depth - 1)
            let channels = hasAlpha ? 4 : 3
            let source = plane.base + row * plane.stride
            for x in 0..<plane.width {
                for channel in 0..<channels {
                    let offset = (x * channels + channel) * 2
                    // Little-endian bytes, whatever the machine's order.
                    let value = UInt32(source.load(fromByteOffset: offset, as: UInt8.self))
                        | UInt32(source.load(fromByteOffset: offset + 1, as: UInt8.self)) << 8
                    row16[x * 4 + channel] = UInt16((min(value, maximum) * 65_535 + maximum / 2) / maximum)
                }
                if !hasAlpha { row16[x * 4 + 3] = .max }
            }
        }
    }

    private static func decodedImage(_ handle: OpaquePointer, chroma: heif_chroma, hdrTo8Bit: Bool) throws -> OpaquePointer {
        guard let options = heif_decoding_options_alloc() else {
            throw ImageError(.imageTooLarge, "HEIF: cannot allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = hdrTo8Bit ? 1 : 0
        var image: OpaquePointer?
        try HEIFError.check(heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options), "decoding the image")
        guard let image else { throw ImageError(.badImageData, "HEIF: libheif returned no image") }
        return image
    }

    private static func interleavedPlane(of image: OpaquePointer, bytesPerPixel: Int) throws
        -> (base: UnsafeRawPointer, stride: Int, width: Int, height: Int)
    {
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * bytesPerPixel
        else {
            throw ImageError(.badImageData, "HEIF: the decoded image has no interleaved plane")
        }
        return (UnsafeRawPointer(plane), Int(stride), width, height)
    }
}
