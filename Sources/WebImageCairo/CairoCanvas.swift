import CCairo
import WebImage

/// Draws with cairo straight into a new ``PixelBuffer``'s memory, then turns cairo's pixels into the library's.
///
/// cairo's ARGB32 is one native-endian 32-bit word per pixel with premultiplied alpha; its stride for ARGB32 is
/// always `width * 4`, the same as a ``PixelBuffer`` row, so the surface can borrow the buffer and be converted
/// in place: no second bitmap of the image's size is ever allocated.
package enum CairoCanvas {
    /// cairo refuses image surfaces wider or taller than this (pixman's 15-bit coordinates).
    package static let maxSide = 32_767

    /// Makes a `size` bitmap filled with `background` (a premultiplied ARGB word, `0xAARRGGBB`; transparent by
    /// default), lets `draw` paint on it, and returns it as straight RGBA. The caller has already checked `size`
    /// against the limits; `format` names the format in error messages.
    package static func render(
        _ size: PixelSize, format: String, background: UInt32 = 0, draw: (OpaquePointer) throws -> Void
    ) throws
        -> PixelBuffer
    {
        guard size.width <= maxSide, size.height <= maxSide else {
            throw ImageError(.imageTooLarge, "\(format): cairo cannot draw \(size), it allows at most \(maxSide) a side")
        }
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(size.width)))
        guard stride == size.width * PixelBuffer.bytesPerPixel else {
            throw ImageError(.unsupportedFormat, "\(format): cairo wants \(stride)-byte rows for \(size.width) pixels")
        }
        return try PixelBuffer(width: size.width, height: size.height) { memory in
            guard let base = memory.baseAddress else { return }
            memory.initializeMemory(as: UInt32.self, repeating: background)  // the buffer may be recycled
            let surface = cairo_image_surface_create_for_data(
                base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                Int32(size.width), Int32(size.height), Int32(stride))
            defer { cairo_surface_destroy(surface) }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let context = cairo_create(surface) else {
                throw ImageError(.imageTooLarge, "\(format): cairo could not make a \(size) surface")
            }
            defer { cairo_destroy(context) }
            try draw(context)
            cairo_surface_flush(surface)
            straighten(memory)
        }
    }

    /// Premultiplied native-endian ARGB words → straight R, G, B, A bytes, in place. Rounds the way cairo's own
    /// PNG writer does, so a render matches a cairo-written PNG byte for byte.
    package static func straighten(_ memory: UnsafeMutableRawBufferPointer) {
        let words = memory.bindMemory(to: UInt32.self)
        for index in words.indices {
            let word = words[index]
            let alpha = word >> 24
            var red = (word >> 16) & 0xFF, green = (word >> 8) & 0xFF, blue = word & 0xFF
            if alpha == 0 {
                red = 0; green = 0; blue = 0
            } else if alpha != 255 {
                // min(): a colour above its alpha is not valid premultiplied data, but must not spill over.
                red = min(255, (red * 255 + alpha / 2) / alpha)
                green = min(255, (green * 255 + alpha / 2) / alpha)
                blue = min(255, (blue * 255 + alpha / 2) / alpha)
            }
            // Bytes in memory order R, G, B, A whatever the machine's endianness.
            words[index] = (red | green << 8 | blue << 16 | alpha << 24).littleEndian
        }
    }
}
