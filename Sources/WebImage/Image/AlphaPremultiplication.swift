/// Conversions between straight and premultiplied alpha for RGBA8 pixels (RGBA16 ones: ``PixelSample``'s).
///
/// Filters and blends work premultiplied (a transparent pixel then contributes nothing, whatever colour it
/// stores, so no dark fringes); ``PixelBuffer`` stores straight alpha. Opaque pixels are the common case and
/// take a fast path in both directions. Public for coders whose libraries hand back premultiplied pixels.
package enum AlphaPremultiplication {
    /// The bytes of an opaque pixel's alpha, as a mask over one native-endian `UInt32` pixel.
    static let alphaMask: UInt32 = RGBA(0, 0, 0, 255).packed

    /// Straight → premultiplied for `pixels` pixels, rounding to nearest. `source` may equal `destination`.
    package static func premultiply(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>,
                            pixels: Int) {
        let sourceWords = UnsafeRawPointer(source), destinationWords = UnsafeMutableRawPointer(destination)
        for pixel in 0..<pixels {
            let word = sourceWords.loadUnaligned(fromByteOffset: pixel &* 4, as: UInt32.self)
            if word & alphaMask == alphaMask {
                destinationWords.storeBytes(of: word, toByteOffset: pixel &* 4, as: UInt32.self)
                continue
            }
            let index = pixel &* 4
            let alpha = UInt32(source[index + 3])
            for channel in 0..<3 {
                destination[index + channel] = multiply(source[index + channel], alpha)
            }
            destination[index + 3] = UInt8(truncatingIfNeeded: alpha)
        }
    }

    /// Premultiplied → straight in place for `pixels` pixels. Colour above its alpha (which ringing filters can
    /// leave) saturates; fully transparent pixels become (0, 0, 0, 0).
    package static func unpremultiply(_ bytes: UnsafeMutablePointer<UInt8>, pixels: Int) {
        let words = UnsafeRawPointer(bytes)
        for pixel in 0..<pixels {
            if words.loadUnaligned(fromByteOffset: pixel &* 4, as: UInt32.self) & alphaMask == alphaMask {
                continue
            }
            let index = pixel &* 4
            let alpha = UInt32(bytes[index + 3])
            if alpha == 0 {
                bytes[index] = 0; bytes[index + 1] = 0; bytes[index + 2] = 0
                continue
            }
            for channel in 0..<3 {
                let straight = (UInt32(bytes[index + channel]) * 255 + alpha / 2) / alpha
                bytes[index + channel] = UInt8(truncatingIfNeeded: min(straight, 255))
            }
        }
    }

    /// `value × alpha / 255`, rounded to nearest, exact for all 8-bit inputs.
    @inline(__always)
    static func multiply(_ value: UInt8, _ alpha: UInt32) -> UInt8 {
        let product = UInt32(value) * alpha + 128
        return UInt8(truncatingIfNeeded: (product + (product >> 8)) >> 8)
    }
}

extension UInt16 {
    /// Straight → premultiplied for `pixels` RGBA16 pixels, rounding to nearest. `source` may equal `destination`.
    static func premultiply(_ source: UnsafePointer<UInt16>, into destination: UnsafeMutablePointer<UInt16>,
                            pixels: Int) {
        for index in stride(from: 0, to: pixels &* 4, by: 4) {
            let alpha = UInt32(source[index + 3])
            for channel in 0..<3 {
                let product = UInt32(source[index + channel]) &* alpha &+ 32767
                destination[index + channel] = UInt16(truncatingIfNeeded: product / 65535)
            }
            destination[index + 3] = UInt16(truncatingIfNeeded: alpha)
        }
    }

    /// Premultiplied → straight in place for `pixels` RGBA16 pixels, as the 8-bit conversion does.
    static func unpremultiply(_ samples: UnsafeMutablePointer<UInt16>, pixels: Int) {
        for index in stride(from: 0, to: pixels &* 4, by: 4) {
            let alpha = UInt32(samples[index + 3])
            if alpha == 65535 { continue }
            if alpha == 0 {
                samples[index] = 0; samples[index + 1] = 0; samples[index + 2] = 0
                continue
            }
            for channel in 0..<3 {
                let straight = (UInt32(samples[index + channel]) &* 65535 &+ alpha / 2) / alpha
                samples[index + channel] = UInt16(truncatingIfNeeded: Swift.min(straight, 65535))
            }
        }
    }
}
