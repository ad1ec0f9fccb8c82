import WebImage

/// What a proxy URL asks for: imgproxy's processing options (the subset the issue's contract names) plus ours,
/// `frame` and `round`. Values are as written in the URL; ``ResizePlan`` turns them into pixels.
public struct ProcessingOptions: Sendable, Hashable {
    /// How the source is scaled to the requested box (imgproxy's resizing types).
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Keeps the aspect ratio, inside the box.
        case fit
        /// Keeps the aspect ratio, covering the box; what sticks out is cropped by the gravity.
        case fill
        /// `fill`, but a source smaller than the box is not enlarged: it is cropped to the box's aspect ratio.
        case fillDown = "fill-down"
        /// Exactly the box, aspect ratio ignored.
        case force
        /// `fill` when source and box have the same orientation (both portrait or both landscape), else `fit`.
        case auto
    }

    /// The area of a crop before resizing: each side absolute pixels when ≥ 1, a fraction of the source when
    /// below 1, the whole side when 0.
    public struct Crop: Sendable, Hashable {
        /// Width: pixels (≥ 1), a fraction of the source's width (< 1), or all of it (0).
        public var width: Double
        /// Height: pixels (≥ 1), a fraction of the source's height (< 1), or all of it (0).
        public var height: Double
        /// Where the area sits; `nil` uses the request's ``ProcessingOptions/gravity``.
        public var gravity: Gravity?
    }

    /// How the source is scaled. Default ``ResizingType/fit``.
    public var resizingType = ResizingType.fit
    /// Requested width in CSS pixels (multiplied by ``dpr``); 0 follows the height and the aspect ratio.
    public var width = 0
    /// Requested height in CSS pixels (multiplied by ``dpr``); 0 follows the width and the aspect ratio.
    public var height = 0
    /// Whether a source smaller than the box is scaled up. Default `false`.
    public var enlarge = false
    /// Where crops are taken. Default the centre.
    public var gravity = Gravity.center
    /// A crop of the source before it is resized.
    public var crop: Crop?
    /// Lossy quality, 1–100; 0 is the server's default.
    public var quality = 0
    /// The output format; `nil` keeps the source's (or negotiates one with `Accept`).
    public var format: OutputFormat?
    /// Gaussian blur sigma in pixels of the result; 0 is none.
    public var blur = 0.0
    /// Sharpening sigma in pixels of the result; 0 is none.
    public var sharpen = 0.0
    /// Clockwise rotation in degrees, a multiple of 90, applied after the EXIF orientation.
    public var rotate = 0
    /// Device pixel ratio: the width, height, and corner radius are multiplied by it. Default 1.
    public var dpr = 1.0
    /// The colour transparent pixels are flattened onto; `nil` keeps transparency where the format has it.
    public var background: RGBA?
    /// Whether metadata (EXIF and the like) is left out of the output; `nil` is the server's default (strip).
    public var stripMetadata: Bool?
    /// Ignored by processing; changing it changes the URL, so caches treat it as a new image.
    public var cacheBuster = ""
    /// A Unix time after which the URL is refused with 410.
    public var expires: Int?
    /// The output must fit in this many bytes: quality is lowered until it does (JPEG, WebP, AVIF). 0 is no limit.
    public var maxBytes = 0
    /// One frame of an animation (0-based) instead of all of them.
    public var frame: Int?
    /// Corner radius in CSS pixels (multiplied by ``dpr``); 0 is square corners.
    public var cornerRadius = 0.0
    /// The presets the URL named, in order (already applied to the other fields).
    public var presets: [String] = []

    /// The defaults: fit, no size (the source's), centre gravity, no effects.
    public init() {}
}

extension ProcessingOptions {
    /// The options as part of a result cache key: every field that changes the pixels or bytes (and the cache
    /// buster, which exists to change keys), in a fixed order; the expiry and the preset names are left out because
    /// they do not change the result.
    ///
    /// Written out field by field: interpolating the whole struct would go through reflection, which cost a
    /// quarter of the CPU time of a cache hit.
    package var cacheKey: String {
        func gravityKey(_ gravity: Gravity) -> String { "\(gravity.anchor.rawValue):\(gravity.x):\(gravity.y)" }
        var key = "rs:\(resizingType.rawValue):\(width):\(height):\(enlarge ? 1 : 0)/g:\(gravityKey(gravity))"
        if let crop {
            key += "/c:\(crop.width):\(crop.height):" + (crop.gravity.map(gravityKey) ?? "-")
        }
        key += "/q:\(quality)/f:\(format?.rawValue ?? "-")/bl:\(blur)/sh:\(sharpen)/rot:\(rotate)/dpr:\(dpr)"
        if let background { key += "/bg:\(background.r):\(background.g):\(background.b):\(background.a)" }
        key += "/sm:\(stripMetadata.map { $0 ? "1" : "0" } ?? "-")/mb:\(maxBytes)"
        key += "/frame:\(frame.map(String.init) ?? "-")/round:\(cornerRadius)"
        return key + "/cb:" + cacheBuster  // last: the only free text
    }
}
