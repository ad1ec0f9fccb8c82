import CSpng
import Foundation

/// Writes 8-bit PNG files with libspng: RGBA, or RGB when every pixel is opaque (a quarter fewer bytes to
/// compress); and 16-bit ones for deep bitmaps, as gray (with alpha when needed) when every pixel is gray.
/// Lossless: decoding the result gives back exactly the same pixels.
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

    /// The 16-bit PNG file of `pixels`: gray when `allowsGray` and red, green and blue are equal everywhere (a
    /// gray source stays gray; an RGB profile forbids it, PNG allows one only on RGB images), alpha only when some
    /// pixel is not opaque. Rows go to libspng one at a time.
    static func encodedBytes(deep pixels: DeepPixelBuffer, allowsGray: Bool) throws -> [UInt8] {
        guard pixels.width <= Int(Int32.max), pixels.height <= Int(Int32.max) else {
            throw ImageError(.imageTooLarge, "PNG: \(pixels.size) is larger than a PNG can be")
        }
        let samples = pixels.samples
        let alpha = pixels.containsTransparency
        var gray = allowsGray
        for index in stride(from: 0, to: gray ? samples.count : 0, by: 4)
        where samples[index] != samples[index + 1] || samples[index] != samples[index + 2] {
            gray = false
            break
        }
        let colorType: spng_color_type = switch (gray, alpha) {
        case (true, false): SPNG_COLOR_TYPE_GRAYSCALE
        case (true, true): SPNG_COLOR_TYPE_GRAYSCALE_ALPHA
        case (false, false): SPNG_COLOR_TYPE_TRUECOLOR
        case (false, true): SPNG_COLOR_TYPE_TRUECOLOR_ALPHA
        }
        // Which of R, G, B, A each written sample is.
        let channels: [Int] = switch (gray, alpha) {
        case (true, false): [0]
        case (true, true): [0, 3]
        case (false, false): [0, 1, 2]
        case (false, true): [0, 1, 2, 3]
        }
        let context = try SpngContext.encoder()
        var header = spng_ihdr(width: UInt32(pixels.width), height: UInt32(pixels.height), bit_depth: 16,
                               color_type: UInt8(colorType.rawValue), compression_method: 0, filter_method: 0,
                               interlace_method: 0)
        try context.check(spng_set_ihdr(context.handle, &header), "writing the header")
        let flags = Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)
        try context.check(spng_encode_image(context.handle, nil, 0, Int32(SPNG_FMT_PNG.rawValue), flags),
                          "starting the encoder")
        // libspng takes SPNG_FMT_PNG's 16-bit samples in the machine's byte order and swaps them itself.
        var row = [UInt16](repeating: 0, count: pixels.width * channels.count)
        try row.withUnsafeMutableBufferPointer { row in
            for y in 0..<pixels.height {
                var out = 0
                for x in 0..<pixels.width {
                    let pixel = (y * pixels.width + x) * 4
                    for channel in channels {
                        row[out] = samples[pixel + channel]
                        out += 1
                    }
                }
                let status = spng_encode_row(context.handle, row.baseAddress, row.count * 2)
                if status == SPNG_EOI.rawValue { return }
                try context.check(status, "encoding row \(y)")
            }
            throw ImageError(.badImageData, "PNG: the encoder wanted more rows than the image has")
        }
        return try context.takeEncodedBytes()
    }
}
