/// Turns CMYK samples (what TurboJPEG gives for CMYK and YCCK JPEGs) into opaque RGBA, in place.
///
/// Polarity: an Adobe APP14 segment means the samples are stored inverted (0 = full ink), as Photoshop writes
/// them; YCCK files always carry one. Without it the samples are read as plain CMYK. libvips and Firefox decide
/// the same way; Pillow assumes inverted samples even without the segment, which only differs for the rare
/// CMYK file that has no APP14.
///
/// Colour: the naive conversion without an ICC profile, R = (255 − C)(255 − K) / 255 and likewise for G and B,
/// rounded exactly as Pillow's `cmyk2rgb` does, so an Adobe CMYK decode matches Pillow's byte for byte.
enum JPEGCMYKConversion {
    static func convertToRGBA(_ bytes: UnsafeMutableRawBufferPointer, inverted: Bool) {
        let flip: UInt8 = inverted ? 255 : 0
        var index = 0
        while index + 3 < bytes.count {
            // Ink amounts with 0 = none.
            let c = UInt32(bytes[index] ^ flip), m = UInt32(bytes[index + 1] ^ flip)
            let y = UInt32(bytes[index + 2] ^ flip), k = UInt32(bytes[index + 3] ^ flip)
            let remaining = 255 - k
            bytes[index] = UInt8(remaining - multiplyDividing255(c, remaining))
            bytes[index + 1] = UInt8(remaining - multiplyDividing255(m, remaining))
            bytes[index + 2] = UInt8(remaining - multiplyDividing255(y, remaining))
            bytes[index + 3] = 255
            index += 4
        }
    }

    /// `a * b / 255` rounded to nearest.
    @inline(__always)
    static func multiplyDividing255(_ a: UInt32, _ b: UInt32) -> UInt32 {
        dividing255(a * b)
    }

    /// `value / 255` rounded to nearest, without a division (exact for `value` up to 255 × 255).
    @inline(__always)
    static func dividing255(_ value: UInt32) -> UInt32 {
        let biased = value + 128
        return ((biased >> 8) + biased) >> 8
    }
}
