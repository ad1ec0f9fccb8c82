import CZlib

/// The rows of the most common PNGs, inflated with zlib and unfiltered here: 8-bit RGB without a colour key and
/// 8-bit RGBA, not interlaced. Every other kind goes through libspng.
///
/// Why not libspng for these too: photos are mostly Paeth-filtered, and libspng's Paeth runs one byte at a time
/// (its SIMD version needs SSSE3 builds, which Debian's is not); it was 56% of a 4K decode on this project's
/// reference machine. Here Paeth predicts a whole pixel at once in 16-bit lanes, without branches.
///
/// Checks: each IDAT chunk's CRC, the zlib stream (its Adler-32 included), the filter types, and that the
/// stream holds exactly the rows the header declares. Chunks other than IDAT are left to the callers, which
/// read eXIf from the chunk headers (``PNGCoder/storedOrientation(_:)``) and require IEND.
struct PNGRowReader {
    let size: PixelSize
    /// 3 (RGB) or 4 (RGBA).
    let channels: Int
    /// The file's chunks, positioned at the first IDAT.
    private let imageData: PNGChunkReader

    /// A reader for `bytes`, or `nil` when the file is not one of the kinds read here, or its chunks before the
    /// image data are not plain (libspng then decodes it, and reports whatever is wrong).
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard var reader = try? PNGChunkReader(bytes),
              let header = try? PNGHeader(reading: &reader, verifyingChecksum: false),
              header.bitDepth == 8, header.colorType == 2 || header.colorType == 6, !header.interlaced
        else { return nil }
        while true {
            let beforeChunk = reader
            guard let chunk = try? reader.next(verifyingChecksum: false) else { return nil }
            if chunk.type == .IDAT {
                imageData = beforeChunk
                break
            }
            // A colour key makes RGB pixels transparent; unknown critical chunks are libspng's to refuse.
            if chunk.type == .tRNS || chunk.type == .IEND || (chunk.type.isCritical && chunk.type != .PLTE) {
                return nil
            }
        }
        self.size = header.size
        self.channels = header.colorType == 6 ? 4 : 3
    }

    /// Calls `body` with each row from the top, as RGBA8 pixels in a buffer `body` may overwrite.
    ///
    /// When the filtered rows (and a joined copy of the compressed stream, if it spans several chunks) fit in
    /// `wholeInflateLimit` bytes, the image data is inflated in one call (``PNGWholeImageData``, several times
    /// faster); otherwise it is inflated row by row, holding two rows at a time.
    func forEachRow(wholeInflateLimit: Int = 0,
                    _ body: (_ y: Int, _ rgba: UnsafeMutablePointer<UInt8>) throws -> Void) throws {
        let rowBytes = size.width * channels
        let rgba = UnsafeMutablePointer<UInt8>.allocate(capacity: size.width * 4)
        defer { rgba.deallocate() }
        let (filteredCount, overflow) = size.height.multipliedReportingOverflow(by: rowBytes + 1)
        // The joined copy is smaller than the file: counting the whole file keeps the bound simple.
        let copyBound = imageData.bytes.count
        guard !overflow, filteredCount <= wholeInflateLimit - copyBound else {
            return try forEachStreamedRow(rgba: rgba, body)
        }
        let whole = try PNGWholeImageData(imageData, filteredCount: filteredCount)
        defer { whole.deallocate() }
        // Unfiltered in place: each row's `above` is the row before, already unfiltered.
        let zeros = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes + 1)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0, count: rowBytes + 1)
        let base = whole.filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for y in 0..<size.height {
            let filtered = base + y * (rowBytes + 1)
            let above = y == 0 ? UnsafePointer(zeros) : UnsafePointer(filtered - rowBytes)
            try PNGUnfilter.unfilter(type: filtered[0], row: filtered + 1, above: above, count: rowBytes,
                                     pixelBytes: channels, rowNumber: y)
            try deliver(filtered + 1, through: rgba, y: y, body)
        }
    }

    /// Rows inflated as they are needed: two filtered rows in memory at a time.
    private func forEachStreamedRow(rgba: UnsafeMutablePointer<UInt8>,
                                    _ body: (_ y: Int, _ rgba: UnsafeMutablePointer<UInt8>) throws -> Void) throws {
        let rowBytes = size.width * channels
        // One spare byte at each end: the filter type before a row, and a fourth lane for 3-byte pixel loads.
        let current = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes + 2)
        let previous = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes + 2)
        defer { current.deallocate(); previous.deallocate() }
        current.initialize(repeating: 0, count: rowBytes + 2)
        previous.initialize(repeating: 0, count: rowBytes + 2)
        var (filtered, above) = (current, previous)

        var input = try ImageDataInput(imageData)
        defer { input.end() }
        for y in 0..<size.height {
            try input.inflate(into: filtered, count: rowBytes + 1, row: y)
            try PNGUnfilter.unfilter(type: filtered[0], row: filtered + 1, above: above + 1, count: rowBytes,
                                     pixelBytes: channels, rowNumber: y)
            try deliver(filtered + 1, through: rgba, y: y, body)
            swap(&filtered, &above)
        }
        try input.finish()
    }

    /// Hands one unfiltered row to `body` as RGBA, in `rgba`: the row itself stays intact as the next one's
    /// `above`.
    private func deliver(_ row: UnsafeMutablePointer<UInt8>, through rgba: UnsafeMutablePointer<UInt8>, y: Int,
                         _ body: (_ y: Int, _ rgba: UnsafeMutablePointer<UInt8>) throws -> Void) throws {
        if channels == 4 {
            rgba.update(from: row, count: size.width * 4)
        } else {
            Self.expandToRGBA(row, into: rgba, pixels: size.width)
        }
        try body(y, rgba)
    }

    private static func expandToRGBA(_ rgb: UnsafePointer<UInt8>, into rgba: UnsafeMutablePointer<UInt8>, pixels: Int) {
        for pixel in 0..<pixels {
            rgba[pixel &* 4] = rgb[pixel &* 3]
            rgba[pixel &* 4 &+ 1] = rgb[pixel &* 3 &+ 1]
            rgba[pixel &* 4 &+ 2] = rgb[pixel &* 3 &+ 2]
            rgba[pixel &* 4 &+ 3] = 255
        }
    }
}

