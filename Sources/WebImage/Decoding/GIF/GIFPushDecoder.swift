import Foundation

/// GIF bytes as they arrive, frame by frame: ``GIFRecordScanner`` finds where records end, and once an image
/// record is complete the records up to it are read by giflib and composited by ``GIFFrameCompositor`` (the one
/// the GIF coder uses), so every frame equals the one-shot decode's.
///
/// - A partial image is the frames completed so far (``completedFrames()``), not a partial bitmap.
/// - Work per chunk: the scan looks at each new byte about once; giflib is opened once per chunk that completes
///   at least one image (reading the header again, a few hundred bytes at most) and reads only the new records.
/// - Limits apply while streaming: the logical screen as soon as the header is in, the frame count and pixels
///   over all frames as each frame completes.
/// - As for the GIF coder's strict decode, damage throws `ImageError.Code.badImageData` and the data must end
///   with the trailer; ``DecodeOptions/firstFrameOnly`` completes with the first frame.
final class GIFPushDecoder: PushDecoder {
    private let options: DecodeOptions
    private var scanner = GIFRecordScanner()
    private var compositor: GIFFrameCompositor
    /// Where the first record not yet given to the compositor starts; 0 before the first.
    private var compositedUpTo = 0
    private var ended = false
    /// The last image ``completedFrames()`` built, and its frame count.
    private var shown: (frameCount: Int, image: Image)?

    init(options: DecodeOptions) {
        self.options = options
        compositor = GIFFrameCompositor(decoder: GIFFrameDecoder(options: options))
    }

    var isComplete: Bool { ended }

    var outputPixelCount: Int { 0 }

    var progress: Int { compositor.progress.frames.count }

    func consume(_ chunk: UnsafeRawBufferPointer, received: Data) throws -> PushOutcome {
        guard !ended else { return .decoding }  // bytes after the trailer are ignored, as the coder does
        try received.withUnsafeBytes { bytes in
            let knewScreen = scanner.screenSize != nil
            scanner.scan(bytes)
            if !knewScreen, let screen = scanner.screenSize, screen.area > 0 { try options.limits.check(screen) }
            let end = scanner.trailerEnd ?? scanner.lastImageEnd
            if end > compositedUpTo { try composite(bytes, upTo: end) }
        }
        if !ended, let failure = scanner.failure { throw failure }
        return .decoding
    }

    /// Gives the records before `end` to giflib and the compositor.
    private func composite(_ bytes: UnsafeRawBufferPointer, upTo end: Int) throws {
        try GIFFileReader.read(bytes) { reader in
            if compositedUpTo > 0 { reader.seek(toByteOffset: compositedUpTo) }
            while reader.byteOffset < end {
                let record = try reader.nextRecord()
                switch try compositor.take(record, from: reader) {
                case .noFrame:
                    continue
                case .trailer:
                    ended = true
                    return
                case .damaged(let error):
                    throw error
                case .frame:
                    if options.firstFrameOnly {
                        ended = true
                        return
                    }
                }
            }
            compositedUpTo = reader.byteOffset
        }
    }

    func partialPixels() -> PartialPixels? { nil }

    func completedFrames() -> Image? {
        let count = compositor.progress.frames.count
        if let shown, shown.frameCount == count { return shown.image }
        guard count > 0, var image = try? GIFCoder.image(from: compositor.progress, options: options) else {
            return nil
        }
        image.flags.insert(.incremental)
        shown = (count, image)
        return image
    }

    func finalImage(received: Data) throws -> Image {
        guard ended else {
            let count = compositor.progress.frames.count
            throw ImageError(.badImageData, "GIF: the data ends after \(count) frames, without a trailer")
        }
        return try GIFCoder.image(from: compositor.progress, options: options)
    }
}
