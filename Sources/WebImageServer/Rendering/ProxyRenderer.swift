import Foundation
import WebImage

/// Turns a decoded source into the bytes of an answer, in imgproxy's order: the frame choice, trimming, rotation
/// and flipping, the crop of the source, scaling, the crop of a fill, blur, sharpening, pixelation, rounded
/// corners, extending (to the box, then to its aspect ratio), padding, the background, the watermark, and
/// encoding (lowering the quality until `max_bytes` is met).
///
/// Animations stay animated when the output format holds animation: every frame goes through the same steps
/// (placed by the first frame for the smart gravity) and keeps its duration.
public struct ProxyRenderer: Sendable {
    /// The coders that encode results.
    public var coders: ImageCoders
    /// Quality (1–100) when the URL gives none: imgproxy's default, 80.
    public var defaultQuality: Int
    /// Animations with more frames are refused (422): each frame costs a resize and an encode.
    public var maximumFrames: Int
    /// Results (and scaled images before a fill's crop) with more pixels are refused (422).
    public static let maximumResultPixels = 50_000_000
    /// Where transform and encode times go, when the renderer belongs to a proxy.
    let metrics: ProxyMetrics?
    /// The image the `watermark` option draws; without one the option draws nothing, as in imgproxy.
    let watermarks: WatermarkStore
    /// How qualities are searched for, when they are (``AutoqualitySettings``).
    let autoquality: AutoqualitySettings

    /// A renderer encoding with `coders`, drawing `watermark` for the `watermark` option.
    public init(coders: ImageCoders = .shared, defaultQuality: Int = 80, maximumFrames: Int = 500,
                watermark: ProxyWatermark? = nil) {
        self.init(coders: coders, defaultQuality: defaultQuality, maximumFrames: maximumFrames, metrics: nil,
                  watermarks: WatermarkStore(watermark))
    }

    init(coders: ImageCoders, defaultQuality: Int = 80, maximumFrames: Int = 500, metrics: ProxyMetrics?,
         watermarks: WatermarkStore = WatermarkStore(), autoquality: AutoqualitySettings = AutoqualitySettings()) {
        self.coders = coders
        self.autoquality = autoquality
        self.defaultQuality = defaultQuality
        self.maximumFrames = maximumFrames
        self.metrics = metrics
        self.watermarks = watermarks
    }

    /// The encoded result of `options` applied to `source`, in `format`.
    /// - Throws: `ProxyError`: 400 for a frame the source does not have, 422 for a source over the frame limit
    ///   or that cannot be processed, 500 when encoding fails.
    public func render(_ source: Image, options: ProcessingOptions, format: OutputFormat) throws(ProxyError) -> Data {
        try render(source, options: options, format: format, geometry: nil)
    }

    /// The image ``render(_:options:format:)`` encodes: `options` applied to `source` (the frames `format` keeps),
    /// before encoding. For callers that encode themselves, and for measuring the processing alone.
    /// - Throws: `ProxyError` as ``render(_:options:format:)`` does, but for encoding.
    public func image(for source: Image, options: ProcessingOptions, format: OutputFormat) throws(ProxyError)
        -> Image
    {
        do {
            return try transform(try selectFrames(source, options: options, format: format), options: options,
                                 geometry: nil, declared: source.orientation)
        } catch {
            throw Self.answer(for: error)
        }
    }

    /// Like ``render(_:options:format:)``, for a source decoded smaller than it is (``SourceDecodePlan``): the
    /// geometry is worked out on `geometry`, the full source's size after rotation, so the result has the size
    /// a full decode would give.
    func render(_ source: Image, options: ProcessingOptions, format: OutputFormat, geometry: PixelSize?)
        throws(ProxyError) -> Data
    {
        do {
            let transformStarted = ContinuousClock.now
            let image = try transform(try selectFrames(source, options: options, format: format), options: options,
                                      geometry: geometry, declared: source.orientation)
            let encodeStarted = ContinuousClock.now
            metrics?.transformed(after: encodeStarted - transformStarted)
            let data = try encode(image, options: options, format: format)
            metrics?.encoded(after: ContinuousClock.now - encodeStarted)
            return data
        } catch {
            throw Self.answer(for: error)
        }
    }

