import CSpng
import Foundation

/// Writes 8-bit PNG files with libspng: RGBA, or RGB when every pixel is opaque (a quarter fewer bytes to
/// compress). Lossless: decoding the result gives back exactly the same pixels.
enum PNGEncoder {
    static func encode(_ pixels: PixelBuffer) throws -> Data {
        Data(try encodedBytes(pixels))
    }

    /// The PNG file of `pixels`, with an alpha channel when `withAlpha` says so (when `nil`, when some pixel is
    /// not opaque). Without one, alpha is dropped: callers pass `false` only for opaque pixels.
    static func encodedBytes(_ pixels: PixelBuffer, withAlpha: Bool? = nil) throws -> [UInt8] {
        guard pixels.width <= Int(Int32.max), pixels.height <= Int(Int32.max) else {
            throw ImageError(.imageTooLarge, "PNG: \(pixels.size) is larger than a PNG can be")
        }
        let opaque = !(withAlpha ?? pixels.containsTransparency)
        let context = try SpngContext.encoder()
        var header = spng_ihdr(
            width: UInt32(pixels.width), height: UInt32(pixels.height), bit_depth: 8,
            color_type: UInt8(opaque ? SPNG_COLOR_TYPE_TRUECOLOR.rawValue : SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue),
            compression_method: 0, filter_method: 0, interlace_method: 0)
        try context.check(spng_set_ihdr(context.handle, &header), "writing the header")
        let format = Int32(SPNG_FMT_PNG.rawValue)
        if opaque {
            try encodeDroppingAlpha(pixels, context: context, format: format)
        } else {
            try pixels.withUnsafeBytes { rgba in
                try context.check(
                    spng_encode_image(context.handle, rgba.baseAddress, rgba.count, format,
                                      Int32(SPNG_ENCODE_FINALIZE.rawValue)),
                    "encoding the image")
            }
        }
        return try context.takeEncodedBytes()
    }

    /// Feeds the rows one at a time as RGB, so no second full-size buffer is needed.
    private static func encodeDroppingAlpha(_ pixels: PixelBuffer, context: SpngContext, format: Int32) throws {
        let flags = Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)
        try context.check(spng_encode_image(context.handle, nil, 0, format, flags), "starting the encoder")
        var row = [UInt8](repeating: 0, count: pixels.width * 3)
        try pixels.withUnsafeBytes { rgba in
            try row.withUnsafeMutableBufferPointer { row in
                guard let rowBase = row.baseAddress else { return }
                for y in 0..<pixels.height {
                    let source = y * pixels.bytesPerRow
                    for x in 0..<pixels.width {
                        rowBase[x * 3] = rgba[source + x * 4]
                        rowBase[x * 3 + 1] = rgba[source + x * 4 + 1]
                        rowBase[x * 3 + 2] = rgba[source + x * 4 + 2]
                    }
                    let status = spng_encode_row(context.handle, rowBase, row.count)
                    if status == SPNG_EOI.rawValue { return }
                    try context.check(status, "encoding row \(y)")
                }
                throw ImageError(.badImageData, "PNG: the encoder wanted more rows than the image has")
            }
        }
    }
}
