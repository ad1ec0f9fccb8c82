/// The directory of an ICO or CUR file (ICONDIR and its 16-byte entries), with each entry's real size, depth
/// and alpha read from the image it points at: a PNG's IHDR (and whether it has a tRNS chunk) or a DIB's info
/// header. The embedded image is trusted over the directory, whose width and height bytes are only hints
/// (0 means 256, and writers get them wrong).
struct ICODirectory: Sendable {
    /// One image in the file.
    struct Entry: Sendable, Hashable {
        /// What the entry's bytes are.
        enum Kind: Sendable, Hashable {
            case png
            case bitmap
        }

        /// Position in the directory, counting from 0.
        let index: Int
        /// Where the image's bytes are in the file.
        let range: Range<Int>
        let kind: Kind
        /// Size from the embedded image's header.
        let size: PixelSize
        /// Bits per pixel from the embedded image's header (for PNG, bit depth times channels).
        let bitDepth: Int
        /// Whether a decode of this entry reports alpha: PNG colour types with alpha or a tRNS chunk; every
        /// bitmap entry (its AND mask is a 1-bit alpha channel, and 32-bit entries carry their own).
        let hasAlpha: Bool
    }

    /// 1 for icons, 2 for cursors.
    let type: Int
    /// The readable entries, in directory order (entries whose embedded header cannot be read are left out).
    let entries: [Entry]

    /// Parses the directory of `bytes`. Throws `ImageError.Code.badImageData` when the directory is damaged,
    /// when an entry points past the end of the data (a cut file), or when no entry has a readable image.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= 6, bytes.bmpUInt16(at: 0) == 0 else {
            throw ImageError(.badImageData, "ICO: the data is too short for a directory")
        }
        type = bytes.bmpUInt16(at: 2)
        let count = bytes.bmpUInt16(at: 4)
        guard type == 1 || type == 2 else { throw ImageError(.badImageData, "ICO: unknown resource type \(type)") }
        guard count > 0 else { throw ImageError(.badImageData, "ICO: the directory has no entries") }
        guard bytes.count >= 6 + 16 * count else {
            throw ImageError(.badImageData, "ICO: the data ends inside the directory of \(count) entries")
        }
        var entries: [Entry] = []
        var firstError: ImageError?
        for index in 0..<count {
            let record = 6 + 16 * index
            let length = Int(bytes.bmpUInt32(at: record + 8))
            let offset = Int(bytes.bmpUInt32(at: record + 12))
            guard offset <= bytes.count, length <= bytes.count - offset else {
                throw ImageError(.badImageData, "ICO: entry \(index) (\(length) bytes at \(offset)) runs past the "
                    + "end of the \(bytes.count)-byte file")
            }
            do {
                entries.append(try Self.entry(index: index, range: offset..<offset + length, in: bytes))
            } catch let error as ImageError {
                firstError = firstError ?? error
            }
        }
        guard !entries.isEmpty else {
            throw firstError ?? ImageError(.badImageData, "ICO: no entry holds a readable image")
        }
        self.entries = entries
    }

    /// Reads the header of the image at `range`.
    private static func entry(index: Int, range: Range<Int>, in bytes: UnsafeRawBufferPointer) throws -> Entry {
        let image = UnsafeRawBufferPointer(rebasing: bytes[range])
        if ImageFormat.detect(bytes: image) == .png {
            let header = try ICOPNGHeader(image)
            return Entry(index: index, range: range, kind: .png, size: header.size, bitDepth: header.bitsPerPixel,
                         hasAlpha: header.hasAlpha)
        }
        let header = try BMPHeader.parseIconDIB(image, at: 0)
        return Entry(index: index, range: range, kind: .bitmap, size: header.size, bitDepth: header.bitsPerPixel,
                     hasAlpha: true)
    }
}

/// What the ICO directory needs of an embedded PNG: its IHDR, and whether a tRNS chunk precedes the image data
/// (what makes the PNG decoder report alpha for colour types without an alpha channel).
struct ICOPNGHeader {
    let size: PixelSize
    let bitsPerPixel: Int
    let hasAlpha: Bool

    init(_ bytes: UnsafeRawBufferPointer) throws {
        var reader = try PNGChunkReader(bytes)
        guard let header = try? reader.next(verifyingChecksum: false), header.type == .IHDR, header.data.count == 13
        else { throw ImageError(.badImageData, "ICO: a PNG entry without an IHDR chunk") }
        size = PixelSize(width: Int(reader.uint32(at: header.data.lowerBound)),
                         height: Int(reader.uint32(at: header.data.lowerBound + 4)))
        let depth = Int(bytes[header.data.lowerBound + 8]), colourType = bytes[header.data.lowerBound + 9]
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colourType)] ?? 1
        bitsPerPixel = depth * channels
        // Walk to the first IDAT looking for tRNS; a damaged chunk ends the walk (the decoder judges the rest).
        var transparency = false
        while let chunk = try? reader.next(verifyingChecksum: false), chunk.type != .IDAT, chunk.type != .IEND {
            if chunk.type == .tRNS {
                transparency = true
                break
            }
        }
        hasAlpha = PNGCoder.colorTypeHasAlpha(colourType) || transparency
    }
}