    /// Like ``render(_:options:format:geometry:)`` for `format:best`: the result made once, then encoded in
    /// each of `candidates` that can hold it, as `settings` decide (``BestFormatSettings``), each at its
    /// `quality`; the smallest encoding and its format. The encodings run one after the other on this render's
    /// slot, within its budget.
    func render(_ source: Image, options: ProcessingOptions, bestOf candidates: [OutputFormat],
                settings: BestFormatSettings, quality: (OutputFormat) -> Int, geometry: PixelSize?)
        throws(ProxyError) -> (Data, OutputFormat)
    {
        do {
            let transformStarted = ContinuousClock.now
            // Frames are kept when any candidate can hold them; one that cannot encodes the first.
            let framesFormat = candidates.first(where: \.holdsAnimation) ?? candidates[0]
            let image = try transform(try selectFrames(source, options: options, format: framesFormat),
                                      options: options, geometry: geometry, declared: source.orientation)
            let encodeStarted = ContinuousClock.now
            metrics?.transformed(after: encodeStarted - transformStarted)
            let fitting = BestFormatSettings.fitting(candidates, for: image)
            let attempts = settings.attempts(fitting, complexity: image.pixels.complexity,
                                             pixels: image.size.area, animated: image.frames.count > 1)
            var smallest: (Data, OutputFormat)?
            for (format, lossless) in attempts {
                var encoding = options
                encoding.quality = quality(format)
                let data = try encode(image, options: encoding, format: format, lossless: lossless)
                if smallest.map({ data.count < $0.0.count }) ?? true { smallest = (data, format) }
            }
            metrics?.encoded(after: ContinuousClock.now - encodeStarted)
            return smallest!
        } catch {
            throw Self.answer(for: error)
        }
    }

    /// The answer for what a rendering threw: its own refusals as they are, the library's errors mapped to their
    /// statuses, anything else a 500.
    private static func answer(for error: any Error) -> ProxyError {
        switch error {
        case let error as ProxyError: error
        case let error as ImageError: ProxyError(imageError: error)
        // The render service answers for its budget; this is what a renderer used alone says.
        case let error as WorkBudget.Exceeded: ProxyError(status: error.reason == .cpu ? 422 : 499, "\(error)")
        default: ProxyError(status: 500, "rendering failed: \(error)")
        }
    }

    private func selectFrames(_ source: Image, options: ProcessingOptions, format: OutputFormat) throws -> Image {
        var frames = source.frames
        if let index = options.frame {
            guard index < frames.count else {
                throw ProxyError.invalidURL("frame \(index) does not exist: the source has \(frames.count)")
            }
            frames = [frames[index]]
        } else if !format.holdsAnimation {
            frames = [frames[0]]
        }
        guard frames.count <= maximumFrames else {
            throw ProxyError(status: 422, "the source has \(frames.count) frames, over the limit of \(maximumFrames)")
        }
        var selected = Image(frames: frames, loopCount: source.loopCount, format: source.format, scale: 1,
                             orientation: .up, flags: source.flags)
        selected.colorProfile = source.colorProfile
        selected.metadata = MetadataStripping.kept(source.metadata, options: options)
        return selected
    }

