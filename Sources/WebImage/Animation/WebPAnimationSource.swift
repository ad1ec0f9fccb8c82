import CWebP
import Foundation

/// The frames of an animated WebP for ``AnimatedImage``, read from the container by libwebp's demuxer up front.
///
/// **Up-front cost.** The demuxer parses chunk headers only: canvas, loop count, and per frame its rectangle,
/// duration, blending, disposal and where its bitstream lies. No frame is decoded; about 50 bytes are kept per
/// frame. Which frames are key frames (drawn on a cleared canvas) follows from these headers alone.
///
/// **Compositing** is done by ``WebPAnimationCursor`` rather than libwebp's WebPAnimDecoder, because that decoder
/// can only go forward from frame 0: ours can start again from any key frame or saved canvas. It follows
/// WebPAnimDecoder's rules exactly, so both give the same pixels (the tests compare every frame).
struct WebPAnimationSource: AnimatedImageSource {
    /// What the demuxer says about one frame.
    struct FrameRecord: Sendable {
        /// The frame's bitstream (optional ALPH chunk, then VP8 or VP8L) within the file.
        var payload: Range<Int>
        /// Where the frame is drawn; the demuxer guarantees it lies inside the canvas.
        var rect: PixelRect
        /// Disposal to the background: its rectangle is cleared to transparent before the next frame.
        var disposesToBackground: Bool
        /// Alpha-blended over the canvas (otherwise its pixels replace the canvas's).
        var blends: Bool
        /// The bitstream has an alpha channel.
        var hasAlpha: Bool
        /// libwebp's key frame: drawn on a cleared canvas without blending, whatever came before.
        var isKeyFrame = false
    }

    let data: Data
    let decodeOptions: DecodeOptions
    let canvasSize: PixelSize
    let records: [FrameRecord]
    let frameDurations: [Double]
    let loopCount: Int
    let orientation: Orientation
    let declaresAlpha: Bool
    let frameSize: PixelSize

    var format: ImageFormat { .webp }
    var isReduced: Bool { decodeOptions.storedTargetSize(for: canvasSize, orientation: orientation) != nil }
    var heldByteCount: Int { 0 }
    var scale: Double { decodeOptions.resolvedScale }

    /// Whether `data` is an animated WebP (the VP8X animation flag); `false` for stills and anything else.
    static func isAnimated(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            var features = WebPBitstreamFeatures()
            return WebPGetFeatures(base, bytes.count, &features) == VP8_STATUS_OK && features.has_animation != 0
        }
    }

    /// Reads the container of `data`; `firstFrameOnly` keeps only the first frame and makes a still.
    init(data: Data, decodeOptions: DecodeOptions, firstFrameOnly: Bool) throws {
        let limits = decodeOptions.limits
        let parsed = try data.withUnsafeBytes { bytes in
            try WebPCoder.checkWhole(bytes)
            let container = try WebPContainer(bytes)
            let canvas = container.canvasSize
            try limits.check(canvas)
            let available = container.frameCount
            guard available > 0 else { throw ImageError(.badImageData, "WebP: the animation has no frames") }
            let count = firstFrameOnly ? 1 : available
            guard count <= limits.maxFrames else {
                throw ImageError(.imageTooLarge, "WebP: \(count) frames, over the limit of \(limits.maxFrames)")
            }
            let frames = try container.frameRecords(count: count, in: bytes)
            return (canvas, frames, container.loopCount, container.exifOrientation ?? .up, container.declaresAlpha)
        }
        self.data = data
        self.decodeOptions = decodeOptions
        canvasSize = parsed.0
        records = Self.markingKeyFrames(parsed.1.map(\.record), canvas: parsed.0)
        if records.count == 1 {
            frameDurations = [0]
            loopCount = 1
        } else {
            frameDurations = parsed.1.map { WebPAnimationDecoder.duration(milliseconds: $0.milliseconds) }
            loopCount = parsed.2
        }
        orientation = parsed.3
        declaresAlpha = parsed.4
        frameSize = decodeOptions.finishedSize(forStored: parsed.0, orientation: parsed.3)
    }

    func isIndependent(_ index: Int) -> Bool {
        records.indices.contains(index) && records[index].isKeyFrame
    }

    func makeCursor(startingAt index: Int) throws -> any AnimationCursor {
        guard isIndependent(index) else {
            throw ImageError(.badImageData, "WebP: frame \(index) is not a key frame")
        }
        return WebPAnimationCursor(source: self, nextFrameIndex: index)
    }

    /// libwebp's key-frame rule (WebPAnimDecoder): the first frame; a frame covering the whole canvas that has no
    /// alpha or is not blended; a frame after one that was disposed to the background and either covered the whole
    /// canvas or was itself a key frame (the canvas is then entirely transparent).
    private static func markingKeyFrames(_ frames: [FrameRecord], canvas: PixelSize) -> [FrameRecord] {
        var marked = frames
        for index in marked.indices {
            let frame = marked[index]
            let full = frame.rect.size == canvas
            if index == 0 || (full && (!frame.hasAlpha || !frame.blends)) {
                marked[index].isKeyFrame = true
            } else {
                let previous = marked[index - 1]
                marked[index].isKeyFrame = previous.disposesToBackground
                    && (previous.rect.size == canvas || previous.isKeyFrame)
            }
        }
        return marked
    }
}

extension WebPContainer {
    /// The first `count` frames' headers, with their bitstreams located as offsets into `bytes` (the data the
    /// container was made from).
    func frameRecords(count: Int, in bytes: UnsafeRawBufferPointer) throws
        -> [(record: WebPAnimationSource.FrameRecord, milliseconds: Int)]
    {
        guard let base = bytes.baseAddress else { throw ImageError(.badImageData, "WebP: the data is empty") }
        var frames: [(record: WebPAnimationSource.FrameRecord, milliseconds: Int)] = []
        frames.reserveCapacity(count)
        for number in 1...max(count, 1) {
            var iterator = WebPIterator()
            guard WebPDemuxGetFrame(demuxer, Int32(number), &iterator) != 0 else {
                throw ImageError(.badImageData, "WebP: frame \(number) cannot be read")
            }
            defer { WebPDemuxReleaseIterator(&iterator) }
            guard iterator.complete != 0, let fragment = iterator.fragment.bytes else {
                throw ImageError(.badImageData, "WebP: frame \(number) is incomplete")
            }
            let start = UnsafeRawPointer(fragment) - base
            guard start >= 0, start + iterator.fragment.size <= bytes.count else {
                throw ImageError(.badImageData, "WebP: frame \(number) lies outside the file")
            }
            let record = WebPAnimationSource.FrameRecord(
                payload: start..<(start + iterator.fragment.size),
                rect: PixelRect(x: Int(iterator.x_offset), y: Int(iterator.y_offset),
                                width: Int(iterator.width), height: Int(iterator.height)),
                disposesToBackground: iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND,
                blends: iterator.blend_method == WEBP_MUX_BLEND,
                hasAlpha: iterator.has_alpha != 0)
            frames.append((record, Int(iterator.duration)))
        }
        return frames
    }
}
