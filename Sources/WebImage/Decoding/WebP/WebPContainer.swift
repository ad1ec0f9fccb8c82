import CWebP

/// The RIFF container of a WebP file as libwebp's demuxer sees it: canvas, frames, loop count, background
/// colour, metadata chunks. Parsing reads chunk headers only (no pixels), so it is safe to do before limits are
/// checked. The demuxer points into `bytes`, which must outlive this object.
final class WebPContainer {
    let demuxer: OpaquePointer

    /// Parses a complete file; throws `ImageError.Code.badImageData` when it is not a valid, whole WebP file.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { throw ImageError(.badImageData, "WebP: the data is empty") }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demuxer = WebPDemux(&data) else {
            throw ImageError(.badImageData, "WebP: the container is corrupt or truncated")
        }
        self.demuxer = demuxer
    }

    deinit { WebPDemuxDelete(demuxer) }

    /// The canvas every frame is drawn on.
    var canvasSize: PixelSize {
        PixelSize(width: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)),
                  height: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT)))
    }

    /// Frames in the file.
    var frameCount: Int { Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT)) }

    /// Plays of the animation from the ANIM chunk; 0 means forever.
    var loopCount: Int { Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT)) }

    /// The ANIM chunk's background colour. libwebp's animation decoder (like browsers) does not paint it:
    /// disposal clears to transparent, as the WebP specification allows.
    var backgroundColor: RGBA {
        // Stored as bytes B, G, R, A; read little-endian that is A in the top byte.
        let value = WebPDemuxGetI(demuxer, WEBP_FF_BACKGROUND_COLOR)
        return RGBA(UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
                    UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 24))
    }

    /// The VP8X alpha flag: some frame may hold transparency.
    var declaresAlpha: Bool {
        WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & ALPHA_FLAG.rawValue != 0
    }

    /// The orientation from the EXIF chunk, if there is one with a valid tag.
    var exifOrientation: Orientation? {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "EXIF", 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return EXIFReader.orientation(in: UnsafeRawBufferPointer(start: bytes, count: iterator.chunk.size))
    }
}
