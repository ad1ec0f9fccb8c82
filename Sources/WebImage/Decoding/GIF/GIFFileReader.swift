import CGif

/// Reads a GIF held in memory record by record through giflib's low-level API (`DGifGetRecordType`,
/// `DGifGetImageDesc`, `DGifGetCode`, `DGifGetExtension`), so a caller can composite each frame as it completes and
/// stop whenever it wants, instead of slurping the whole file into giflib's own structures first. Image data is
/// decompressed by ``GIFLZWDecoder``, faster than giflib does it, from the file's bytes in place.
///
/// A reader borrows the bytes it reads: use it only inside ``read(_:body:)``. Every giflib failure becomes an
/// `ImageError.Code.badImageData` error naming giflib's reason.
final class GIFFileReader {
    /// One top-level record of the file.
    enum Record {
        /// An image descriptor; its pixel data follows and must be read with ``decompressImageData(into:)`` or
        /// skipped with ``skipImageData()`` before the next record.
        case image(GIFImageDescriptor)
        /// An extension: its label and its first two data sub-blocks (the rest is skipped, nothing GIF players
        /// use lives there).
        case `extension`(label: Int, blocks: [[UInt8]])
        /// The trailer: the file ends here.
        case trailer
    }

    /// The logical screen declared in the header, before any limit is applied.
    let screenSize: PixelSize
    /// The global colour table, if the file has one.
    let globalPalette: GIFPalette?

    private let file: UnsafeMutablePointer<GifFileType>
    private let source: GIFByteSource

    private init(bytes: UnsafeRawBufferPointer) throws(ImageError) {
        let source = GIFByteSource(bytes: bytes)
        var error: Int32 = 0
        guard let file = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), gifReadBytes, &error) else {
            throw GIFFileReader.error(code: error, while: "reading the GIF header")
        }
        self.source = source
        self.file = file
        screenSize = PixelSize(width: Int(file.pointee.SWidth), height: Int(file.pointee.SHeight))
        globalPalette = file.pointee.SColorMap.map(GIFPalette.init(colorMap:))
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(file, &error)
    }

    /// Opens `bytes` (which must stay valid during `body`) and hands the reader to `body`.
    static func read<R>(_ bytes: UnsafeRawBufferPointer, body: (GIFFileReader) throws -> R) throws -> R {
        let reader = try GIFFileReader(bytes: bytes)
        return try withExtendedLifetime(reader) { try body(reader) }
    }

    /// Bytes not yet consumed; 0 means the data ended.
    var remainingByteCount: Int { source.bytes.count - source.offset }

    /// How many bytes have been consumed: before ``nextRecord()``, where the next record starts.
    var byteOffset: Int { source.offset }

    /// Moves to `offset`, which must be the start of a record found earlier by ``byteOffset`` (the lazy animated
    /// image jumps straight to a frame this way; giflib keeps no read-ahead between records).
    func seek(toByteOffset offset: Int) {
        source.offset = min(max(offset, 0), source.bytes.count)
    }

    /// Reads the next record header (and, for extensions, the whole extension).
    func nextRecord() throws(ImageError) -> Record {
        var type = UNDEFINED_RECORD_TYPE
        try check(DGifGetRecordType(file, &type), "reading the next record")
        switch type {
        case IMAGE_DESC_RECORD_TYPE:
            try check(DGifGetImageDesc(file), "reading an image descriptor")
            return .image(GIFImageDescriptor(file.pointee.Image))
        case EXTENSION_RECORD_TYPE:
            return try readExtension()
        default:
            return .trailer
        }
    }

    /// Decompresses the current image's first `pixels.count` palette indices into `pixels` with ``GIFLZWDecoder``,
    /// reading the sub-blocks where they lie in the file, then moves past the image's data to the next record.
    func decompressImageData(into pixels: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) {
        // giflib reads straight from the callback, without read-ahead, and `DGifGetImageDesc` ends by reading
        // the LZW minimum code size (refusing sizes over 8): that byte is the one just consumed, and the
        // sub-blocks start at the cursor.
        let offset = source.offset
        guard offset > 0 else { throw ImageError(.badImageData, "GIF: image data without an image descriptor") }
        let minimumCodeSize = Int(source.bytes[offset - 1])
        try GIFLZWDecoder.decode(subBlocks: UnsafeRawBufferPointer(rebasing: source.bytes[offset...]),
                                 minimumCodeSize: minimumCodeSize, into: pixels)
        try skipImageData()
    }

    /// Skips the rest of the current image's compressed data without decompressing it.
    func skipImageData() throws(ImageError) {
        var block: UnsafeMutablePointer<GifByteType>?
        var codeSize: Int32 = 0
        try check(DGifGetCode(file, &codeSize, &block), "skipping image data")
        while block != nil {
            try check(DGifGetCodeNext(file, &block), "skipping image data")
        }
    }

    private func readExtension() throws(ImageError) -> Record {
        var label: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetExtension(file, &label, &block), "reading an extension")
        var blocks: [[UInt8]] = []
        while let current = block {
            if blocks.count < 2 {
                // giflib's blocks are length-prefixed: byte 0 is the length, the data follows.
                let length = Int(current[0])
                blocks.append(Array(UnsafeBufferPointer(start: current + 1, count: length)))
            }
            try check(DGifGetExtensionNext(file, &block), "reading an extension")
        }
        return .extension(label: Int(label), blocks: blocks)
    }

    private func check(_ status: Int32, _ activity: String) throws(ImageError) {
        guard status == GIF_OK else { throw GIFFileReader.error(code: file.pointee.Error, while: activity) }
    }

    private static func error(code: Int32, while activity: String) -> ImageError {
        let reason: String
        switch code {
        case D_GIF_ERR_READ_FAILED: reason = "the data ends too soon"
        case D_GIF_ERR_NOT_GIF_FILE: reason = "not a GIF file"
        case D_GIF_ERR_NO_SCRN_DSCR: reason = "the logical screen descriptor is missing or cut short"
        case D_GIF_ERR_EOF_TOO_SOON: reason = "the image data ends before its last pixel"
        case D_GIF_ERR_IMAGE_DEFECT: reason = "the compressed image data is corrupt"
        case D_GIF_ERR_DATA_TOO_BIG: reason = "more pixels than the frame holds"
        case D_GIF_ERR_WRONG_RECORD: reason = "an unknown record type"
        default: reason = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        }
        return ImageError(.badImageData, "GIF: \(reason) while \(activity)")
    }
}

