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
            let samples = Self.sharpened(pixels.samples, blurred.samples)
            return try DeepPixelBuffer(width: pixels.width, height: pixels.height,
                                       significantBits: pixels.significantBits, samples: samples)
        }) { pixels in
            let blurred = try blur.transform(Image(pixels: pixels, hasAlpha: true)).pixels
            return try PixelBuffer(width: pixels.width, height: pixels.height, rgba: Self.sharpened(pixels.bytes,
                                                                                                  blurred.bytes))
        }
    }

    /// `original` pushed away from `blurred` (RGBA samples of one size), alpha kept.
    static func sharpened<Sample: FixedWidthInteger & UnsignedInteger>(_ original: [Sample], _ blurred: [Sample])
        -> [Sample]
    {
        var result = original
        for index in original.indices where index % 4 != 3 {
            result[index] = Sample(clamping: 2 * Int(original[index]) - Int(blurred[index]))
        }
        return result
    }
}
