import WebImage

/// Flattens transparency onto a colour (imgproxy's `background`): every pixel composited over `color`, so the
/// result is opaque in any format.
struct BackgroundFlatten {
    /// The colour behind the image; its own alpha is ignored (the background is opaque).
    var color: RGBA

    func transform(_ image: Image) throws -> Image {
        let background = [Int(color.r), Int(color.g), Int(color.b)]
        var result = try image.mappingFrames(deep: { pixels in
            try DeepPixelBuffer(width: pixels.width, height: pixels.height, significantBits: pixels.significantBits,
                                samples: Self.flattened(pixels.samples, over: background.map { $0 * 257 }))
        }) { pixels in
            try PixelBuffer(width: pixels.width, height: pixels.height,
                            rgba: Self.flattened(pixels.bytes, over: background))
        }
        result.flags.remove(.hasAlpha)
        return result
    }

    /// Straight-alpha RGBA `samples` over the opaque `background` (red, green, blue in the samples' scale).
    static func flattened<Sample: FixedWidthInteger & UnsignedInteger>(_ samples: [Sample], over background: [Int])
        -> [Sample]
    {
        let full = Int(Sample.max)
        var result = samples
        for pixel in stride(from: 0, to: samples.count, by: 4) {
            let alpha = Int(samples[pixel + 3])
            for channel in 0..<3 {
                let mixed = Int(samples[pixel + channel]) * alpha + background[channel] * (full - alpha)
                result[pixel + channel] = Sample((mixed + (full - 1) / 2) / full)
            }
            result[pixel + 3] = Sample.max
        }
        return result
    }
}
