extension PixelBuffer {
    /// The mean of each channel over the pixels (straight alpha, each rounded to the nearest value), leaving out
    /// fully transparent pixels when `ignoringTransparent` (their hidden colours are not part of the picture);
    /// `nil` when that leaves no pixel.
    public func averageColor(ignoringTransparent: Bool = true) -> RGBA? {
        withUnsafeBytes { bytes -> RGBA? in
            var sums = SIMD4<UInt64>.zero
            var counted: UInt64 = 0
            var offset = 0
            while offset < bytes.count {
                let alpha = bytes[offset + 3]
                if alpha != 0 || !ignoringTransparent {
                    sums &+= SIMD4(UInt64(bytes[offset]), UInt64(bytes[offset + 1]), UInt64(bytes[offset + 2]),
                                   UInt64(alpha))
                    counted += 1
                }
                offset += 4
            }
            guard counted > 0 else { return nil }
            let mean = (sums &* 2 &+ counted) / (counted * 2)  // rounded half up
            return RGBA(UInt8(mean.x), UInt8(mean.y), UInt8(mean.z), UInt8(mean.w))
        }
    }
}
