/// The chunk layout of an APNG file, read and checked in one pass before any pixel is decoded: the header and
/// the chunks every frame needs (PLTE, tRNS), the animation control (acTL), and for each frame its control
/// (fcTL) and where its compressed data lies (the IDAT chunks for a default image that is the first frame, the
/// fdAT chunks after their sequence numbers otherwise).
///
/// The reading is strict, like the rest of the PNG path: every chunk's CRC is checked (except, when only the first
/// frame is kept, the fdAT chunks of the frames after it, whose data is never used), the fcTL and fdAT sequence
/// numbers must count up from 0 without a gap, every frame rectangle must lie inside the canvas, the file must
/// hold exactly the frames acTL declares and end with IEND. Anything else is `ImageError.Code.badImageData`, so
/// a damaged or cut file is never taken for a shorter animation. The canvas is checked against
/// ``DecodeLimits/check(_:)`` as soon as IHDR is read, and acTL's frame count against
/// ``DecodeLimits/check(frameCount:canvas:)`` as soon as acTL is read.
struct APNGFile {
    /// One animation frame.
    struct Frame {
        let control: APNGFrameControl
        /// The compressed image data, in file order; concatenated, they form one zlib stream.
        var data: [Range<Int>] = []
    }

    /// The whole file.
    let bytes: UnsafeRawBufferPointer
    /// The IHDR chunk's data.
    let header: Range<Int>
    /// The image size from IHDR, which every frame is drawn on.
    let canvas: PixelSize
    let colorType: UInt8
    /// Whole PLTE and tRNS chunks, copied into each frame's standalone PNG.
    private(set) var palette: PNGChunk?
    private(set) var transparency: PNGChunk?
    /// The first eXIf chunk's data.
    private(set) var exif: Range<Int>?
    /// acTL's `num_frames`: how many frames the animation has.
    private(set) var frameCount = 0
    /// acTL's `num_plays`: how many times it plays, 0 for ever.
    private(set) var playCount = 0
    /// The frames kept: all of them, or only the first when the caller asked for that.
    private(set) var frames: [Frame] = []
    /// Whether the IDAT image is the animation's first frame (its fcTL precedes IDAT) rather than a hidden
    /// default image shown only by decoders that do not animate.
    private(set) var defaultImageIsFirstFrame = false
    /// Why a lenient reading stopped before IEND (`ImageError.Code.badImageData`); ``frames`` then holds only
    /// the frames known to be whole. Always `nil` for a strict reading, which throws instead.
    private(set) var stopReason: ImageError?

    /// Whether `bytes` is a PNG file with an acTL chunk before its image data, which is what makes it animated
    /// (an acTL after IDAT does not count). Reads only chunk headers, up to the first IDAT; damage says `false`,
    /// leaving the error to the still-image decoder.
    static func declaresAnimation(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var reader = try? PNGChunkReader(bytes) else { return false }
        while let chunk = try? reader.next(verifyingChecksum: false) {
            if chunk.type == .acTL { return true }
            if chunk.type == .IDAT || chunk.type == .IEND { return false }
        }
        return false
    }

    /// Reads the layout of `bytes`, keeping every frame or, with `keepingFirstFrameOnly`, only the first (the
    /// others are still checked, but neither stored nor counted against the frame limits).
    ///
    /// With `lenient`, damage after IHDR (a cut, a bad chunk, a broken sequence) ends the reading instead of
    /// failing it: the frames whose data is known to be whole — followed by the next frame's fcTL, or by IEND —
    /// are kept and the error goes to ``stopReason``. Limits are never lenient.
    init(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, keepingFirstFrameOnly: Bool,
         lenient: Bool = false) throws {
        var reader = try PNGChunkReader(bytes)
        let ihdr = try PNGHeader(reading: &reader)
        header = ihdr.data
        canvas = ihdr.size
        colorType = ihdr.colorType
        try limits.check(canvas)
        self.bytes = bytes
        var parser = Parser(limits: limits, keepingFirstFrameOnly: keepingFirstFrameOnly)
        do {
            try parser.readChunks(after: &reader, into: &self)
        } catch let error as ImageError where lenient && error.code == .badImageData {
            stopReason = error
            frames.removeLast(max(0, frames.count - parser.wholeFrames))
        }
    }

    /// The state of the one pass over the chunks after IHDR.
    private struct Parser {
        enum Stage { case beforeImageData, inImageData, afterImageData }

        let limits: DecodeLimits
        let keepingFirstFrameOnly: Bool
        var stage = Stage.beforeImageData
        var sawAnimationControl = false
        var nextSequenceNumber: UInt32 = 0
        /// Frames met so far, kept or not, and whether the latest has data yet.
        var framesSeen = 0
        var latestFrameHasData = true
        /// Frames whose data is known to be whole: the next frame's fcTL or IEND followed it.
        var wholeFrames = 0

