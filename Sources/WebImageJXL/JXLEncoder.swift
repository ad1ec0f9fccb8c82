import CJXL
import Foundation
import WebImage

/// Writes JPEG XL through libjxl: 8-bit sRGB (a still with ``ImageFrame/deepPixels`` with its bits, up to 16),
/// alpha when some pixel is not opaque, an animation (millisecond
/// ticks, the image's loop count) when several frames are given, EXIF and XMP boxes when there is metadata.
enum JXLEncoder {
    /// Milliseconds: every library duration is a whole number of them after rounding, and 1000/1 is what
    /// cjxl writes for APNG input.
    static let ticksPerSecond: UInt32 = 1000

    static func encode(_ frames: [ImageFrame], loopCount: Int, colorProfile: ColorProfile? = nil,
                       metadata: ImageMetadata? = nil, options: EncodeOptions, effort: Int) throws -> [UInt8] {
        guard let first = frames.first else { throw ImageError(.badImageData, "JPEG XL: nothing to encode") }
        let size = first.pixels.size
        for (index, frame) in frames.enumerated() where frame.pixels.size != size {
            throw ImageError(.badImageData, "JPEG XL: frame \(index) is \(frame.pixels.size), the canvas \(size)")
        }
        let animated = frames.count > 1
        let deep = animated ? nil : first.deepPixels
        let alpha = deep?.containsTransparency ?? frames.contains { $0.pixels.containsTransparency }
        let handle = try JXLEncoderHandle()
        let animation = animated
            ? JxlAnimationHeader(tps_numerator: ticksPerSecond, tps_denominator: 1,
                                 num_loops: UInt32(clamping: max(0, loopCount)), have_timecodes: JXL_FALSE)
            : nil
        try handle.setImage(size: size, bits: UInt32(deep?.significantBits ?? 8), alpha: alpha,
                            lossless: options.lossless, animation: animation, colorProfile: colorProfile)
        try handle.setQuality(lossless: options.lossless, distance: distance(quality: options.clampedQuality),
                              effort: min(max(effort, 1), 9))
        if let metadata { try handle.addMetadata(metadata) }
        if let deep {
            if alpha {
                try deep.withUnsafeSamples {
                    try handle.addFrame(UnsafeRawBufferPointer($0), channels: 4, sixteenBit: true, ticks: nil)
                }
            } else {
                try deep.withUnsafeSamples(rgb).withUnsafeBytes {
                    try handle.addFrame($0, channels: 3, sixteenBit: true, ticks: nil)
                }
            }
            return try handle.finish()
        }
        for frame in frames {
            let ticks = animated ? UInt32(clamping: Int((frame.duration * Double(ticksPerSecond)).rounded())) : nil
            if alpha {
                try frame.pixels.withUnsafeBytes { try handle.addFrame($0, channels: 4, ticks: ticks) }
            } else {
                // An opaque image is written without an alpha channel: smaller, and its decode says so.
                let samples = frame.pixels.withUnsafeBytes { rgb($0.bindMemory(to: UInt8.self)) }
                try samples.withUnsafeBytes { try handle.addFrame($0, channels: 3, ticks: ticks) }
            }
        }
        return try handle.finish()
    }

    /// The butteraugli distance for a 0…1 quality, on cjxl's own scale (its `-q` maps 100·quality the same
    /// way): 0.9 is distance 1.0, "visually lossless"; 0.3 and below fall off steeply to the maximum of 15.
    static func distance(quality: Double) -> Float {
        let q: Double = quality * 100
        let distance: Double
        if q >= 30 {
            distance = 0.1 + (100 - q) * 0.09
        } else {
            distance = 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        }
        return Float(min(distance, 15))
    }

    /// The colour samples of RGBA `rgba` (8 or 16 bits) without alpha, for opaque images.
    private static func rgb<Sample: FixedWidthInteger>(_ rgba: UnsafeBufferPointer<Sample>) -> [Sample] {
        [Sample](unsafeUninitializedCapacity: rgba.count / 4 * 3) { rgb, count in
            var source = 0, target = 0
            while source < rgba.count {
                rgb[target] = rgba[source]
                rgb[target + 1] = rgba[source + 1]
                rgb[target + 2] = rgba[source + 2]
                source += 4
                target += 3
            }
            count = target
        }
    }
}
