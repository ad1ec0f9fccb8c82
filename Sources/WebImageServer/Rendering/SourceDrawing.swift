import Foundation
import WebImage

/// One source's bytes into an answer's bytes, on an executor thread: passed through as they came when the URL
/// says so (`raw`, or `skip_processing` naming the source's format) and the source is an image, an SVG source
/// sanitised and answered as SVG (always with `raw`) unless the URL names a raster format (imgproxy's default;
/// with `--always-rasterize-svg`, unless the URL names SVG or skips SVG processing), else decoded at the size the
/// answer needs, checked against the limits, rendered and encoded in the format imgproxy's rules pick.
struct SourceDrawing: Sendable {
    let renderer: ProxyRenderer
    let metrics: ProxyMetrics
    let configuration: ProxyConfiguration

    /// What a source needs before it is drawn: passed on (as it came, or sanitised), or decoded by a plan.
    enum Preparation {
        case passOn(Data, ImageFormat)
        case decode(properties: ImageProperties, output: OutputFormat, plan: SourceDecodePlan)
    }

    /// A source ready to be rendered: passed on as it is, or decoded under the plan made from its headers.
    enum Decoded: Sendable {
        case passOn(Data, ImageFormat)
        case image(Image, output: OutputFormat, plan: SourceDecodePlan)
    }

    /// The answer's bytes and their format: ``decode(_:request:)`` then ``render(_:request:)``.
    func draw(_ source: Data, request: RenderRequest) throws -> (Data, ImageFormat) {
        try render(try decode(source, request: request), request: request)
    }

    /// Whether `source`'s format is decoded in a helper process (``IsolatedCoder``): its decode is then a wait,
    /// which should hold no render slot.
    func decodesInHelper(_ source: Data) -> Bool {
        let format = ImageFormat.detect(source)
        return renderer.coders.coders.contains { ($0 as? IsolatedCoder)?.formats.contains(format) == true }
    }

    /// The source passed on, or decoded at the size the answer needs under the plan made from its header (one
    /// exchange with a decode helper for an isolated format: the properties come back with the pixels), checked
    /// against the limits and the render's memory budget first.
    func decode(_ source: Data, request: RenderRequest) throws -> Decoded {
        if let (data, format) = try passOn(source, request: request) { return .passOn(data, format) }
        var planned: (output: OutputFormat, plan: SourceDecodePlan)?
        let decodeStarted = ContinuousClock.now
        let image = try renderer.coders.decode(source, planning: { properties in
            let (output, plan) = try self.plan(for: properties, request: request)
            let needed = RenderMemoryEstimate.bytes(properties: properties, plan: plan, options: request.options)
            if needed > configuration.renderMemoryBudget {
                metrics.refusedOverMemoryBudget()
                throw ProxyError(status: 422, "the render would hold about \(needed >> 20) MB of pixels, over its "
                                 + "budget of \(configuration.renderMemoryBudget >> 20) MB")
            }
            planned = (output, plan)
            return plan.decodeOptions
        })
        metrics.decoded(after: ContinuousClock.now - decodeStarted)
        guard let (output, plan) = planned else {
            throw ProxyError(status: 500, "the source was decoded without a plan")
        }
        if plan.usesEmbeddedThumbnail {
            try checkLimits(size: image.size, frames: image.frames.count, options: request.options)
        }
        return .image(image, output: output, plan: plan)
    }

    /// The answer's bytes and their format, from a decoded source.
    func render(_ decoded: Decoded, request: RenderRequest) throws -> (Data, ImageFormat) {
        switch decoded {
        case .passOn(let data, let format): return (data, format)
        case .image(let image, let output, let plan):
            return try render(image, output: output, plan: plan, request: request)
        }
    }

    private func render(_ image: Image, output: OutputFormat, plan: SourceDecodePlan, request: RenderRequest) throws
        -> (Data, ImageFormat)
    {
        let options = request.options
        var rendering = options
        if plan.picksFrame, image.frames.count == 1 { rendering.frame = nil }  // the decoder picked it
        // imgproxy's order: the URL's quality, the URL's for this format, the server's for it, the server's.
        let quality = { (format: OutputFormat) -> Int in
            options.quality > 0 ? options.quality
                : [options.formatQuality[format], configuration.formatQuality[format]].compactMap { $0 }
                    .first { $0 > 0 } ?? 0
        }
        let geometry = plan.usesEmbeddedThumbnail ? nil : plan.geometry
        if let best = request.bestFormats {
            let (data, format) = try renderer.render(image, options: rendering, bestOf: best,
                                                     settings: configuration.bestFormat, quality: quality,
                                                     geometry: geometry)
            return (data, format.imageFormat)
        }
        rendering.quality = quality(output)
        let data = try renderer.render(image, options: rendering, format: output, geometry: geometry)
        return (data, output.imageFormat)
    }

    /// Everything decided before a pixel is decoded, from the source's headers: whether it is passed on, and if
    /// not, its properties, the answer's format and the decode plan. The early stop of a source's download asks
    /// the same question of the first bytes (``earlyStop(for:)``).
    func prepare(_ source: Data, request: RenderRequest) throws -> Preparation {
        if let (data, format) = try passOn(source, request: request) { return .passOn(data, format) }
        let properties = try renderer.coders.properties(of: source)
        let (output, plan) = try plan(for: properties, request: request)
        return .decode(properties: properties, output: output, plan: plan)
    }

