import CTurboJPEG
import Foundation

/// The JPEG encoding path behind ``JPEGCoder``: first frame, optional downscale, alpha flattened onto the
/// background colour, then TurboJPEG at 4:2:0 (baseline, or progressive when asked); the image's colour profile
/// and metadata, when it carries them, in application segments.
enum JPEGEncoder {
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        var pixels = image.pixels  // an animation is written as its first frame: JPEG has one
        if let maxPixelSize = options.maxPixelSize {
            guard maxPixelSize > 0 else {
                throw ImageError(.badImageData, "maxPixelSize must be positive, got \(maxPixelSize)")
            }
            if let size = fittedSize(pixels.size, inside: maxPixelSize) {
                pixels = try pixels.resized(to: size, filter: .lanczos3)
            }
        }
        let size = pixels.size
        guard size.width <= JPEGDecoder.maximumDimension, size.height <= JPEGDecoder.maximumDimension else {
            throw ImageError(.imageTooLarge,
                             "JPEG cannot store \(size): sides are limited to \(JPEGDecoder.maximumDimension)")
        }
        if pixels.containsTransparency {
            pixels = try flattened(pixels, onto: options.backgroundColor)
        }
        let encoded = try compress(pixels, quality: turboJPEGQuality(options.clampedQuality),
                                   progressive: options.progressive)
        return try JPEGAppSegments.tagging(encoded, profile: image.colorProfile, metadata: image.metadata)
    }

    /// EncodeOptions quality 0...1 as TurboJPEG's 1...100 (0.9 → 90).
    static func turboJPEGQuality(_ quality: Double) -> Int32 {
        1 + Int32((quality * 99).rounded())
    }

    /// The size that fits `size` inside a `limit` × `limit` square keeping its aspect ratio; `nil` when it
    /// already fits.
    static func fittedSize(_ size: PixelSize, inside limit: Int) -> PixelSize? {
        let longest = max(size.width, size.height)
        guard longest > limit else { return nil }
        let ratio = Double(limit) / Double(longest)
        return PixelSize(width: max(1, Int((Double(size.width) * ratio).rounded())),
                         height: max(1, Int((Double(size.height) * ratio).rounded())))
    }

    /// `pixels` composited over an opaque `background` (its alpha is ignored: JPEG has none).
    static func flattened(_ pixels: PixelBuffer, onto background: RGBA) throws -> PixelBuffer {
        let backgroundR = UInt32(background.r), backgroundG = UInt32(background.g), backgroundB = UInt32(background.b)
        return try pixels.withUnsafeBytes { source in
            try PixelBuffer(width: pixels.width, height: pixels.height) { destination in
                var index = 0
                while index + 3 < source.count {
                    let alpha = UInt32(source[index + 3]), rest = 255 - alpha
                    destination[index] = blend(source[index], alpha, backgroundR, rest)
                    destination[index + 1] = blend(source[index + 1], alpha, backgroundG, rest)
                    destination[index + 2] = blend(source[index + 2], alpha, backgroundB, rest)
                    destination[index + 3] = 255
                    index += 4
                }
            }
        }
    }

    /// (value × alpha + background × (255 − alpha)) / 255, rounded.
    @inline(__always)
    private static func blend(_ value: UInt8, _ alpha: UInt32, _ background: UInt32, _ rest: UInt32) -> UInt8 {
        UInt8(JPEGCMYKConversion.dividing255(UInt32(value) * alpha + background * rest))
    }

    private static func compress(_ pixels: PixelBuffer, quality: Int32, progressive: Bool) throws -> Data {
        try TurboJPEGHandle.withCompressor { handle in
            var output: UnsafeMutablePointer<UInt8>?
            var outputSize: UInt = 0
            let status = pixels.withUnsafeBytes { source in
                tjCompress2(handle.raw, source.baseAddress?.assumingMemoryBound(to: UInt8.self),
                            Int32(pixels.width), Int32(pixels.bytesPerRow), Int32(pixels.height),
                            Int32(TJPF_RGBA.rawValue), &output, &outputSize, Int32(TJSAMP_420.rawValue), quality,
                            progressive ? TJFLAG_PROGRESSIVE : 0)
            }
            guard status == 0, let output else {
                if let output { tjFree(output) }
                throw ImageError(.badImageData, "TurboJPEG could not encode: \(handle.lastFailure.message)")
            }
            return Data(bytesNoCopy: output, count: Int(outputSize), deallocator: .custom { pointer, _ in
                tjFree(pointer.assumingMemoryBound(to: UInt8.self))
            })
        }
    }
}
