import WebImage

/// Flattens transparency onto a colour (imgproxy's `background`): every pixel composited over `color`, so the
/// result is opaque in any format.
struct BackgroundFlatten {
    /// The colour behind the image; its own alpha is ignored (the background is opaque).
    var color: RGBA

    func transform(_ image: Image) throws -> Image {
        let background = [Int(color.r), Int(color.g), Int(color.b)]
        var result = try image.mappingFrames(deep: { pixels in
            try DeepPixelBuffer(width: pixels.width, height: pixels.height,
                                significantBits: pixels.significantBits) { output in
                pixels.withUnsafeSamples {
                    Self.flatten($0, into: output, over: background.map { $0 * 257 })
                }
            }
        }) { pixels in
            try pixels.withUnsafeBytes { source in
                try PixelBuffer(width: pixels.width, height: pixels.height) { output in
                    Self.flatten(source.bindMemory(to: UInt8.self), into: output.bindMemory(to: UInt8.self),
                                 over: background)
                }
            }
        }
        result.flags.remove(.hasAlpha)
        return result
    }

    /// Writes the straight-alpha RGBA `source` over the opaque `background` (red, green, blue in the samples'
    /// scale) into `destination`.
    static func flatten<Sample: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafeBufferPointer<Sample>, into destination: UnsafeMutableBufferPointer<Sample>,
        over background: [Int]
    ) {
        let full = Int(Sample.max)
        for pixel in stride(from: 0, to: source.count, by: 4) {
            let alpha = Int(source[pixel + 3])
            for channel in 0..<3 {
                let mixed = Int(source[pixel + channel]) * alpha + background[channel] * (full - alpha)
                destination[pixel + channel] = Sample((mixed + (full - 1) / 2) / full)
            }
            destination[pixel + 3] = Sample.max
        }
    }
}
