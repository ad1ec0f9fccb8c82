import CSpng
import Foundation

/// Decodes still PNG files with libspng: every colour type and bit depth to RGBA8 with tRNS applied, Adam7
/// interlace, eXIf orientation (animated PNGs go to ``APNGDecoder``, which decodes each frame with the two pixel
/// functions here). 8-bit RGB and RGBA files, the common case, are inflated and unfiltered by ``PNGRowReader``.
/// Thumbnails and the scale-down limit of non-interlaced files are made row by row as the rows are inflated
/// (``RowStreamingResampler``); interlaced ones go through ``DecodeOptions/finish(_:sourceSize:orientation:)``
/// after a full decode.
enum PNGDecoder {
    /// A complete IEND chunk: length 0, type, CRC.
    private static let endChunk: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    /// The most a full decode holds to inflate the image data in one call (``PNGWholeImageData``): the filtered
    /// rows and a copy of the file. A 1080p RGBA screenshot fits; a 4K photo is inflated row by row instead of
    /// doubling its decode's peak memory.
    static let wholeInflateLimit = 32 << 20
    /// The same for thumbnails shrunk row by row, whose promise is memory: a quarter of the 16 MB they may take
    /// above the file.
    static let thumbnailWholeInflateLimit = 4 << 20

    /// Where each Adam7 pass starts in a row and how far apart its pixels are.
    private static let adam7Columns: [(start: Int, step: Int)] = [(0, 8), (4, 8), (0, 4), (2, 4), (0, 2), (1, 2), (0, 1)]

