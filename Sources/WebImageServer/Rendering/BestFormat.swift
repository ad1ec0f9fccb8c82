import WebImage

/// imgproxy Pro's best format (`format:best`), in the open: the result is measured (`PixelBuffer.complexity`),
/// encoded in each candidate format that can hold it (losslessly below the complexity threshold, at the request's
/// quality above it), and the smallest encoding is the answer.
public struct BestFormatSettings: Sendable, Hashable {
    /// Below this complexity the candidates that can are encoded losslessly (PNG, lossless WebP, lossless JPEG
    /// XL); at or above it, lossy (JPEG, WebP, AVIF, JPEG XL). Default 5.5 (imgproxy's
    /// `IMGPROXY_BEST_FORMAT_COMPLEXITY_THRESHOLD`, on this server's measure).
    public var complexityThreshold = 5.5
    /// A result with more pixels than this is encoded once, in the format its complexity suggests, instead of in
    /// every candidate (imgproxy's `IMGPROXY_BEST_FORMAT_MAX_RESOLUTION`); `nil` tries every candidate always.
    public var maximumPixels: Int?
    /// Whether a URL that names no format is answered in the best format (`IMGPROXY_BEST_FORMAT_BY_DEFAULT`).
    public var byDefault = false
    /// Whether `format:best` still passes SVG sources and the formats `skip_processing` names on as they are
    /// (`IMGPROXY_BEST_FORMAT_ALLOW_SKIPS`); by default they are rendered.
    public var allowsSkips = false

    /// imgproxy's defaults.
    public init() {}

    /// The formats a best-format request is tried in: the preferred formats, then those `Accept` takes (AVIF,
    /// WebP), each once, only those the coders write.
    static func candidates(preferred: [OutputFormat], accepted: [OutputFormat], coders: ImageCoders)
        -> [OutputFormat]
    {
        var candidates: [OutputFormat] = []
        for format in preferred + accepted where !candidates.contains(format) && format != .svg
            && coders.canEncode(to: format.imageFormat) {
            candidates.append(format)
        }
        return candidates.isEmpty ? [.jpeg] : candidates
    }

    /// The candidates that can hold `image`: animation-capable ones for an animation, transparency-capable ones
    /// for an image with transparent pixels (all of them when none can).
    static func fitting(_ candidates: [OutputFormat], for image: Image) -> [OutputFormat] {
        var fitting = candidates
        if image.frames.count > 1 {
            let animated = fitting.filter(\.holdsAnimation)
            if !animated.isEmpty { fitting = animated }
        }
        if image.hasAlpha, image.pixels.containsTransparency {
            let transparent = fitting.filter(\.holdsTransparency)
            fitting = transparent.isEmpty ? [.png] : transparent
        }
        return fitting
    }

    /// How each of `fitting` is encoded for an image of `complexity` and `pixels` pixels: (format, lossless).
    /// Lossless where it pays and the format has it, lossy otherwise; GIF (a palette of each frame) only for an
    /// animation, where it often is the smallest; above ``maximumPixels``, the one encoding that suits the
    /// complexity best.
    func attempts(_ fitting: [OutputFormat], complexity: Double, pixels: Int, animated: Bool = false)
        -> [(OutputFormat, Bool)]
    {
        let lossless = complexity < complexityThreshold
        let losslessFormats: Set<OutputFormat> = [.png, .webp, .jxl]
        let lossyFormats: Set<OutputFormat> = [.jpeg, .webp, .avif, .jxl]
        var attempts = fitting.compactMap { format -> (OutputFormat, Bool)? in
            if lossless, losslessFormats.contains(format) { return (format, true) }
            if !lossless, lossyFormats.contains(format) { return (format, false) }
            return nil
        }
        // Nothing of the kind the complexity asks for: the other kind, then anything that holds the image.
        if attempts.isEmpty {
            attempts = fitting.compactMap { format in
                losslessFormats.contains(format) ? (format, true) : lossyFormats.contains(format) ? (format, false)
                                                                                                  : nil
            }
        }
        if animated, fitting.contains(.gif), !attempts.contains(where: { $0.0 == .gif }) {
            attempts.append((.gif, false))
        }
        if attempts.isEmpty { attempts = fitting.map { ($0, false) } }
        if let maximumPixels, pixels > maximumPixels {
            // The order of preference when only one is encoded: the newest codec the client takes.
            let order: [OutputFormat] = lossless ? [.webp, .jxl, .png] : [.avif, .jxl, .webp, .jpeg]
            let pick = order.lazy.compactMap { format in attempts.first { $0.0 == format } }.first ?? attempts[0]
            return [pick]
        }
        return attempts
    }

    /// What a result key must say about these settings (nothing at their defaults).
    var cacheKey: String {
        var key = ""
        if complexityThreshold != 5.5 { key += ":t\(complexityThreshold)" }
        if let maximumPixels { key += ":mp\(maximumPixels)" }
        if allowsSkips { key += ":skips" }
        return key
    }
}
