import WebImage

/// Sharpening (imgproxy's `sharpen:SIGMA`): each pixel pushed away from its Gaussian-blurred surroundings, by the
/// classic unsharp mask `sharp = original + (original − blurred)`, on the colour channels; alpha is kept.
struct UnsharpMask {
    /// The blur's standard deviation in pixels: the size of the details that are sharpened.
    var sigma: Double

    func transform(_ image: Image) throws -> Image {
        let blur = ImageTransformers.Blur(radius: sigma)
        return try image.mappingFrames(deep: { pixels in
            let soft = try blur.transform(Image(frames: [ImageFrame(deep: pixels)], flags: .hasAlpha)).frames[0]
            guard let blurred = soft.deepPixels else { return pixels }
            return try DeepPixelBuffer(width: pixels.width, height: pixels.height,
                                       significantBits: pixels.significantBits) { output in
                pixels.withUnsafeSamples { original in
                    blurred.withUnsafeSamples { Self.sharpen(original, from: $0, into: output) }
                }
            }
        }) { pixels in
            let blurred = try blur.transform(Image(pixels: pixels, hasAlpha: true)).pixels
            return try pixels.withUnsafeBytes { original in
                try blurred.withUnsafeBytes { soft in
                    try PixelBuffer(width: pixels.width, height: pixels.height) { output in
                        Self.sharpen(original.bindMemory(to: UInt8.self), from: soft.bindMemory(to: UInt8.self),
                                     into: output.bindMemory(to: UInt8.self))
                    }
                }
            }
        }
    }

    /// Writes `original` pushed away from `blurred` (RGBA samples of one size), alpha kept, into `destination`.
    static func sharpen<Sample: FixedWidthInteger & UnsignedInteger>(
        _ original: UnsafeBufferPointer<Sample>, from blurred: UnsafeBufferPointer<Sample>,
        into destination: UnsafeMutableBufferPointer<Sample>
    ) {
        for index in 0..<original.count {
            destination[index] = index % 4 == 3
                ? original[index] : Sample(clamping: 2 * Int(original[index]) - Int(blurred[index]))
        }
    }
}
