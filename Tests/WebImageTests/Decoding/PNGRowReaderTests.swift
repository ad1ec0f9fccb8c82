import Foundation
import Testing
@testable import WebImage

/// The PNG fast path (zlib or libdeflate + our unfiltering) on files built here byte by byte: every filter type on
/// every row kind, inflated row by row and in one call, checked against the pixels that went in and against
/// libspng's decode of the same file.
@Suite struct PNGRowReaderTests {
    /// A PNG of `pixels` (`channels` bytes each), row `y` filtered with `filters[y % filters.count]`, its zlib
    /// stream in stored (uncompressed) deflate blocks of `blockSize` bytes, split over IDAT chunks of `idatSize`.
    static func png(width: Int, height: Int, channels: Int, pixels: [UInt8], filters: [UInt8],
                    blockSize: Int = 1000, idatSize: Int = 777) -> Data {
        let rowBytes = width * channels
        var raw: [UInt8] = []
        for y in 0..<height {
            let filter = filters[y % filters.count]
            raw.append(filter)
            for x in 0..<rowBytes {
                let value = Int(pixels[y * rowBytes + x])
                let left = x >= channels ? Int(pixels[y * rowBytes + x - channels]) : 0
                let up = y > 0 ? Int(pixels[(y - 1) * rowBytes + x]) : 0
                let upperLeft = x >= channels && y > 0 ? Int(pixels[(y - 1) * rowBytes + x - channels]) : 0
                let prediction: Int
                switch filter {
                case 1: prediction = left
                case 2: prediction = up
                case 3: prediction = (left + up) / 2
                case 4:
                    let estimate = left + up - upperLeft
                    let (toLeft, toUp, toUpperLeft) = (abs(estimate - left), abs(estimate - up), abs(estimate - upperLeft))
                    prediction = toLeft <= toUp && toLeft <= toUpperLeft ? left : toUp <= toUpperLeft ? up : upperLeft
                default: prediction = 0
                }
                raw.append(UInt8(truncatingIfNeeded: value - prediction))
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(blockSize, raw.count - start)
            zlib.append(start + count == raw.count ? 1 : 0)
            zlib += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[start..<start + count]
            start += count
        } while start < raw.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += bigEndian(b << 16 | a)

        var file = Data(PNGChunkReader.signature)
        func chunk(_ type: String, _ body: [UInt8]) {
            let typeAndData = Array(type.utf8) + body
            file += bigEndian(UInt32(body.count)) + typeAndData
            file += bigEndian(typeAndData.withUnsafeBytes { CRC32.checksum($0) })
        }
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, channels == 4 ? 6 : 2, 0, 0, 0])
        for offset in stride(from: 0, to: zlib.count, by: idatSize) {
            chunk("IDAT", Array(zlib[offset..<min(offset + idatSize, zlib.count)]))
        }
        chunk("IEND", [])
        return file
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    /// Bytes with edges, ramps and noise, so that every predictor matters and wraps around.
    static func samples(_ count: Int) -> [UInt8] {
        (0..<count).map { index in UInt8(truncatingIfNeeded: (index * 37) ^ (index >> 3) &* 91 ^ (index % 7 == 0 ? 255 : 0)) }
    }

    /// The two ways ``PNGRowReader/forEachRow(wholeInflateLimit:_:)`` inflates: row by row, and in one call.
    static let inflateLimits = [0, Int.max]

    /// The RGBA rows `PNGRowReader` gives for `data` under `limit`; `nil` when it does not take the file.
    static func rows(_ data: Data, wholeInflateLimit limit: Int) throws -> [UInt8]? {
        try data.withUnsafeBytes { bytes in
            guard let reader = PNGRowReader(bytes) else { return nil }
            var rows: [UInt8] = []
            var next = 0
            try reader.forEachRow(wholeInflateLimit: limit) { y, rgba in
                #expect(y == next)
                next += 1
                rows += UnsafeBufferPointer(start: rgba, count: reader.size.width * 4)
            }
            return rows
        }
    }