    static func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw ImageError(.badImageData, "PNG: the data is empty") }
        return try data.withUnsafeBytes { bytes in
            // The same check as the properties reader's, so that `info` and decoding refuse the same headers alike.
            var headerReader = try PNGChunkReader(bytes)
            _ = try PNGHeader(reading: &headerReader)
            let context = try SpngContext.decoder(reading: bytes, limits: options.limits)
            let header = try context.header()
            let size = PixelSize(width: Int(header.width), height: Int(header.height))
            try options.limits.check(size)

            let interlaced = header.interlace_method != 0
            let storedOrientation = PNGCoder.storedOrientation(bytes)
            let fastRows = PNGRowReader(bytes)
            let sixteenBit = header.bit_depth == 16
            var profile = PNGColorChunks.profile(in: bytes)
            var pixels: PixelBuffer?
            var deep: DeepPixelBuffer?
            if sixteenBit, options.keepsHighBitDepth {
                let precise = DeepColorConversion(from: profile, for: options.colorHandling, keepingDepth: true)
                deep = try decodeDeep(context, size: size, interlaced: interlaced, converting: precise)
                if let precise { profile = precise.resultProfile }
            } else if !interlaced, let target = options.storedTargetSize(for: size, orientation: storedOrientation),
               target != size {
                let resampler = try RowStreamingResampler(sourceSize: size, outputSize: target, filter: .area)
                let add = { (y: Int, row: UnsafeMutablePointer<UInt8>) in resampler.add(row: y, pixels: row) }
                try fastRows?.forEachRow(wholeInflateLimit: thumbnailWholeInflateLimit, add)
                    ?? forEachRow(context, size: size, sixteenBit: sixteenBit, add)
                pixels = try resampler.finish()
            } else if let fastRows {
                pixels = try decodeRows(fastRows)
            } else if sixteenBit {
                // A deep file's colour is converted while its samples still have 16 bits.
                let precise = DeepColorConversion(from: profile, for: options.colorHandling)
                pixels = try decodeSixteenBit(context, size: size, interlaced: interlaced, converting: precise)
                if let precise { profile = precise.resultProfile }
            } else {
                pixels = try decodeEightBit(context, size: size)
            }
            // libspng reads eXIf after the pixels; the fast path leaves it the chunk headers' reading.
            let orientation = fastRows == nil ? try context.exifOrientation() ?? .up : storedOrientation
            // libspng stops before IEND's CRC; a download cut there is still a cut file, so it is refused.
            guard containsEndChunk(bytes) else {
                throw ImageError(.badImageData, "PNG: the data ends before the IEND chunk")
            }

            let colorTypeHasAlpha = header.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
                || header.color_type == UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
            var flags: Image.Flags = colorTypeHasAlpha || context.hasTransparencyChunk ? .hasAlpha : []
            let frame: ImageFrame
            if let deep {
                let finished = try options.finish(deep: deep, sourceSize: size, orientation: orientation)
                if finished.reduced { flags.insert(.thumbnail) }
                frame = try ImageFrame(deep: finished.pixels)
            } else if let pixels {
                let finished = try options.finish(pixels, sourceSize: size, orientation: orientation)
                if finished.reduced { flags.insert(.thumbnail) }
                frame = ImageFrame(pixels: finished.pixels)
            } else {
                throw ImageError(.badImageData, "PNG: no pixels were decoded")
            }
            var image = Image(frames: [frame], loopCount: 1, format: .png, scale: options.resolvedScale,
                              orientation: orientation, flags: flags)
            image.colorProfile = profile
            return image
        }
    }

    /// 1, 2, 4 and 8-bit sources: libspng expands them straight into the pixel buffer.
    static func decodeEightBit(_ context: SpngContext, size: PixelSize) throws -> PixelBuffer {
        try PixelBuffer(width: size.width, height: size.height) { output in
            try context.check(
                spng_decode_image(context.handle, output.baseAddress, output.count,
                                  Int32(SPNG_FMT_RGBA8.rawValue), Int32(SPNG_DECODE_TRNS.rawValue)),
                "decoding the image")
        }
    }

    /// 16-bit sources: libspng's RGBA8 output drops the low byte (0x10FF becomes 16, not 17), so rows are decoded
    /// as RGBA16 one at a time and rounded to 8 bits here, or taken to 8 bits by the colour `transform` when there
    /// is one. Interlaced rows arrive once per Adam7 pass holding only that pass's pixels, so only those columns
    /// are written.
    static func decodeSixteenBit(_ context: SpngContext, size: PixelSize, interlaced: Bool,
                                 converting transform: DeepColorConversion?) throws -> PixelBuffer {
        let converted = UnsafeMutablePointer<UInt8>.allocate(capacity: transform == nil ? 0 : size.width * 4)
        defer { converted.deallocate() }
        return try PixelBuffer(width: size.width, height: size.height) { output in
            guard let outputBase = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            try forEachDecodedRow(context, size: size, format: SPNG_FMT_RGBA16) { info, row in
                let y = Int(info.row_num), pass = Int(info.pass)
                guard !interlaced || (0..<7).contains(pass) else {
                    throw ImageError(.badImageData, "PNG: libspng reported row \(y) of pass \(pass)")
                }
                let (start, step) = interlaced ? adam7Columns[pass] : (0, 1)
                let destination = outputBase + y * size.width * 4
                if let transform {
                    transform.convert(UnsafeRawPointer(row), into: converted, count: size.width)
                    for x in stride(from: start, to: size.width, by: step) {
                        (destination + x * 4).update(from: converted + x * 4, count: 4)
                    }
                    return
                }
                let wide = row.assumingMemoryBound(to: UInt16.self)
                for x in stride(from: start, to: size.width, by: step) {
                    for channel in x * 4..<x * 4 + 4 {
                        destination[channel] = reduceToEightBits(wide[channel])
                    }
                }
            }
        }
    }

    /// 16-bit sources kept deep (``DecodeOptions/keepsHighBitDepth``): the RGBA16 rows as they come, colour
    /// converted in 16 bits by `transform` when there is one; interlaced passes write only their own columns.
    static func decodeDeep(_ context: SpngContext, size: PixelSize, interlaced: Bool,
                           converting transform: DeepColorConversion?) throws -> DeepPixelBuffer {
        try DeepPixelBuffer(width: size.width, height: size.height, significantBits: 16) { output in
            try forEachDecodedRow(context, size: size, format: SPNG_FMT_RGBA16) { info, row in
                let y = Int(info.row_num), pass = Int(info.pass)
                guard !interlaced || (0..<7).contains(pass) else {
                    throw ImageError(.badImageData, "PNG: libspng reported row \(y) of pass \(pass)")
                }
                transform?.convert(UnsafeRawPointer(row), into: row, count: size.width)
                let (start, step) = interlaced ? adam7Columns[pass] : (0, 1)
                let wide = row.assumingMemoryBound(to: UInt16.self)
                let destination = output.baseAddress! + y * size.width * 4
                for x in stride(from: start, to: size.width, by: step) {
                    (destination + x * 4).update(from: wide + x * 4, count: 4)
                }
            }
        }
    }

    /// The RGBA rows of a file ``PNGRowReader`` reads, each copied into place.
    static func decodeRows(_ rows: PNGRowReader) throws -> PixelBuffer {
        try PixelBuffer(width: rows.size.width, height: rows.size.height) { output in
            let rowBytes = rows.size.width * 4
            let base = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            try rows.forEachRow(wholeInflateLimit: wholeInflateLimit) { y, rgba in
                (base + y * rowBytes).update(from: rgba, count: rowBytes)
            }
        }
    }

    /// The rows of a non-interlaced PNG from libspng, top to bottom, as RGBA8 in a buffer `body` may overwrite:
    /// for thumbnails, which take each row into the resampler as it is inflated, so the full-size bitmap never
    /// exists. (Adam7 images deliver partial rows per pass and are decoded whole instead.)
    static func forEachRow(_ context: SpngContext, size: PixelSize, sixteenBit: Bool,
                           _ body: (Int, UnsafeMutablePointer<UInt8>) throws -> Void) throws {
        guard sixteenBit else {
            return try forEachDecodedRow(context, size: size, format: SPNG_FMT_RGBA8) { info, row in
                try body(Int(info.row_num), row.assumingMemoryBound(to: UInt8.self))
            }
        }
        let pixelBytes = size.width * 4
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: pixelBytes)
        defer { pixels.deallocate() }
        try forEachDecodedRow(context, size: size, format: SPNG_FMT_RGBA16) { info, row in
            let wide = row.assumingMemoryBound(to: UInt16.self)
            for index in 0..<pixelBytes { pixels[index] = reduceToEightBits(wide[index]) }
            try body(Int(info.row_num), pixels)
        }
    }

    /// Starts libspng's progressive decode to `format` (RGBA8 or RGBA16, colour keys applied) and calls `body`
    /// with each row as it comes (in Adam7 order for interlaced files) in a buffer `body` may overwrite.
    private static func forEachDecodedRow(
        _ context: SpngContext, size: PixelSize, format: spng_format,
        _ body: (spng_row_info, UnsafeMutableRawPointer) throws -> Void
    ) throws {
        let flags = Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)
        try context.check(spng_decode_image(context.handle, nil, 0, Int32(format.rawValue), flags),
                          "starting the decoder")
        let rowBytes = size.width * (format == SPNG_FMT_RGBA16 ? 8 : 4)
        let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { row.deallocate() }
        var status: Int32 = 0
        repeat {
            var info = spng_row_info()
            try context.check(spng_get_row_info(context.handle, &info), "reading the row order")
            status = spng_decode_row(context.handle, row, rowBytes)
            guard status == 0 || status == SPNG_EOI.rawValue else {
                throw SpngContext.error(for: status, action: "decoding row \(info.row_num)")
            }
            guard Int(info.row_num) < size.height else {
                throw ImageError(.badImageData, "PNG: libspng reported row \(info.row_num)")
            }
            try body(info, row)
        } while status != SPNG_EOI.rawValue
    }

    /// The nearest 8-bit value to a 16-bit sample: round(value × 255 / 65535).
    @inline(__always)
    static func reduceToEightBits(_ value: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt32(value) * 255 + 32767) / 65535)
    }

    /// Whether a complete IEND chunk is in `bytes` (usually at the very end; trailing bytes after it are allowed).
    private static func containsEndChunk(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var start = bytes.count - endChunk.count
        while start >= 8 {
            if bytes[start] == 0, bytes[start + 4] == 0x49,
               endChunk.indices.allSatisfy({ bytes[start + $0] == endChunk[$0] }) {
                return true
            }
            start -= 1
        }
        return false
    }
}
