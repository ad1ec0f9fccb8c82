/// Decodes a GIF frame by frame: ``GIFFileReader`` reads the records, ``GIFFrameCompositor`` turns them into
/// frames on a ``GIFCanvas``, and the decode options (limits, first frame only, thumbnails) apply as each frame
/// completes.
///
/// Errors split in two kinds. Refusals — the limits of ``DecodeLimits``, an unreadable header — are thrown: nothing
/// is decoded. Damage met after the header — a cut or corrupt frame, a bad record — ends reading and is returned in
/// ``Progress/stopReason`` beside every frame completed before it.
struct GIFFrameDecoder {
    /// Everything read so far.
    struct Progress {
        /// The composited frames, already reduced to the requested size.
        var frames: [ImageFrame] = []
        /// The NETSCAPE2.0 loop count, if the file has one (0 = forever).
        var loopCount: Int?
        /// Some composited frame has a pixel that is not opaque.
        var hasAlpha = false
        /// The frames were made smaller than the canvas on purpose (thumbnail or scale-down limit).
        var reduced = false
        /// Why reading stopped before the trailer, or `nil` when the trailer was reached (or the caller stopped).
        var stopReason: ImageError?
    }

    /// The graphic control extension that applies to the next image (internal: the lazy animated image keeps one
    /// per frame).
    struct GraphicControl: Equatable {
        var disposal = GIFDisposal.none
        var delayCentiseconds = 0
        var transparentIndex: Int?
    }

    let options: DecodeOptions

    /// Reads `bytes`, calling `onFrame` with each frame as it completes; `onFrame` returns `false` to stop early.
    func decode(_ bytes: UnsafeRawBufferPointer, onFrame: (ImageFrame) throws -> Bool = { _ in true }) throws
        -> Progress
    {
        try GIFFileReader.read(bytes) { reader in
            if reader.screenSize.area > 0 { try options.limits.check(reader.screenSize) }
            // A frame index wins over first-frame-only, as in the coders that pick frames themselves.
            let wantsFirstFrameOnly = options.frameIndex.map { $0 == 0 } ?? options.firstFrameOnly
            var imageCount: Int?
            if !wantsFirstFrameOnly { imageCount = try Self.checkFrameLimits(bytes, limits: options.limits) }
            var compositor = GIFFrameCompositor(
                decoder: self, onlyOneFrame: wantsFirstFrameOnly || (imageCount == 1 && options.frameIndex == nil),
                keptFrameIndex: options.frameIndex)
            records: while true {
                guard reader.remainingByteCount > 0 else {
                    compositor.progress.stopReason = ImageError(
                        .badImageData,
                        "GIF: the data ends after \(compositor.progress.frames.count) frames, without a trailer")
                    break records
                }
                let record: GIFFileReader.Record
                do {
                    record = try reader.nextRecord()
                } catch let error as ImageError {
                    compositor.progress.stopReason = error
                    break records
                }
                switch try compositor.take(record, from: reader) {
                case .noFrame:
                    continue records
                case .trailer:
                    break records
                case .damaged(let error):
                    compositor.progress.stopReason = error
                    break records
                case .frame(let frame):
                    let keepReading = try onFrame(frame)
                    if wantsFirstFrameOnly || options.frameIndex != nil || !keepReading { break records }
                }
            }
            if let index = options.frameIndex, compositor.progress.frames.isEmpty,
               compositor.progress.stopReason == nil {
                throw ImageError(.invalidParameter, "GIF: frame \(index) asked, the file has \(compositor.imageCount)")
            }
            return compositor.progress
        }
    }

