import Foundation
import WebImage

extension SourceDrawing {
    /// The identity of every render's early stop (see ``earlyStop(for:)``).
    static let earlyStopIdentity = "webimage serve source"

    /// The early stop for fetching `request`'s source: its download may end once the bytes are all the decode
    /// that ``prepare(_:request:)`` plans from the source's headers reads (a progressive JPEG made into a small
    /// thumbnail, the first frame of an animated GIF or WebP made into a still; see ``EarlyStop``). A source that
    /// is passed on, trimmed or decoded at a larger scale is read whole, as is every source of a request that limits
    /// the source's bytes, and every GIF or WebP of one that limits its pixels: a prefix would pass a limit the whole
    /// file breaks.
    ///
    /// Every render's rule has one identity, so that renders of one source still share its download: it stops
    /// where the render that started it is served, and one that needs more reads the whole file
    /// (``SourceLoader/bytes(for:earlyStop:)``).
    func earlyStop(for request: RenderRequest) -> EarlyStop? {
        if let limit = request.options.limits.maximumSourceBytes, limit > 0 { return nil }
        if request.options.raw { return nil }
        // The URL's pixel limits count an animation's frames (imgproxy's rule), which the first frame of a GIF or
        // WebP does not tell: under such a limit those are read whole.
        let limits = request.options.limits
        let countsFrames = limits.maximumSourcePixels != nil || limits.maximumAnimationFramePixels != nil
        return EarlyStop(identity: Self.earlyStopIdentity) { header in
            if countsFrames, [.gif, .webp].contains(ImageFormat.detect(header)) { return nil }
            guard case .decode(_, _, let plan)? = try? prepare(header, request: request),
                  !plan.usesEmbeddedThumbnail else { return nil }
            return plan.decodeOptions
        }
    }
}