    /// The source as it is answered without decoding (`raw`, a skipped format, a sanitised SVG), or `nil` when it
    /// is decoded; throws for a source the URL cannot be answered with.
    private func passOn(_ source: Data, request: RenderRequest) throws -> (Data, ImageFormat)? {
        let options = request.options
        let detected = ImageFormat.detect(source)
        // `raw` passes an image on as it came, never anything else: an origin's HTML or text answered from this
        // server's domain would be a page of the attacker's on it.
        if options.raw, detected == .unknown {
            throw ProxyError(status: 422, "the source is not an image this server decodes: its format is unknown")
        }
        // Before raw and skip_processing: an SVG that is passed on is always a sanitised one.
        if detected == .svg, options.raw || passesSVGOn(options) {
            // A gzipped document (`.svgz`) is answered as plain SVG: the sanitiser reads text.
            let document = try Gzip.inflatedIfCompressed(source)
            do {
                return (try SVGSanitizer.sanitized(document), .svg)
            } catch {
                throw ProxyError(status: 422, "the SVG source is not a well-formed SVG document: \(error.reason)")
            }
        }
        if options.raw { return (source, detected) }
        // The URL's format decides, as in imgproxy: one negotiated from `Accept` does not stop the skip.
        if let name = ProcessingOptions.sourceFormatName(of: detected), options.skipProcessing.contains(name),
           options.format == nil || options.format?.imageFormat == detected, !rendersEveryFormat(options) {
            return (source, detected)
        }
        if options.format == .svg {
            throw ProxyError(status: 422, "this server cannot write svg from a \(detected.rawValue) source")
        }
        return nil
    }

    /// The answer's format and the decode plan for a source described by `properties`, after the URL's limits.
    private func plan(for properties: ImageProperties, request: RenderRequest) throws
        -> (output: OutputFormat, plan: SourceDecodePlan)
    {
        let options = request.options
        // An embedded thumbnail is what imgproxy checks the limits against: it is the source from here on.
        let thumbnailFirst = options.enforceThumbnail == true
            && SourceDecodePlan.embeddedThumbnailFormats.contains(properties.format)
        if !thumbnailFirst { try checkLimits(size: properties.size, frames: properties.frameCount, options: options) }
        let output = outputFormat(for: properties, request: request)
        let plan = try SourceDecodePlan(
            properties: properties, options: options, output: output,
            limits: DecodeLimits(maxPixels: options.limits.maximumSourcePixels ?? configuration.maximumSourcePixels,
                                 maxTotalPixels: configuration.maximumAnimationPixels),
            maximumFrames: options.limits.maximumAnimationFrames ?? renderer.maximumFrames)
        return (output, plan)
    }

    /// Whether an SVG source is answered as (sanitised) SVG, by imgproxy's rule: when the URL names SVG, or names
    /// no format unless the server always rasterises SVG, which `skip_processing:svg` overrides. A format from
    /// `Accept` does not count: it is what a raster answer would be.
    private func passesSVGOn(_ options: ProcessingOptions) -> Bool {
        if rendersEveryFormat(options) { return false }
        return switch options.format {
        case .svg?: true
        case nil: !configuration.alwaysRasterizesSVG || options.skipProcessing.contains("svg")
        default: false
        }
    }

    /// Whether `format:best` renders sources that would otherwise be passed on (SVG, `skip_processing`), as it
    /// does unless the server allows skips.
    private func rendersEveryFormat(_ options: ProcessingOptions) -> Bool {
        options.bestFormat && !configuration.bestFormat.allowsSkips
    }

    /// The URL's (or `Accept`'s) format, else imgproxy's preferred-formats rule; a format this server does not
    /// write falls back to PNG or JPEG.
    private func outputFormat(for properties: ImageProperties, request: RenderRequest) -> OutputFormat {
        // imgproxy's test for an answer that may be transparent: a background flattens everything; padding and
        // extending add transparent areas to an opaque source.
        let options = request.options
        let transparent = options.background == nil
            && (properties.hasAlpha || options.padding != ProcessingOptions.Padding() || options.extend != nil)
        let isAnimated = properties.frameCount > 1 && options.frame == nil
        if let best = request.bestFormats {
            // What the decode is planned for: the first candidate that holds the answer (the render tries them
            // all). A GIF's or WebP's header (an early stop's plan) does not count its frames: such a source may
            // be animated.
            let mayAnimate = isAnimated || (options.frame == nil && [.gif, .webp].contains(properties.format))
            return best.first { (!mayAnimate || $0.holdsAnimation) && (!transparent || $0.holdsTransparency) }
                ?? best[0]
        }
        let output = request.format ?? OutputFormat.matchingSource(
            properties.format, hasAlpha: transparent,
            isAnimated: isAnimated, preferred: configuration.preferredFormats)
        guard renderer.coders.canEncode(to: output.imageFormat) else { return transparent ? .png : .jpeg }
        return output
    }

    /// The URL's own security limits (imgproxy's rule: an animation's frames each against the frame limit when
    /// one is set, else all frames together against the source limit).
    private func checkLimits(size: PixelSize, frames frameCount: Int, options: ProcessingOptions)
        throws(ProxyError)
    {
        let limits = options.limits
        let frames = max(1, frameCount), pixels = size.area
        if frames > 1, let framePixels = limits.maximumAnimationFramePixels, framePixels > 0 {
            guard pixels <= framePixels else {
                throw ProxyError(status: 422, "a frame has \(pixels) pixels, over this URL's limit of \(framePixels)")
            }
            return
        }
        if let sourcePixels = limits.maximumSourcePixels, pixels * frames > sourcePixels {
            throw ProxyError(status: 422, "the source has \(pixels * frames) pixels, over this URL's limit of "
                             + "\(sourcePixels)")
        }
    }
}