/// The zlib stream spread over a run of IDAT chunks, inflated row by row.
private struct ImageDataInput {
    private var chunks: PNGChunkReader
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether zlib reported the end of the stream (after checking its Adler-32).
    private var ended = false

    /// The stream starting in the IDAT chunk `chunks` is positioned at.
    init(_ chunks: PNGChunkReader) throws {
        self.chunks = chunks
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard webimage_inflate_init(stream) == Z_OK else {
            stream.deallocate()
            throw ImageError(.imageTooLarge, "PNG: zlib could not start")
        }
    }

    func end() {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Fills `count` bytes at `destination` from the stream; throws when it is damaged or ends first.
    mutating func inflate(into destination: UnsafeMutablePointer<UInt8>, count: Int, row: Int) throws {
        stream.pointee.next_out = destination
        stream.pointee.avail_out = UInt32(count)
        while stream.pointee.avail_out > 0 {
            if stream.pointee.avail_in == 0, try !feed() {
                throw ImageError(.badImageData, "PNG: the image data ends inside row \(row)")
            }
            let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
            if status == Z_STREAM_END {
                guard stream.pointee.avail_out == 0 else {
                    throw ImageError(.badImageData, "PNG: the compressed image data ends inside row \(row)")
                }
                ended = true
            }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw ImageError(.badImageData, "PNG: the compressed image data is damaged at row \(row)")
            }
        }
    }

    /// After the last row: the stream must end there, with its checksum, and no more data.
    mutating func finish() throws {
        let spare = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { spare.deallocate() }
        while !ended {
            stream.pointee.next_out = spare
            stream.pointee.avail_out = 1
            if stream.pointee.avail_in == 0, try !feed() {
                throw ImageError(.badImageData, "PNG: the image data ends before its zlib checksum")
            }
            let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
            ended = status == Z_STREAM_END
            guard stream.pointee.avail_out == 1, status == Z_OK || status == Z_BUF_ERROR || ended else {
                throw ImageError(.badImageData, "PNG: the image data holds more than the declared rows")
            }
        }
    }

    /// Points the stream at the next IDAT chunk's data, its CRC checked; `false` when the run of IDATs ended.
    private mutating func feed() throws -> Bool {
        while true {
            let chunk = try chunks.next(verifyingChecksum: false)
            guard chunk.type == .IDAT else { return false }
            try chunks.verifyImageDataChecksum(of: chunk)
            let bytes = chunks.bytes
            guard !chunk.data.isEmpty else { continue }
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: (bytes.baseAddress! + chunk.data.lowerBound).assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(chunk.data.count)
            return true
        }
    }
}

extension PNGChunkReader {
    /// ``verifyChecksum(of:)`` through zlib's `crc32`, several times faster than ``CRC32`` over megabytes of
    /// image data.
    func verifyImageDataChecksum(of chunk: PNGChunk) throws {
        let typeAndData = UnsafeRawBufferPointer(rebasing: bytes[(chunk.data.lowerBound - 4)..<chunk.data.upperBound])
        let crc = UInt32(crc32(0, typeAndData.baseAddress?.assumingMemoryBound(to: UInt8.self),
                               UInt32(typeAndData.count)))
        guard crc == uint32(at: chunk.data.upperBound) else {
            throw ImageError(.badImageData,
                             "PNG: the IDAT chunk at byte \(chunk.data.lowerBound - 8) fails its CRC check")
        }
    }
}
