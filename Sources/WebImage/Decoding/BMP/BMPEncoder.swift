import Foundation

/// Writes one bitmap as a BMP file: 24-bit BI_RGB with a 40-byte header when opaque, 32-bit BGRA with a
/// 124-byte V5 header (BI_BITFIELDS, alpha mask 0xFF000000, sRGB) when it has alpha, bottom-up rows padded to
/// 4 bytes. Straight alpha is stored as is, so decoding gives back the exact pixels.
enum BMPEncoder {
    static func encode(_ pixels: PixelBuffer, withAlpha: Bool) throws -> Data {
        let width = pixels.width, height = pixels.height
        let bytesPerPixel = withAlpha ? 4 : 3
        let infoSize = withAlpha ? 124 : 40
        let stride = (width * bytesPerPixel + 3) / 4 * 4
        let headerSize = 14 + infoSize
        let (imageSize, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, width <= Int(Int32.max), height <= Int(Int32.max),
            imageSize + headerSize <= Int(UInt32.max)
        else {
            throw ImageError(.imageTooLarge, "BMP: \(pixels.size) does not fit in a 4 GiB bitmap")
        }
        var file = [UInt8](repeating: 0, count: headerSize + imageSize)
        file.withUnsafeMutableBytes { out in
            func put16(_ value: Int, at offset: Int) {
                out[offset] = UInt8(value & 0xFF)
                out[offset + 1] = UInt8(value >> 8 & 0xFF)
            }
            func put32(_ value: UInt32, at offset: Int) {
                for index in 0..<4 { out[offset + index] = UInt8(value >> (8 * UInt32(index)) & 0xFF) }
            }
            out[0] = 0x42  // "BM"
            out[1] = 0x4D
            put32(UInt32(headerSize + imageSize), at: 2)
            put32(UInt32(headerSize), at: 10)
            put32(UInt32(infoSize), at: 14)
            put32(UInt32(width), at: 18)
            put32(UInt32(height), at: 22)  // positive: bottom-up
            put16(1, at: 26)  // planes
            put16(bytesPerPixel * 8, at: 28)
            put32(withAlpha ? 3 : 0, at: 30)  // BI_BITFIELDS or BI_RGB
            put32(UInt32(imageSize), at: 34)
            put32(2835, at: 38)  // 72 dpi in pixels per metre
            put32(2835, at: 42)
            if withAlpha {
                put32(0x00FF_0000, at: 54)  // red, green, blue, alpha masks
                put32(0x0000_FF00, at: 58)
                put32(0x0000_00FF, at: 62)
                put32(0xFF00_0000, at: 66)
                put32(0x7352_4742, at: 70)  // LCS_sRGB
                put32(4, at: 122)  // LCS_GM_IMAGES
            }
            pixels.withUnsafeBytes { source in
                for y in 0..<height {
                    let input = y * width * 4
                    var output = headerSize + (height - 1 - y) * stride
                    for x in 0..<width {
                        let pixel = input + x * 4
                        out[output] = source[pixel + 2]
                        out[output + 1] = source[pixel + 1]
                        out[output + 2] = source[pixel]
                        if withAlpha { out[output + 3] = source[pixel + 3] }
                        output += bytesPerPixel
                    }
                }
            }
        }
        return Data(file)
    }
}