    @Test(arguments: [3, 4], inflateLimits)
    func everyFilterTypeGivesBackThePixels(channels: Int, wholeInflateLimit: Int) throws {
        let (width, height) = (23, 17)
        let pixels = Self.samples(width * height * channels)
        let data = Self.png(width: width, height: height, channels: channels, pixels: pixels, filters: [0, 1, 2, 3, 4, 4, 3])
        let rows = try #require(data.withUnsafeBytes { PNGRowReader($0) })
        #expect(rows.size == PixelSize(width: width, height: height) && rows.channels == channels)
        let decoded = try PNGCoder().decode(data, options: DecodeOptions())
        let expected: [UInt8] = (0..<width * height).flatMap { pixel in
            (0..<4).map { channel in channel < channels ? pixels[pixel * channels + channel] : 255 }
        }
        #expect(decoded.pixels.bytes == expected)
        #expect(try Self.rows(data, wholeInflateLimit: wholeInflateLimit) == expected)
        // libspng agrees on the same file.
        let spng = try data.withUnsafeBytes { bytes in
            try PNGDecoder.decodeEightBit(try SpngContext.decoder(reading: bytes, limits: .default),
                                          size: PixelSize(width: width, height: height))
        }
        #expect(spng.bytes == expected)
    }

    @Test(arguments: inflateLimits)
    func damageIsBadImageData(wholeInflateLimit: Int) throws {
        let (width, height) = (16, 9)
        let good = Self.png(width: width, height: height, channels: 4, pixels: Self.samples(width * height * 4),
                            filters: [4])
        /// The fast path's verdict where it takes the file, else the whole decoder's.
        func code(_ data: Data) -> ImageError.Code? {
            do {
                if try Self.rows(data, wholeInflateLimit: wholeInflateLimit) == nil {
                    _ = try PNGCoder().decode(data, options: DecodeOptions())
                }
                return nil
            } catch {
                return (error as? ImageError)?.code
            }
        }
        #expect(code(good) == nil)
        // An unknown filter type (5) on the first row: the stored block puts it at byte 41 + 5 + 2 + 8.
        var badFilter = Self.png(width: width, height: height, channels: 4, pixels: Self.samples(width * height * 4),
                                 filters: [5])
        #expect(code(badFilter) == .badImageData)
        // A flipped byte inside the image data: the IDAT CRC catches it.
        badFilter = good
        badFilter[60] ^= 0x10
        #expect(code(badFilter) == .badImageData)
        // One row short: the stream ends inside the last row.
        let short = Self.png(width: width, height: height - 1, channels: 4,
                             pixels: Self.samples(width * height * 4), filters: [1])
        var declaredTaller = short
        declaredTaller.replaceSubrange(20..<24, with: Self.bigEndian(UInt32(height)))
        let ihdr = Array(declaredTaller[12..<29])
        declaredTaller.replaceSubrange(29..<33, with: Self.bigEndian(ihdr.withUnsafeBytes { CRC32.checksum($0) }))
        #expect(code(declaredTaller) == .badImageData)
        // One row too many: the stream runs past the declared rows.
        var declaredShorter = good
        declaredShorter.replaceSubrange(20..<24, with: Self.bigEndian(UInt32(height - 1)))
        let shorterHeader = Array(declaredShorter[12..<29])
        declaredShorter.replaceSubrange(29..<33, with: Self.bigEndian(shorterHeader.withUnsafeBytes { CRC32.checksum($0) }))
        #expect(code(declaredShorter) == .badImageData)
        // A damaged deflate block (its length check flipped) with every CRC right: the inflater refuses it.
        var badBlock = Self.png(width: width, height: height, channels: 4, pixels: Self.samples(width * height * 4),
                                filters: [4], idatSize: 100_000)
        badBlock[41 + 2 + 3] ^= 0xFF  // after the IDAT's length and type: zlib's 2 bytes, the block's type and LEN
        let idatEnd = badBlock.count - 12 - 4  // before IEND (12 bytes) and the IDAT's CRC
        let idat = Array(badBlock[37..<idatEnd])
        badBlock.replaceSubrange(idatEnd..<(idatEnd + 4), with: Self.bigEndian(idat.withUnsafeBytes { CRC32.checksum($0) }))
        #expect(code(badBlock) == .badImageData)
        // Cut anywhere: refused.
        for cut in [good.count - 13, good.count / 2, 70] {
            #expect(code(good.prefix(cut)) == .badImageData)
        }
    }
}
