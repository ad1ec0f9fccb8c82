extension ImageTransformers {
    /// Resizes to a target size: stretched, fitted inside, or filling it and cropped at the centre
    /// (SDWebImage's `SDImageResizingTransformer`).
    ///
    /// Sizes with a zero or negative side throw `ImageError.Code.invalidParameter`; results over
    /// ``DecodeLimits/default``'s pixel limit, or sides over ``PixelBuffer/maximumFilteredSide``, throw
    /// `ImageError.Code.imageTooLarge`.
    ///
    /// Quality: each axis that shrinks uses Lanczos-3 and each axis that grows uses bicubic, unless ``filter``
    /// names one kernel for both. Alpha is filtered premultiplied. The image's ``Image/Flags/hasAlpha`` flag is
    /// trusted: an image without it is treated as fully opaque.
    ///
    /// Key: `Resizing({W,H},FIT)` with FIT one of `fill`, `aspectFit`, `aspectFill`, followed by `,FILTER` when
    /// a filter was chosen: `Resizing({200,200},aspectFill)`, `Resizing({64,64},fill,area)`.
    public struct Resize: ImageTransformer {
        /// How the source's aspect ratio is treated (SDWebImage's `SDImageScaleMode`).
        public enum Fit: String, Sendable, CaseIterable, Codable {
            /// Exactly the target size; the image is stretched if the ratios differ.
            case fill
            /// The largest size with the source's aspect ratio that fits inside the target. The result may be
            /// smaller than the target on one axis: it is not padded.
            case aspectFit
            /// Exactly the target size: scaled to cover it, keeping the aspect ratio, and cropped at the centre.
            case aspectFill
        }

        /// The target size in pixels.
        public var size: PixelSize
        /// How the aspect ratio is treated.
        public var fit: Fit
        /// One kernel for both axes, or `nil` for the automatic choice described above.
        public var filter: ResamplingFilter?

        /// A resize to `size`. Sizes with a zero or negative side, or over the pixel limit, fail at transform time.
        public init(to size: PixelSize, fit: Fit = .fill, filter: ResamplingFilter? = nil) {
            self.size = size
            self.fit = fit
            self.filter = filter
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String {
            let filterSuffix = filter.map { ",\($0.rawValue)" } ?? ""
            return "Resizing({\(size.width),\(size.height)},\(fit.rawValue)\(filterSuffix))"
        }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            guard size.width > 0, size.height > 0 else {
                throw ImageError(.invalidParameter, "cannot resize to \(size)")
            }
            let plan = Self.plan(source: image.size, target: size, fit: fit)
            try ImageTransformers.checkResult(plan.size, frameCount: image.frames.count)
            try PixelBuffer.checkFilterable(image.size)
            try PixelBuffer.checkFilterable(plan.size)
            let horizontalFilter = filter ?? Self.automaticFilter(span: plan.region.width, output: plan.size.width)
            let verticalFilter = filter ?? Self.automaticFilter(span: plan.region.height, output: plan.size.height)
            let hasAlpha = image.hasAlpha
            let deep = { (pixels: DeepPixelBuffer) in
                try pixels.resampled(to: plan.size, from: plan.region, horizontalFilter: horizontalFilter,
                                     verticalFilter: verticalFilter)
            }
            return try image.transformingFrames(preservingMetadata: preservesMetadata, alpha: .unchanged,
                                                deep: deep) { pixels in
                try pixels.resampled(to: plan.size, from: plan.region, horizontalFilter: horizontalFilter,
                                     verticalFilter: verticalFilter, hasAlpha: hasAlpha)
            }
        }

        /// The output size and the part of the source that fills it.
        static func plan(source: PixelSize, target: PixelSize, fit: Fit) -> (size: PixelSize, region: ResamplingRegion) {
            let whole = ResamplingRegion(covering: source)
            let sourceWidth = Double(source.width), sourceHeight = Double(source.height)
            let widthRatio = Double(target.width) / sourceWidth, heightRatio = Double(target.height) / sourceHeight
            switch fit {
            case .fill:
                return (target, whole)
            case .aspectFit:
                let ratio = min(widthRatio, heightRatio)
                let width = min(target.width, Self.pixelCount(sourceWidth * ratio))
                let height = min(target.height, Self.pixelCount(sourceHeight * ratio))
                return (PixelSize(width: width, height: height), whole)
            case .aspectFill:
                let ratio = max(widthRatio, heightRatio)
                let regionWidth = min(sourceWidth, Double(target.width) / ratio)
                let regionHeight = min(sourceHeight, Double(target.height) / ratio)
                let region = ResamplingRegion(x: (sourceWidth - regionWidth) / 2, y: (sourceHeight - regionHeight) / 2,
                                              width: regionWidth, height: regionHeight)
                return (target, region)
            }
        }

        /// A computed length rounded to whole pixels, at least 1, saturating instead of trapping for huge targets.
        static func pixelCount(_ length: Double) -> Int {
            length >= Double(Int32.max) ? Int(Int32.max) : max(1, Int(length.rounded()))
        }

        /// Lanczos-3 where an axis shrinks, bicubic where it grows or keeps its length.
        static func automaticFilter(span: Double, output: Int) -> ResamplingFilter {
            span > Double(output) ? .lanczos3 : .bicubic
        }
    }
}