    /// Refuses, before any frame is decoded, a file whose frames together break the frame or total-pixel limit
    /// (otherwise a tiny file of 1x1 frames on a huge screen would have every frame composited, and scaled for a
    /// thumbnail, before the count gave it away). A GIF's header does not say how many frames follow, so the
    /// records are walked once without decompressing them; the walk stops quietly at damage, where decoding stops.
    /// Returns how many images the walk found.
    @discardableResult
    static func checkFrameLimits(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws -> Int {
        try GIFFileReader.read(bytes) { reader in
            var canvas: PixelSize? = reader.screenSize.area > 0 ? reader.screenSize : nil
            var frameCount = 0
            while reader.remainingByteCount > 0 {
                guard let record = try? reader.nextRecord() else { return frameCount }
                switch record {
                case .trailer:
                    return frameCount
                case .extension:
                    continue
                case .image(let descriptor):
                    frameCount += 1
                    let size = canvas ?? extent(of: descriptor.rect)
                    canvas = size
                    try limits.check(frameCount: frameCount, canvas: size)
                    guard (try? reader.skipImageData()) != nil else { return frameCount }
                }
            }
            return frameCount
        }
    }

    /// Decodes the current image's rows onto `canvas` (internal: the lazy animated image draws frames one by one).
    func draw(
        _ descriptor: GIFImageDescriptor, control: GraphicControl, from reader: GIFFileReader,
        on canvas: inout GIFCanvas
    ) throws {
        let rect = descriptor.rect
        let visible = canvas.beginFrame(
            rect: rect, disposal: control.disposal, hasTransparentIndex: control.transparentIndex != nil)
        defer { canvas.endFrame() }
        guard visible.width > 0, visible.height > 0 else {
            try reader.skipImageData()
            return
        }
        let palette = descriptor.localPalette ?? reader.globalPalette ?? .grayscale
        let canvasSize = canvas.size
        try withDecompressedRows(descriptor, canvasHeight: canvasSize.height, from: reader) { y, indices in
            canvas.drawRow(
                indices, row: y, frameX: rect.x, palette: palette, transparentIndex: control.transparentIndex)
        }
    }

    /// Decompresses the current image and hands each of its rows that lands on a canvas `canvasHeight` tall to
    /// `body`, with the row's canvas y, in the order the file stores them.
    func withDecompressedRows(
        _ descriptor: GIFImageDescriptor, canvasHeight: Int, from reader: GIFFileReader,
        _ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        let rect = descriptor.rect
        let rows = GIFRowOrder(height: rect.height, interlaced: descriptor.interlaced)
        // Rows below the canvas are never shown: decompress up to the last row that lands inside it.
        let linesToRead = rows.lineCount(coveringRowsBelow: canvasHeight - rect.y)
        try options.limits.check(PixelSize(width: rect.width, height: linesToRead))
        let width = rect.width
        let indices = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width * linesToRead)
        defer { indices.deallocate() }
        try reader.decompressImageData(into: indices)
        for lineNumber in 0..<linesToRead {
            let y = rect.y + rows.row(forLine: lineNumber)
            guard y < canvasHeight else { continue }
            try body(y, UnsafeBufferPointer(rebasing: indices[(lineNumber * width)..<((lineNumber + 1) * width)]))
        }
    }

    /// Takes what players use from an extension: the graphic control block for the next image, and the first
    /// loop count found.
    static func interpret(
        extension label: Int, blocks: [[UInt8]], control: inout GraphicControl, loopCount: inout Int?
    ) {
        switch label {
        case 0xF9:
            guard let gce = blocks.first, gce.count >= 4 else { return }
            control = GraphicControl(
                disposal: GIFDisposal(code: Int(gce[0] >> 2) & 7),
                delayCentiseconds: Int(gce[1]) | Int(gce[2]) << 8,
                transparentIndex: gce[0] & 1 == 1 ? Int(gce[3]) : nil)
        case 0x01:
            control = GraphicControl()  // a plain-text block (never drawn) consumes its control block
        case 0xFF:
            if loopCount == nil { loopCount = Self.loopCount(in: blocks) }
        default:
            break
        }
    }

    /// The loop count of a NETSCAPE2.0 (or ANIMEXTS1.0) application extension.
    static func loopCount(in blocks: [[UInt8]]) -> Int? {
        guard blocks.count >= 2, blocks[0] == Array("NETSCAPE2.0".utf8) || blocks[0] == Array("ANIMEXTS1.0".utf8),
              blocks[1].count >= 3, blocks[1][0] == 1 else { return nil }
        return Int(blocks[1][1]) | Int(blocks[1][2]) << 8
    }

    /// A frame's display time: the delay in seconds, except that delays under 0.011 s play as 0.1 s (what browsers
    /// and SDWebImage do, since such files expect it).
    static func duration(_ centiseconds: Int) -> Double {
        FrameDuration.playable(seconds: Double(centiseconds) / 100)
    }

    /// The canvas a file with an empty logical screen gets: just large enough for its first frame.
    static func extent(of rect: PixelRect) -> PixelSize {
        PixelSize(width: rect.x + rect.width, height: rect.y + rect.height)
    }
}

/// Which image row each decompressed line of a frame belongs to: rows in order, or the four interlace passes
/// (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
struct GIFRowOrder {
    let height: Int
    let interlaced: Bool

    private static let passes: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]

    /// The row (from the frame's top) of the `line`-th line in the data.
    func row(forLine line: Int) -> Int {
        guard interlaced else { return line }
        var remaining = line
        for pass in Self.passes {
            let count = pass.start < height ? (height - pass.start + pass.step - 1) / pass.step : 0
            if remaining < count { return pass.start + remaining * pass.step }
            remaining -= count
        }
        return height  // past the end: never reached for line < height
    }

    /// How many lines must be read so that every row above `visibleRows` has been seen.
    func lineCount(coveringRowsBelow visibleRows: Int) -> Int {
        let visible = min(max(visibleRows, 0), height)
        guard interlaced, visible < height else { return visible }
        guard visible > 0 else { return 0 }
        // Find the last line, in data order, whose row is visible.
        var line = 0, lastNeeded = -1
        for pass in Self.passes {
            var row = pass.start
            while row < height {
                if row < visible { lastNeeded = line }
                line += 1
                row += pass.step
            }
        }
        return lastNeeded + 1
    }
}
