import CSpng
import Foundation

/// Writes PNG files with libspng: 8-bit RGBA, or RGB when every pixel is opaque (a quarter fewer bytes to
/// compress), or gray (with alpha when needed) when every pixel is gray and the caller allows it; 16-bit ones the
/// same way for deep bitmaps. Lossless: decoding the result gives back exactly the same pixels.
enum PNGEncoder {
    /// What a file's pixels are written as: gray (R), gray and alpha (R, A), RGB or RGBA.
    private struct Layout {
        let colorType: spng_color_type
        let channels: Int

        init(gray: Bool, alpha: Bool) {
            switch (gray, alpha) {
            case (true, false): (colorType, channels) = (SPNG_COLOR_TYPE_GRAYSCALE, 1)
            case (true, true): (colorType, channels) = (SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 2)
            case (false, false): (colorType, channels) = (SPNG_COLOR_TYPE_TRUECOLOR, 3)
            case (false, true): (colorType, channels) = (SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 4)
            }
        }
    }

    /// A still PNG of `pixels`, gray when `allowsGray` and every pixel is gray (a gray source stays gray, as
    /// imgproxy and ImageIO keep it; an RGB profile forbids it, PNG allows one only on RGB images).
    static func encode(_ pixels: PixelBuffer, allowsGray: Bool = false) throws -> Data {
        Data(try encodedBytes(pixels, allowsGray: allowsGray))
    }

    /// The PNG file of `pixels`, with an alpha channel when `withAlpha` says so (when `nil`, when some pixel is
    /// not opaque). Without one, alpha is dropped: callers pass `false` only for opaque pixels.
    static func encodedBytes(_ pixels: PixelBuffer, withAlpha: Bool? = nil, allowsGray: Bool = false) throws
        -> [UInt8]
    {
        let alpha = withAlpha ?? pixels.containsTransparency
        let gray = allowsGray && pixels.withUnsafeBytes { bytes in Self.isGray(bytes.bindMemory(to: UInt8.self)) }
        let layout = Layout(gray: gray, alpha: alpha)
        let context = try start(size: pixels.size, depth: 8, layout: layout)
        if layout.channels == 4 {
            // RGBA as stored: the whole image in one call.
            try pixels.withUnsafeBytes { rgba in
                try context.check(
                    spng_encode_image(context.handle, rgba.baseAddress, rgba.count, Int32(SPNG_FMT_PNG.rawValue),
                                      Int32(SPNG_ENCODE_FINALIZE.rawValue)),
                    "encoding the image")
            }
        } else {
            try pixels.withUnsafeBytes { bytes in
                try encodeRows(bytes.bindMemory(to: UInt8.self), size: pixels.size, layout: layout, context: context)
            }
        }
        return try context.takeEncodedBytes()
    }

    /// The 16-bit PNG file of `pixels`, gray and alpha as for 8-bit pixels.
    static func encodedBytes(deep pixels: DeepPixelBuffer, allowsGray: Bool) throws -> [UInt8] {
        try pixels.withUnsafeSamples { samples in
            let layout = Layout(gray: allowsGray && isGray(samples), alpha: pixels.containsTransparency)
            let context = try start(size: pixels.size, depth: 16, layout: layout)
            try encodeRows(samples, size: pixels.size, layout: layout, context: context)
            return try context.takeEncodedBytes()
        }
    }

    /// An encoder with the header of a `size` image of `depth`-bit samples in `layout`, ready for its pixels.
    private static func start(size: PixelSize, depth: UInt8, layout: Layout) throws -> SpngContext {
        guard size.width <= Int(Int32.max), size.height <= Int(Int32.max) else {
            throw ImageError(.imageTooLarge, "PNG: \(size) is larger than a PNG can be")
        }
        let context = try SpngContext.encoder()
        var header = spng_ihdr(width: UInt32(size.width), height: UInt32(size.height), bit_depth: depth,
                               color_type: UInt8(layout.colorType.rawValue), compression_method: 0, filter_method: 0,
                               interlace_method: 0)
        try context.check(spng_set_ihdr(context.handle, &header), "writing the header")
        return context
    }

    /// Feeds the RGBA `samples` (8 or 16 bits; libspng takes 16-bit ones in the machine's byte order) one row at a
    /// time as the layout's channels, so no second full-size buffer is needed.
    private static func encodeRows<Sample: FixedWidthInteger>(
        _ samples: UnsafeBufferPointer<Sample>, size: PixelSize, layout: Layout, context: SpngContext
    ) throws {
        let flags = Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)
        try context.check(spng_encode_image(context.handle, nil, 0, Int32(SPNG_FMT_PNG.rawValue), flags),
                          "starting the encoder")
        let channels = layout.channels
        var row = [Sample](repeating: 0, count: size.width * channels)
        try row.withUnsafeMutableBufferPointer { row in
            guard let rowBase = row.baseAddress, let base = samples.baseAddress else { return }
            for y in 0..<size.height {
                let line = base + y * size.width * 4
                // Gray is R; gray and alpha R and A; RGB the first three; RGBA all four.
                switch channels {
                case 1:
                    for x in 0..<size.width { rowBase[x] = line[x * 4] }
                case 2:
                    for x in 0..<size.width {
                        rowBase[x * 2] = line[x * 4]
                        rowBase[x * 2 + 1] = line[x * 4 + 3]
                    }
                case 4:
                    rowBase.update(from: line, count: size.width * 4)
                default:
                    for x in 0..<size.width {
                        rowBase[x * 3] = line[x * 4]
                        rowBase[x * 3 + 1] = line[x * 4 + 1]
                        rowBase[x * 3 + 2] = line[x * 4 + 2]
                    }
                }
                let status = spng_encode_row(context.handle, rowBase, row.count * MemoryLayout<Sample>.size)
                if status == SPNG_EOI.rawValue { return }
                try context.check(status, "encoding row \(y)")
            }
            throw ImageError(.badImageData, "PNG: the encoder wanted more rows than the image has")
        }
    }

    /// Whether red, green and blue are equal in every RGBA pixel of `samples`.
    private static func isGray<Sample: FixedWidthInteger>(_ samples: UnsafeBufferPointer<Sample>) -> Bool {
        var index = 0
        while index < samples.count {
            if samples[index] != samples[index + 1] || samples[index] != samples[index + 2] { return false }
            index += 4
        }
        return true
    }
}
