/// Turns the rows of an uncompressed bitmap (1, 2, 4 and 8-bit indices; 16, 24 and 32-bit pixels read through
/// channel masks) into RGBA, top row first, whichever way up they are stored.
enum BMPPixelUnpacker {
    /// Writes every pixel of `header`'s bitmap from `bytes` into `destination` (`width * height * 4` bytes).
    /// Returns whether any pixel's alpha, as read through the alpha mask, is not zero (always true for bitmaps
    /// without an alpha mask). Throws `ImageError.Code.badImageData` when the pixel data is shorter than the
    /// declared size needs.
    static func write(
        _ header: BMPHeader, from bytes: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        let available = bytes.count - header.pixelOffset
        guard available >= header.uncompressedByteCount else {
            throw ImageError(.badImageData, "BMP: \(available) bytes of pixel data, but \(header.width)x"
                + "\(header.height) at \(header.bitsPerPixel) bits needs \(header.uncompressedByteCount)")
        }
        guard let source = bytes.baseAddress, let target = destination.baseAddress else { return true }
        let table = palette(of: header)
        var sawNonZeroAlpha = false
        for y in 0..<header.height {
            let storedRow = header.isTopDown ? y : header.height - 1 - y
            let row = source + header.pixelOffset + storedRow * header.rowStride
            let out = target + y * header.width * 4
            switch header.bitsPerPixel {
            case 1, 2, 4, 8:
                unpackIndexed(row, into: out, width: header.width, bits: header.bitsPerPixel, table: table)
            case 24 where header.masks == .rgb888:
                unpackBGR(row, into: out, width: header.width)
            default:
                if unpackMasked(row, into: out, header: header) { sawNonZeroAlpha = true }
            }
        }
        if header.bitsPerPixel <= 8 || !header.masks.alpha.isPresent { return true }
        if header.alpha == .whenNonZero && !sawNonZeroAlpha { makeOpaque(destination) }
        return sawNonZeroAlpha
    }

    /// The colour table as 256 packed RGBA values; indices past the file's table read as opaque black.
    static func palette(of header: BMPHeader) -> [UInt32] {
        var table = [UInt32](repeating: RGBA(0, 0, 0).packed, count: 256)
        for (index, colour) in header.palette.prefix(256).enumerated() { table[index] = colour.packed }
        return table
    }

    /// Sets every alpha byte of `pixels` to 255.
    static func makeOpaque(_ pixels: UnsafeMutableRawBufferPointer) {
        var index = 3
        while index < pixels.count {
            pixels[index] = 255
            index += 4
        }
    }

    /// Palette indices packed `bits` to a byte, leftmost pixel in the high bits.
    private static func unpackIndexed(
        _ row: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int, bits: Int, table: [UInt32]
    ) {
        let perByte = 8 / bits
        let valueMask = (1 << bits) - 1
        table.withUnsafeBufferPointer { colours in
            for x in 0..<width {
                let byte = Int(row.load(fromByteOffset: x / perByte, as: UInt8.self))
                let shift = 8 - bits * (x % perByte + 1)
                out.storeBytes(of: colours[(byte >> shift) & valueMask], toByteOffset: x * 4, as: UInt32.self)
            }
        }
    }

    /// BI_RGB 24-bit pixels: blue, green, red.
    private static func unpackBGR(_ row: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int) {
        let input = row.assumingMemoryBound(to: UInt8.self)
        let output = out.assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
            output[x * 4] = input[x * 3 + 2]
            output[x * 4 + 1] = input[x * 3 + 1]
            output[x * 4 + 2] = input[x * 3]
            output[x * 4 + 3] = 255
        }
    }

    /// 16-, 24- and 32-bit little-endian pixels through the header's masks. Returns whether any alpha was not 0.
    private static func unpackMasked(_ row: UnsafeRawPointer, into out: UnsafeMutableRawPointer, header: BMPHeader)
        -> Bool
    {
        let input = row.assumingMemoryBound(to: UInt8.self)
        let output = out.assumingMemoryBound(to: UInt8.self)
        let bytesPerPixel = header.bitsPerPixel / 8
        let masks = header.masks
        let hasAlpha = masks.alpha.isPresent
        var alphaSeen: UInt8 = 0
        for x in 0..<header.width {
            let at = x * bytesPerPixel
            var pixel = UInt32(input[at]) | UInt32(input[at + 1]) << 8
            if bytesPerPixel >= 3 { pixel |= UInt32(input[at + 2]) << 16 }
            if bytesPerPixel == 4 { pixel |= UInt32(input[at + 3]) << 24 }
            output[x * 4] = masks.red.value(of: pixel)
            output[x * 4 + 1] = masks.green.value(of: pixel)
            output[x * 4 + 2] = masks.blue.value(of: pixel)
            let alpha = hasAlpha ? masks.alpha.value(of: pixel) : 255
            output[x * 4 + 3] = alpha
            alphaSeen |= alpha
        }
        return alphaSeen != 0
    }
}
