/// Decodes the DIB of an ICO/CUR entry: an info header whose height counts two bitmaps, the colour (XOR)
/// bitmap, then a 1-bit AND mask whose set bits are transparent pixels.
///
/// A 32-bit entry carries its own alpha in the fourth byte of each pixel: when any pixel's alpha is not zero
/// the AND mask is ignored (as Windows and browsers do); when all are zero the pixels are opaque and the AND
/// mask makes them transparent. Masked pixels keep their colour with alpha 0. An entry whose AND mask is
/// missing (some writers drop it for 32-bit icons) is read without it.
enum ICOBitmapDecoder {
    static func decode(_ image: UnsafeRawBufferPointer, limits: DecodeLimits) throws -> PixelBuffer {
        var header = try BMPHeader.parseIconDIB(image, at: 0)
        try limits.check(header.size)
        if header.bitsPerPixel == 32, header.masks == .rgb888 {
            header.masks.alpha = BMPChannelMask(trusted: 0xFF00_0000)
            header.alpha = .whenNonZero
        }
        return try PixelBuffer(width: header.width, height: header.height) { destination in
            guard header.compression == .none else {
                try BMPRunLengthDecoder.write(header, from: image, into: destination)
                return  // the AND mask's place after compressed data is not reliably known
            }
            let sawNonZeroAlpha = try BMPPixelUnpacker.write(header, from: image, into: destination)
            if header.masks.alpha.isPresent {
                if sawNonZeroAlpha { return }
                BMPPixelUnpacker.makeOpaque(destination)
            }
            applyMask(header, from: image, to: destination)
        }
    }

    /// Makes transparent the pixels whose AND-mask bit is set, when the mask is there.
    private static func applyMask(
        _ header: BMPHeader, from image: UnsafeRawBufferPointer, to pixels: UnsafeMutableRawBufferPointer
    ) {
        let maskStride = (header.width + 31) / 32 * 4
        let maskStart = header.pixelOffset + header.rowStride * header.height
        guard maskStart <= image.count, maskStride * header.height <= image.count - maskStart else { return }
        for y in 0..<header.height {
            let storedRow = header.isTopDown ? y : header.height - 1 - y
            let row = maskStart + storedRow * maskStride
            for x in 0..<header.width where image[row + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                pixels[(y * header.width + x) * 4 + 3] = 0
            }
        }
    }
}