        mutating func readChunks(after reader: inout PNGChunkReader, into file: inout APNGFile) throws {
            while true {
                let chunk = try reader.next(verifyingChecksum: false)
                // The data of frames that are not decoded is not used, so its CRC need not be computed either.
                let isUnusedFrameData = chunk.type == .fdAT && framesSeen > file.frames.count
                if !isUnusedFrameData { try reader.verifyChecksum(of: chunk) }
                if stage == .inImageData && chunk.type != .IDAT { stage = .afterImageData }
                switch chunk.type {
                case .IEND:
                    wholeFrames = latestFrameHasData ? framesSeen : framesSeen - 1
                    try finish(file)
                    return
                case .acTL: try readAnimationControl(chunk, reader: reader, into: &file)
                case .fcTL: try readFrameControl(chunk, reader: reader, into: &file)
                case .IDAT: try readImageData(chunk, into: &file)
                case .fdAT: try readFrameData(chunk, reader: reader, into: &file)
                case .PLTE:
                    try requireBeforeImageData(chunk, unique: file.palette == nil)
                    file.palette = chunk
                case .tRNS:
                    try requireBeforeImageData(chunk, unique: file.transparency == nil)
                    file.transparency = chunk
                case .eXIf:
                    if file.exif == nil { file.exif = chunk.data }
                case let type where type.isCritical:
                    throw ImageError(.badImageData, "PNG: unexpected critical chunk \(type)")
                default:
                    break  // other ancillary chunks (text, time, colour space) do not change the pixels here
                }
            }
        }

        private func requireBeforeImageData(_ chunk: PNGChunk, unique: Bool) throws {
            guard stage == .beforeImageData, unique else {
                throw ImageError(.badImageData, "PNG: a \(chunk.type) chunk is repeated or after the image data")
            }
        }

        private mutating func readAnimationControl(
            _ chunk: PNGChunk, reader: PNGChunkReader, into file: inout APNGFile
        ) throws {
            guard stage == .beforeImageData, !sawAnimationControl, chunk.data.count == 8 else {
                throw ImageError(.badImageData, "APNG: an acTL chunk is repeated, misplaced or not 8 bytes long")
            }
            sawAnimationControl = true
            let frameCount = Int(reader.uint32(at: chunk.data.lowerBound))
            guard frameCount > 0 else { throw ImageError(.badImageData, "APNG: acTL declares 0 frames") }
            try limits.check(frameCount: keepingFirstFrameOnly ? 1 : frameCount, canvas: file.canvas)
            file.frameCount = frameCount
            file.playCount = Int(reader.uint32(at: chunk.data.lowerBound + 4))
        }

        private mutating func readFrameControl(
            _ chunk: PNGChunk, reader: PNGChunkReader, into file: inout APNGFile
        ) throws {
            guard sawAnimationControl else { throw ImageError(.badImageData, "APNG: an fcTL chunk before acTL") }
            let control = try APNGFrameControl(chunk.data, in: reader, canvas: file.canvas)
            try takeSequenceNumber(control.sequenceNumber)
            guard latestFrameHasData else {
                throw ImageError(.badImageData, "APNG: frame \(framesSeen - 1) has no image data")
            }
            guard framesSeen < file.frameCount else {
                throw ImageError(.badImageData, "APNG: more frames than the \(file.frameCount) acTL declares")
            }
            if stage == .beforeImageData {
                // The default image's own fcTL: it must cover the whole canvas.
                guard control.rect == PixelRect(x: 0, y: 0, width: file.canvas.width, height: file.canvas.height)
                else { throw ImageError(.badImageData, "APNG: the first frame's fcTL does not match IHDR") }
                file.defaultImageIsFirstFrame = true
            }
            wholeFrames = framesSeen
            framesSeen += 1
            latestFrameHasData = false
            if !keepingFirstFrameOnly || file.frames.isEmpty { file.frames.append(Frame(control: control)) }
        }

        private mutating func readImageData(_ chunk: PNGChunk, into file: inout APNGFile) throws {
            guard stage != .afterImageData else {
                throw ImageError(.badImageData, "PNG: the IDAT chunks are not consecutive")
            }
            stage = .inImageData
            if file.defaultImageIsFirstFrame {
                file.frames[0].data.append(chunk.data)
                latestFrameHasData = true
            }
        }

        private mutating func readFrameData(
            _ chunk: PNGChunk, reader: PNGChunkReader, into file: inout APNGFile
        ) throws {
            guard stage == .afterImageData, chunk.data.count >= 4 else {
                throw ImageError(.badImageData,
                                 "APNG: an fdAT chunk before the image data or without a sequence number")
            }
            try takeSequenceNumber(reader.uint32(at: chunk.data.lowerBound))
            guard framesSeen > (file.defaultImageIsFirstFrame ? 1 : 0) else {
                throw ImageError(.badImageData, "APNG: an fdAT chunk without its frame's fcTL")
            }
            latestFrameHasData = true
            if framesSeen == file.frames.count {
                file.frames[framesSeen - 1].data.append((chunk.data.lowerBound + 4)..<chunk.data.upperBound)
            }
        }

        private mutating func takeSequenceNumber(_ number: UInt32) throws {
            guard number == nextSequenceNumber else {
                throw ImageError(.badImageData,
                                 "APNG: sequence number \(number) where \(nextSequenceNumber) was expected")
            }
            nextSequenceNumber &+= 1
        }

        private func finish(_ file: APNGFile) throws {
            guard stage != .beforeImageData else { throw ImageError(.badImageData, "PNG: the file has no IDAT chunk") }
            guard framesSeen == file.frameCount, latestFrameHasData else {
                let found = "the file has \(framesSeen) whole ones"
                throw ImageError(.badImageData, "APNG: acTL declares \(file.frameCount) frames, \(found)")
            }
        }
    }
}
