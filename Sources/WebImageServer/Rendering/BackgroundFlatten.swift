import WebImage

/// Flattens transparency onto a colour (imgproxy's `background`): every pixel composited over `color`, so the
/// result is opaque in any format.
struct BackgroundFlatten: ImageTransformer {
    /// The colour behind the image; its own alpha is ignored (the background is opaque).
    var color: RGBA

    var key: String { "BackgroundFlatten(\(color.hexString))" }

    func transform(_ image: Image) throws -> Image {
        let background = [Int(color.r), Int(color.g), Int(color.b)]
        return try ImageTransformers.Filter(name: key) { pixels in
            try PixelBuffer(width: pixels.width, height: pixels.height) { destination in
                pixels.withUnsafeBytes { source in
                    for pixel in stride(from: 0, to: source.count, by: 4) {
                        let alpha = Int(source[pixel + 3])
                        for channel in 0..<3 {
                            let mixed = Int(source[pixel + channel]) * alpha + background[channel] * (255 - alpha)
                            destination[pixel + channel] = UInt8((mixed + 127) / 255)
                        }
                        destination[pixel + 3] = 255
                    }
                }
            }
        }.transform(image)
    }
}
