/// The 8-bit grey of a colour, with ITU-R BT.601's weights in 16-bit fixed point and rounded, as most converters
/// make an 8-bit grey image; measures that compare images by their lightness (the perceptual hash, SSIM) read it.
enum Luma {
    static func of(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let weighted: UInt32 = UInt32(r) * 19_595 + UInt32(g) * 38_470 + UInt32(b) * 7_471
        return UInt8((weighted + 0x8000) >> 16)
    }

    /// The grey of every pixel of `pixels`, row by row (alpha ignored).
    static func plane(of pixels: PixelBuffer) -> [Double] {
        pixels.withUnsafeBytes { bytes in
            (0..<pixels.width * pixels.height).map {
                Double(of(bytes[$0 * 4], bytes[$0 * 4 + 1], bytes[$0 * 4 + 2]))
            }
        }
    }
}
