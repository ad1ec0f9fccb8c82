import Foundation

/// The frames of a GIF for ``AnimatedImage``, found by one pass over the file's records up front.
///
/// **Up-front cost.** The pass reads every record header and extension and skips each frame's compressed data
/// block by block (giflib's `DGifGetCode` / `DGifGetCodeNext`): no LZW decompression, no canvas, no pixels. It
/// costs one copy of the file's bytes through giflib's reader plus about 60 bytes kept per frame (where its
/// record starts, its graphic control, its rectangle). What it learns: canvas size, frame count, durations, loop
/// count, and which frames can be drawn without their predecessors.
///
/// **Damage.** The pass is as strict as ``GIFCoder/decode(_:options:)``: data cut short or a broken record
/// throws `ImageError.Code.badImageData` at once. Corruption inside a frame's compressed pixels is found only
/// when that frame is drawn, and throws then.
struct GIFAnimationSource: AnimatedImageSource {
    /// What the pass keeps about one frame.
    struct FrameRecord: Sendable {
        /// Where the frame's image descriptor starts in the file.
        var offset: Int
        /// Its graphic control extension (disposal, delay, transparent index).
        var control: GIFFrameDecoder.GraphicControl
        /// Its rectangle clipped to the canvas.
        var visibleRect: PixelRect
    }

    let data: Data
    let decodeOptions: DecodeOptions
    let canvasSize: PixelSize
    let records: [FrameRecord]
    let frameDurations: [Double]
    let loopCount: Int
    let frameSize: PixelSize
    private let independent: [Bool]

    var format: ImageFormat { .gif }
    var orientation: Orientation { .up }
    var declaresAlpha: Bool { false }
    var isReduced: Bool { frameSize != canvasSize }
    var heldByteCount: Int { 0 }
    var scale: Double { decodeOptions.resolvedScale }

    /// Reads the records of `data`; `firstFrameOnly` stops after the first image and makes a still.
    init(data: Data, decodeOptions: DecodeOptions, firstFrameOnly: Bool) throws {
        let scan = try Self.scan(data, limits: decodeOptions.limits, firstFrameOnly: firstFrameOnly)
        self.data = data
        self.decodeOptions = decodeOptions
        canvasSize = scan.canvas
        records = scan.records
        if scan.records.count == 1 {
            frameDurations = [0]  // one frame is a still image, as the eager decoder makes it
            loopCount = 1
        } else {
            frameDurations = scan.records.map { GIFFrameDecoder.duration($0.control.delayCentiseconds) }
            loopCount = scan.loopCount ?? 1
        }
        frameSize = decodeOptions.finishedSize(forStored: scan.canvas, orientation: .up)
        independent = Self.independence(of: scan.records, canvas: scan.canvas)
    }

    func isIndependent(_ index: Int) -> Bool {
        independent.indices.contains(index) && independent[index]
    }

    func makeCursor(startingAt index: Int) throws -> any AnimationCursor {
        guard isIndependent(index) else {
            throw ImageError(.badImageData, "GIF: frame \(index) depends on earlier frames")
        }
        return GIFAnimationCursor(source: self, canvas: GIFCanvas(size: canvasSize), nextFrameIndex: index)
    }

    /// Frame *i* can start on a fresh (transparent) canvas when it is the first, when the frame before it is
    /// cleared to the background over the whole canvas, or when it paints every canvas pixel opaquely (full
    /// rectangle, no transparent index) and is not disposed to "previous" (which would need the canvas before it).
    private static func independence(of records: [FrameRecord], canvas: PixelSize) -> [Bool] {
        let whole = PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        return records.indices.map { index in
            if index == 0 { return true }
            let previous = records[index - 1], current = records[index]
            if previous.control.disposal == .background && previous.visibleRect == whole { return true }
            return current.visibleRect == whole && current.control.transparentIndex == nil
                && current.control.disposal != .previous
        }
    }

    private struct Scan {
        var canvas: PixelSize
        var records: [FrameRecord]
        var loopCount: Int?
    }

    private static func scan(_ data: Data, limits: DecodeLimits, firstFrameOnly: Bool) throws -> Scan {
        try data.withUnsafeBytes { bytes in
            try GIFFileReader.read(bytes) { reader in
                let screen = reader.screenSize
                if screen.area > 0 { try limits.check(screen) }
                var canvas: PixelSize? = screen.area > 0 ? screen : nil
                var control = GIFFrameDecoder.GraphicControl()
                var loopCount: Int?
                var found: [(offset: Int, control: GIFFrameDecoder.GraphicControl, rect: PixelRect)] = []
                records: while true {
                    guard reader.remainingByteCount > 0 else {
                        throw ImageError(
                            .badImageData, "GIF: the data ends after \(found.count) frames, without a trailer")
                    }
                    let offset = reader.byteOffset
                    switch try reader.nextRecord() {
                    case .trailer:
                        break records
                    case .extension(let label, let blocks):
                        GIFFrameDecoder.interpret(
                            extension: label, blocks: blocks, control: &control, loopCount: &loopCount)
                    case .image(let descriptor):
                        if canvas == nil {
                            let extent = GIFFrameDecoder.extent(of: descriptor.rect)
                            try limits.check(extent)
                            canvas = extent
                        }
                        guard found.count < limits.maxFrames else {
                            throw ImageError(.imageTooLarge, "GIF: more than \(limits.maxFrames) frames")
                        }
                        found.append((offset, control, descriptor.rect))
                        try reader.skipImageData()
                        control = GIFFrameDecoder.GraphicControl()
                        if firstFrameOnly { break records }
                    }
                }
                guard let canvas, !found.isEmpty else {
                    throw ImageError(.badImageData, "GIF: the file holds no image")
                }
                let records = found.map {
                    FrameRecord(offset: $0.offset, control: $0.control, visibleRect: $0.rect.clamped(to: canvas))
                }
                return Scan(canvas: canvas, records: records, loopCount: loopCount)
            }
        }
    }
}

/// Composites GIF frames one at a time on a ``GIFCanvas``. Each frame opens a giflib reader on the file, jumps to
/// the frame's record and decodes it: opening costs a header parse (microseconds), and keeps giflib's per-image
/// bookkeeping from growing over a long playback.
struct GIFAnimationCursor: AnimationCursor {
    let source: GIFAnimationSource
    var canvas: GIFCanvas
    private(set) var nextFrameIndex: Int

    init(source: GIFAnimationSource, canvas: GIFCanvas, nextFrameIndex: Int) {
        self.source = source
        self.canvas = canvas
        self.nextFrameIndex = nextFrameIndex
    }

    var heldByteCount: Int { canvas.heldByteCount }

    mutating func drawNextFrame() throws {
        let index = nextFrameIndex
        guard source.records.indices.contains(index) else {
            throw ImageError(.badImageData, "GIF: there is no frame \(index)")
        }
        let record = source.records[index]
        let decoder = GIFFrameDecoder(options: source.decodeOptions)
        try source.data.withUnsafeBytes { bytes in
            try GIFFileReader.read(bytes) { reader in
                reader.seek(toByteOffset: record.offset)
                guard case .image(let descriptor) = try reader.nextRecord() else {
                    throw ImageError(.badImageData, "GIF: frame \(index) is not where the first pass found it")
                }
                try decoder.draw(descriptor, control: record.control, from: reader, on: &canvas)
            }
        }
        nextFrameIndex = index + 1
    }

    func makePixels() throws -> PixelBuffer {
        try source.decodeOptions.finish(canvas.snapshot(), sourceSize: canvas.size, orientation: .up).pixels
    }
}
