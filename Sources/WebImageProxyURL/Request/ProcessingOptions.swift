import WebImageCore

/// What a proxy URL asks for: imgproxy's open-source processing options plus ours, `frame` and `round`. Values are
/// as written in the URL; ``ResizePlan`` turns them into pixels.
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
    /// `format:best`: the server encodes the result in each format it may answer in and keeps the smallest
    /// (imgproxy Pro's best format); ``format`` is then `nil`.
    public var bestFormat = false
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
    /// Whether metadata (EXIF, XMP, IPTC) is left out of the output; `nil` until parsing settles the server's
    /// default (strip).
    public var stripMetadata: Bool?
    /// Ignored by processing; changing it changes the URL, so caches treat it as a new image.
    public var cacheBuster = ""
    /// A Unix time after which the URL is refused (404, as imgproxy answers); `nil` never expires.
    public var expires: Int?
    /// The output must fit in this many bytes: quality is lowered until it does (JPEG, WebP, AVIF). 0 is no limit.
    public var maxBytes = 0
    /// The URL's autoquality settings, over the server's; `nil` when it gives none.
    public var autoquality: Autoquality?
    /// One frame of an animation (0-based) instead of all of them.
    public var frame: Int?
    /// Corner radius in CSS pixels (multiplied by ``dpr``); 0 is square corners.
    public var cornerRadius = 0.0
    /// The presets the URL named, in order (already applied to the other fields).
    public var presets: [String] = []

    /// The result is at least this wide, in CSS pixels (multiplied by ``dpr``): the scale grows to reach it.
    public var minWidth = 0
    /// The result is at least this tall, in CSS pixels (multiplied by ``dpr``): the scale grows to reach it.
    public var minHeight = 0
    /// Multiplies the box (or, without one, the source's size) horizontally; 1 is none.
    public var zoomX = 1.0
    /// Multiplies the box (or, without one, the source's size) vertically; 1 is none.
    public var zoomY = 1.0
    /// A result smaller than the box is extended to the box with the background, placed by this gravity.
    public var extend: Gravity?
    /// A result whose aspect ratio differs from the box's is extended to that ratio, placed by this gravity.
    public var extendAspectRatio: Gravity?
    /// Background added around the result, in CSS pixels (multiplied by ``dpr``).
    public var padding = Padding()
    /// Whether the EXIF orientation is applied; `nil` is the server's default (applied).
    public var autoRotate: Bool?
    /// Mirrors the result left to right.
    public var flipHorizontal = false
    /// Mirrors the result top to bottom.
    public var flipVertical = false
    /// Blocks of this many pixels of the result, each one colour; 0 is none.
    public var pixelate = 0
    /// Borders of one colour cut away before anything else.
    public var trim: Trim?
    /// The server's watermark image drawn over the result.
    public var watermark: Watermark?
    /// Quality per output format, over ``quality``'s and the server's defaults.
    public var formatQuality: [OutputFormat: Int] = [:]
    /// Sources in these formats (imgproxy's names, `jpeg` for JPEG) are answered as they came.
    public var skipProcessing: Set<String> = []
    /// The source is streamed as it came: no processing, no format conversion.
    public var raw = false
    /// The name a download of the result gets (`Content-Disposition`), without its extension.
    public var filename: String?
    /// `Content-Disposition: attachment` instead of `inline`.
    public var returnAttachment = false
    /// Whether copyright (EXIF artist and copyright, IPTC by-line, credit and copyright, XMP rights and creators)
    /// survives a strip of metadata; `nil` until parsing settles the server's default (kept).
    public var keepCopyright: Bool?
    /// Whether the ICC profile is removed (pixels converted to sRGB first); `nil` is the server's default.
    public var stripColorProfile: Bool?
    /// Whether a source's embedded thumbnail (HEIC and AVIF only, as in imgproxy) is used instead of its main image,
    /// whatever the thumbnail's size; parsing settles the server's default, leaving `true` or `nil` (the main image).
    public var enforceThumbnail: Bool?
    /// Whether a source with more than 8 bits a channel keeps them in an answer whose format can hold them (PNG,
    /// AVIF, JPEG XL); parsing settles the server's default, leaving `true` or `nil` (8 bits).
    public var preserveHDR: Bool?
    /// Per-URL limits on the source and the result, over the server's (only when the server allows them).
    public var limits = SecurityLimits()

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
        key += "/q:\(quality)/f:\(bestFormat ? "best" : format?.rawValue ?? "-")/bl:\(blur)/sh:\(sharpen)/rot:\(rotate)/dpr:\(dpr)"
        if let background { key += "/bg:\(background.r):\(background.g):\(background.b):\(background.a)" }
        key += "/sm:\(stripMetadata.map { $0 ? "1" : "0" } ?? "-")/mb:\(maxBytes)"
        key += "/frame:\(frame.map(String.init) ?? "-")/round:\(cornerRadius)"
        key += "/min:\(minWidth):\(minHeight)/z:\(zoomX):\(zoomY)"
        if let extend { key += "/ex:" + gravityKey(extend) }
        if let extendAspectRatio { key += "/exar:" + gravityKey(extendAspectRatio) }
        if padding != Padding() { key += "/pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)" }
        key += "/ar:\(autoRotate.map { $0 ? "1" : "0" } ?? "-")/fl:\(flipHorizontal ? 1 : 0):\(flipVertical ? 1 : 0)"
        key += "/pix:\(pixelate)"
        if let trim {
            let color = trim.color.map { "\($0.r).\($0.g).\($0.b)" } ?? "-"
            key += "/t:\(trim.threshold):\(color):\(trim.equalHorizontal ? 1 : 0):\(trim.equalVertical ? 1 : 0)"
        }
        if let watermark {
            key += "/wm:\(watermark.opacity):\(watermark.position.map(\.rawValue) ?? "re"):\(watermark.x):\(watermark.y)"
                + ":\(watermark.scale)"
        }
        for (format, quality) in formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            key += "/fq:\(format.rawValue):\(quality)"
        }
        if !skipProcessing.isEmpty { key += "/skp:" + skipProcessing.sorted().joined(separator: ":") }
        key += "/raw:\(raw ? 1 : 0)/kcr:\(keepCopyright.map { $0 ? "1" : "0" } ?? "-")"
        key += "/scp:\(stripColorProfile.map { $0 ? "1" : "0" } ?? "-")"
        key += "/eth:\(enforceThumbnail.map { $0 ? "1" : "0" } ?? "-")/ph:\(preserveHDR.map { $0 ? "1" : "0" } ?? "-")"
        if limits != SecurityLimits() { key += "/lim:\(limits.cacheKey)" }
        if let autoquality { key += "/aq:\(autoquality.cacheKey)" }
        return key + "/cb:" + cacheBuster  // last: the only free text
    }
}