/// The bytes giflib reads from, with a cursor; reached from the C read callback through `UserData`.
private final class GIFByteSource {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Copies up to `count` bytes to `destination`; returns how many were copied (fewer at the end).
    func read(into destination: UnsafeMutablePointer<GifByteType>, count: Int) -> Int {
        let available = min(max(count, 0), bytes.count - offset)
        guard available > 0, let base = bytes.baseAddress else { return 0 }
        UnsafeMutableRawPointer(destination).copyMemory(from: base + offset, byteCount: available)
        offset += available
        return available
    }
}

/// giflib's input function: a plain C function (no captures) that finds its ``GIFByteSource`` through the
/// file's `UserData`.
private func gifReadBytes(
    _ file: UnsafeMutablePointer<GifFileType>?, _ destination: UnsafeMutablePointer<GifByteType>?, _ count: Int32
) -> Int32 {
    guard let file, let destination, let userData = file.pointee.UserData else { return 0 }
    let source = Unmanaged<GIFByteSource>.fromOpaque(userData).takeUnretainedValue()
    return Int32(source.read(into: destination, count: Int(count)))
}

/// Where a frame sits on the canvas and how its pixels are stored.
struct GIFImageDescriptor {
    /// The frame's rectangle in canvas coordinates (may reach outside the canvas).
    var rect: PixelRect
    /// Rows stored in the four-pass interlaced order.
    var interlaced: Bool
    /// The frame's own colour table, if it has one.
    var localPalette: GIFPalette?

    init(_ image: GifImageDesc) {
        rect = PixelRect(x: Int(image.Left), y: Int(image.Top), width: Int(image.Width), height: Int(image.Height))
        interlaced = image.Interlace
        localPalette = image.ColorMap.map(GIFPalette.init(colorMap:))
    }
}
