/// One colour channel of a 16- or 32-bit BMP pixel, as a bit mask (BI_BITFIELDS, the masks of V3–V5 headers, or
/// the implied 5-5-5 and 8-8-8 layouts of BI_RGB).
///
/// Masks of any width are scaled to 8 bits: wider ones keep their top 8 bits, narrower ones are stretched so
/// that all ones becomes 255 (`v * 255 / max`, rounded down, as Pillow does for 5- and 6-bit channels; exact
/// for 1, 2 and 4 bits).
struct BMPChannelMask: Sendable, Hashable {
    /// The mask as stored.
    let mask: UInt32
    /// Where the channel's lowest bit is.
    let shift: UInt32
    /// How many bits the channel has; 0 for an absent channel.
    let bits: UInt32

    /// A channel that is not there (reads as 0).
    static let absent = BMPChannelMask(trusted: 0)

    /// Reads a mask; throws for one whose bits are not contiguous, since no encoder writes such a thing and
    /// Windows refuses them too.
    init(_ mask: UInt32) throws {
        guard mask != 0 else {
            self = .absent
            return
        }
        let shift = UInt32(mask.trailingZeroBitCount)
        let shifted = mask >> shift
        guard shifted & (shifted &+ 1) == 0 else {
            throw ImageError(.badImageData, "BMP: the channel mask 0x\(String(mask, radix: 16)) is not contiguous")
        }
        self.init(trusted: mask)
    }

    /// A mask known to be contiguous (the fixed BI_RGB layouts).
    init(trusted mask: UInt32) {
        shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
        bits = UInt32((mask >> shift).nonzeroBitCount)
        self.mask = mask
    }

    /// Whether the channel exists.
    var isPresent: Bool { bits > 0 }

    /// The channel of `pixel`, scaled to 0...255.
    @inline(__always)
    func value(of pixel: UInt32) -> UInt8 {
        let raw = (pixel & mask) >> shift
        if bits >= 8 { return UInt8(truncatingIfNeeded: raw >> (bits - 8)) }
        if bits == 0 { return 0 }
        let maximum = (UInt32(1) << bits) - 1
        return UInt8(raw * 255 / maximum)
    }
}

/// The four channel masks of a 16- or 32-bit bitmap.
struct BMPChannelMasks: Sendable, Hashable {
    var red: BMPChannelMask
    var green: BMPChannelMask
    var blue: BMPChannelMask
    var alpha: BMPChannelMask

    /// BI_RGB at 16 bits: X1R5G5B5 (the top bit is unused).
    static let rgb555 = BMPChannelMasks(
        red: BMPChannelMask(trusted: 0x7C00), green: BMPChannelMask(trusted: 0x03E0),
        blue: BMPChannelMask(trusted: 0x001F), alpha: .absent)
    /// BI_RGB at 32 bits: X8R8G8B8 (the top byte is unused unless a V3–V5 header gives it an alpha mask).
    static let rgb888 = BMPChannelMasks(
        red: BMPChannelMask(trusted: 0x00FF_0000), green: BMPChannelMask(trusted: 0x0000_FF00),
        blue: BMPChannelMask(trusted: 0x0000_00FF), alpha: .absent)

    /// Masks known to be valid.
    init(red: BMPChannelMask, green: BMPChannelMask, blue: BMPChannelMask, alpha: BMPChannelMask) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Reads the masks of a bitmap with `bitsPerPixel` bits; throws when they overlap or reach past the pixel.
    init(red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32, bitsPerPixel: Int = 32) throws {
        let all = [red, green, blue, alpha]
        let limit: UInt64 = bitsPerPixel >= 32 ? UInt64(UInt32.max) : (UInt64(1) << bitsPerPixel) - 1
        var seen: UInt32 = 0
        for mask in all {
            guard UInt64(mask) <= limit, seen & mask == 0 else {
                throw ImageError(.badImageData, "BMP: channel masks overlap or exceed \(bitsPerPixel) bits")
            }
            seen |= mask
        }
        self.red = try BMPChannelMask(red)
        self.green = try BMPChannelMask(green)
        self.blue = try BMPChannelMask(blue)
        self.alpha = try BMPChannelMask(alpha)
    }
}