    /// `options` applied to `source`; `declared` is the EXIF orientation the source declared (its pixels are
    /// upright unless `auto_rotate:0`).
    private func transform(_ source: Image, options: ProcessingOptions, geometry: PixelSize?,
                           declared: Orientation) throws -> Image {
        var image = source
        var geometry = geometry
        if let trim = options.trim, image.frames.count == 1 {
            // First of all, on the source as decoded; the geometry is then the trimmed image's (a source that is
            // trimmed is decoded whole, see SourceDecodePlan). Animations are not trimmed, as in imgproxy.
            var border = BorderTrim(trim)
            if options.autoRotate ?? true, declared.swapsAxes {
                // imgproxy trims the pixels as stored, before turning them upright: its sides are the stored ones.
                swap(&border.equalHorizontal, &border.equalVertical)
            }
            image = try border.transform(image)
            geometry = nil
        }
        if options.rotate != 0 {
            // imgproxy turns clockwise; the library's rotation is counter-clockwise.
            image = try ImageTransformers.Rotate(degrees: Double(360 - options.rotate), fitSize: true).transform(image)
        }
        if options.flipHorizontal || options.flipVertical {
            // Before the crops: imgproxy places both crops by where things end up after flipping.
            image = try ImageTransformers.Flip(horizontal: options.flipHorizontal, vertical: options.flipVertical)
                .transform(image)
        }
        let plan = ResizePlan(source: geometry ?? image.size, options: options)
        // Width, height and dpr are each bounded, but together with enlarge they could still ask for gigapixels.
        for size in [plan.scaledSize, plan.outputSize] where size.area > Self.maximumResultPixels {
            throw ProxyError(status: 422, "the result would be \(size) pixels, over the limit of "
                                        + "\(Self.maximumResultPixels)")
        }
        if let crop = plan.sourceCrop {
            image = try cut(image, to: crop.scaled(from: geometry ?? image.size, to: image.size), dpr: 1)
        }
        if plan.scaledSize != image.size {
            image = try ImageTransformers.Resize(to: plan.scaledSize, fit: .fill).transform(image)
        }
        if let crop = plan.finalCrop { image = try cut(image, to: crop, dpr: plan.dprScale) }
        if options.blur > 0 { image = try ImageTransformers.Blur(radius: options.blur).transform(image) }
        if options.sharpen > 0 { image = try UnsharpMask(sigma: options.sharpen).transform(image) }
        if options.pixelate > 1 { image = try Pixelate(size: options.pixelate).transform(image) }
        if options.cornerRadius > 0 {
            image = try ImageTransformers.RoundCorners(radius: options.cornerRadius * options.dpr).transform(image)
        }
        if let gravity = options.extend, let box = plan.extendedSize {
            image = try CanvasPlacement.extend(image, to: box, gravity: gravity, dpr: plan.dprScale)
        }
        if let gravity = options.extendAspectRatio, let box = plan.aspectRatioSize {
            image = try CanvasPlacement.extend(image, to: box, gravity: gravity, dpr: plan.dprScale)
        }
        image = try CanvasPlacement.pad(image, by: plan.padding)
        if let background = options.background, image.hasAlpha {
            image = try BackgroundFlatten(color: background).transform(image)
        }
        if let placement = options.watermark, let watermark = watermarks.current {
            image = try WatermarkOverlay(mark: watermark, options: placement, dpr: plan.dprScale).transform(image)
        }
        return image
    }

    private func cut(_ image: Image, to crop: ResizePlan.CropStep, dpr: Double) throws -> Image {
        let rect = crop.gravity.anchor == .smart
            ? SmartCrop.rect(of: crop.size, in: image.pixels)
            : GravityPlacement.rect(of: crop.size, in: image.size, gravity: crop.gravity, dpr: dpr)
        return try ImageTransformers.Crop(rect).transform(image)
    }

    /// `image` in `format` at the options' quality (losslessly when `lossless` and the format has a lossless
    /// mode), lowered until `max_bytes` is met.
    private func encode(_ image: Image, options: ProcessingOptions, format: OutputFormat, lossless: Bool = false)
        throws -> Data
    {
        var quality = options.quality > 0 ? options.quality : defaultQuality
        let settings = EncodeOptions(lossless: lossless, firstFrameOnly: !format.holdsAnimation,
                                     backgroundColor: options.background ?? RGBA(255, 255, 255))
        func encoded(at quality: Int) throws -> Data {
            var settings = settings
            settings.quality = Double(quality) / 100
            return try coders.encode(image, as: format.imageFormat, options: settings)
        }
        var best: Data
        if !lossless, let search = autoquality.search(for: format, image: image, override: options.autoquality) {
            let found = try coders.encode(image, as: format.imageFormat, options: settings, target: search.target,
                                          qualityRange: search.range)
            (best, quality) = (found.data, Int((found.quality * 100).rounded()))
            metrics?.searchedQuality(encodes: found.encodeCount)
        } else {
            best = try encoded(at: quality)
        }
        let lossy = !lossless && (format == .jpeg || format == .webp || format == .avif)
        guard options.maxBytes > 0, lossy, best.count > options.maxBytes else { return best }
        // The highest quality that fits, by bisection (about seven encodes); the lowest when none fits.
        var low = 1, high = quality - 1
        best = try encoded(at: low)
        guard best.count <= options.maxBytes else { return best }
        while low < high {
            let middle = (low + high + 1) / 2
            let attempt = try encoded(at: middle)
            if attempt.count <= options.maxBytes {
                best = attempt
                low = middle
            } else {
                high = middle - 1
            }
        }
        return best
    }
}
