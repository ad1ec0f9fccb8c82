import WebImage

/// Sharpening (imgproxy's `sharpen:SIGMA`): each pixel pushed away from its Gaussian-blurred surroundings, by the
/// classic unsharp mask `sharp = original + (original − blurred)`, on the colour channels; alpha is kept.
struct UnsharpMask: ImageTransformer {
    /// The blur's standard deviation in pixels: the size of the details that are sharpened.
    var sigma: Double

    var key: String { "UnsharpMask(\(sigma))" }

    func transform(_ image: Image) throws -> Image {
        let blur = ImageTransformers.Blur(radius: sigma)
        return try ImageTransformers.Filter(name: key) { pixels in
            let blurred = try blur.transform(Image(pixels: pixels, hasAlpha: true)).pixels
            return try PixelBuffer(width: pixels.width, height: pixels.height) { destination in
                pixels.withUnsafeBytes { original in
                    blurred.withUnsafeBytes { soft in
                        for index in 0..<original.count {
                            if index % 4 == 3 {
                                destination[index] = original[index]
                            } else {
                                let value = 2 * Int(original[index]) - Int(soft[index])
                                destination[index] = UInt8(clamping: value)
                            }
                        }
                    }
                }
            }
        }.transform(image)
    }
}
