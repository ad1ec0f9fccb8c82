import CWebP

extension WebPContainer {
    /// Each frame's rectangle, duration in milliseconds, transparency and disposal, from the ANMF chunk headers
    /// (no pixel is decoded).
    struct FrameHeader {
        let rect: PixelRect
        let milliseconds: Int
        let hasAlpha: Bool
        let disposesToBackground: Bool
    }

    /// The frame headers in order; empty when the demuxer holds none.
    var frameHeaders: [FrameHeader] {
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return [] }
        defer { WebPDemuxReleaseIterator(&iterator) }
        var headers: [FrameHeader] = []
        repeat {
            headers.append(FrameHeader(
                rect: PixelRect(x: Int(iterator.x_offset), y: Int(iterator.y_offset),
                                width: Int(iterator.width), height: Int(iterator.height)),
                milliseconds: Int(iterator.duration), hasAlpha: iterator.has_alpha != 0,
                disposesToBackground: iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND))
        } while WebPDemuxNextFrame(&iterator) != 0
        return headers
    }

    /// Whether the composited animation can show a transparent pixel (see ``CanvasOpacity``): the VP8X alpha
    /// flag, or frames that leave part of the transparent canvas uncovered.
    func mayShowTransparency(frames: [FrameHeader]) -> Bool {
        if declaresAlpha { return true }
        var opacity = CanvasOpacity(canvas: canvasSize)
        for frame in frames {
            opacity.draw(rect: frame.rect, declaresTransparency: frame.hasAlpha,
                         disposal: frame.disposesToBackground ? .clearToTransparent : .keep)
        }
        return opacity.hasShownTransparency
    }
}
