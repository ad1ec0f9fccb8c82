import Foundation
import WebImage

/// The pixel geometry of one request on one source, worked out from sizes alone (imgproxy's rules): a crop of the
/// source before scaling, the scaled size, a crop of the scaled image (the part of a `fill` that sticks out, or
/// of a `min-width` that overshoots the box), then the canvases the result is placed on (`extend`,
/// `extend_aspect_ratio`) and the padding around it.
///
/// Crops are sizes plus the gravity that places them; ``GravityPlacement`` turns them into rectangles (the smart
/// gravity needs the pixels).
struct ResizePlan: Sendable, Equatable {
    /// A crop: its size and where it sits.
    struct CropStep: Sendable, Equatable {
        /// The size of the area kept.
        var size: PixelSize
        /// Where the area sits in the image.
        var gravity: Gravity
    }

    /// The crop of the source (the `crop` option), if it cuts anything.
    var sourceCrop: CropStep?
    /// The size the (cropped) source is scaled to.
    var scaledSize: PixelSize
    /// The crop of the scaled image, if it cuts anything.
    var finalCrop: CropStep?
    /// The device pixel ratio actually used: the `dpr` option, lowered when the source is too small to reach the
    /// box without enlarging (so the result keeps its composition). Offsets in pixels, the padding and the
    /// watermark's offsets are multiplied by it.
    var dprScale: Double
    /// The box a smaller result is extended to (`extend`); a side of 0 keeps the result's own.
    var extendedSize: PixelSize?
    /// The canvas that gives the result the box's aspect ratio (`extend_aspect_ratio`), when it differs.
    var aspectRatioSize: PixelSize?
    /// The padding in pixels (the `padding` option times ``dprScale``).
    var padding: ProcessingOptions.Padding

    /// The size after the crops, before extending and padding.
    var croppedSize: PixelSize { finalCrop?.size ?? scaledSize }

    /// The size of the result: cropped, extended and padded.
    var outputSize: PixelSize {
        var size = croppedSize
        // The canvases only ever grow the image; a side of 0 in the box keeps the image's.
        for box in [extendedSize, aspectRatioSize].compactMap({ $0 }) {
            size = PixelSize(width: max(size.width, box.width), height: max(size.height, box.height))
        }
        return PixelSize(width: size.width + padding.left + padding.right,
                         height: size.height + padding.top + padding.bottom)
    }

    /// The plan for a source of `source` pixels (after its orientation and the `rotate` option).
    init(source: PixelSize, options: ProcessingOptions) {
        var working = source
        if let crop = options.crop {
            let size = PixelSize(width: Self.cropSide(crop.width, of: source.width),
                                 height: Self.cropSide(crop.height, of: source.height))
            if size != source {
                sourceCrop = CropStep(size: size, gravity: crop.gravity ?? options.gravity)
                working = size
            }
        }
        var scales = Scales(working: working, options: options)
        var sizes = Sizes(working: working, scales: scales, options: options)
        if let limit = options.limits.maximumResultDimension, limit > 0 {
            // imgproxy's max_result_dimension: everything (extension and padding included) is scaled down to fit.
            let outer = sizes.outerSize(options: options, dpr: scales.dpr)
            if outer.width > limit || outer.height > limit {
                let factor = Double(limit) / Double(max(outer.width, outer.height))
                scales.x = max(scales.x * factor, 1 / Double(working.width))
                scales.y = max(scales.y * factor, 1 / Double(working.height))
                scales.dpr *= factor
                sizes = Sizes(working: working, scales: scales, options: options)
            }
        }
        scaledSize = sizes.scaled
        dprScale = scales.dpr
        let kept = PixelSize(width: Self.minNonZero(sizes.resultCrop.width, scaledSize.width),
                             height: Self.minNonZero(sizes.resultCrop.height, scaledSize.height))
        if kept.width < scaledSize.width || kept.height < scaledSize.height {
            finalCrop = CropStep(size: kept, gravity: options.gravity)
        }
        if options.extend != nil { extendedSize = sizes.target }
        aspectRatioSize = sizes.aspectRatio
        padding = ProcessingOptions.Padding(top: Self.scaledPadding(options.padding.top, scales.dpr),
                                            right: Self.scaledPadding(options.padding.right, scales.dpr),
                                            bottom: Self.scaledPadding(options.padding.bottom, scales.dpr),
                                            left: Self.scaledPadding(options.padding.left, scales.dpr))
    }

    /// A crop side: pixels when ≥ 1, a fraction of `full` below 1, all of it at 0; never more than `full`.
    static func cropSide(_ value: Double, of full: Int) -> Int {
        let pixels = value >= 1 ? value.rounded() : value > 0 ? (value * Double(full)).rounded() : Double(full)
        return max(1, min(full, Int(pixels)))
    }

    /// `a` unless it is 0, then `b`; the smaller of the two when both are set.
    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }

    /// `value × scale`, halves to even (imgproxy rounds padding and offsets that way).
    static func scaledPadding(_ value: Int, _ scale: Double) -> Int {
        value == 0 ? 0 : Int((Double(value) * scale).rounded(.toNearestOrEven))
    }
}

extension ResizePlan {
    /// The scale factors from the (cropped) source to the scaled image, and the device pixel ratio in effect.
    struct Scales {
        var x: Double
        var y: Double
        var dpr: Double

        /// imgproxy's scale calculation, done as shrink factors (source over result), as it does.
        init(working: PixelSize, options: ProcessingOptions) {
            let sourceWidth = Double(working.width), sourceHeight = Double(working.height)
            let boxWidth = options.width > 0 ? Double(options.width) : sourceWidth
            let boxHeight = options.height > 0 ? Double(options.height) : sourceHeight
            var shrinkX = boxWidth != sourceWidth ? sourceWidth / boxWidth : 1
            var shrinkY = boxHeight != sourceHeight ? sourceHeight / boxHeight : 1
            if shrinkX != 1 || shrinkY != 1 {
                var type = options.resizingType
                if type == .auto {
                    // Same orientation (a square counts as landscape) fills, different fits.
                    type = (sourceWidth >= sourceHeight) == (boxWidth >= boxHeight) ? .fill : .fit
                }
                if options.width == 0, type != .force {
                    shrinkX = shrinkY
                } else if options.height == 0, type != .force {
                    shrinkY = shrinkX
                } else if type == .fit {
                    shrinkX = max(shrinkX, shrinkY)
                    shrinkY = shrinkX
                } else if type == .fill || type == .fillDown {
                    shrinkX = min(shrinkX, shrinkY)
                    shrinkY = shrinkX
                }
            }
            shrinkX /= options.zoomX
            shrinkY /= options.zoomY
            var dpr = options.dpr
            if !options.enlarge {
                let smallest = min(shrinkX, shrinkY)
                if smallest < 1 {
                    shrinkX /= smallest
                    shrinkY /= smallest
                    // Too small for the box: a lower ratio keeps the crop's and offsets' proportions, except when
                    // extending, where the canvas is the box itself.
                    if options.extend == nil { dpr /= smallest }
                }
                dpr = min(dpr, min(shrinkX, shrinkY))
            }
            if options.minWidth > 0 {
                let needed = sourceWidth / Double(options.minWidth)
                if needed < shrinkX {
                    shrinkY /= shrinkX / needed
                    shrinkX = needed
                }
            }
            if options.minHeight > 0 {
                let needed = sourceHeight / Double(options.minHeight)
                if needed < shrinkY {
                    shrinkX /= shrinkY / needed
                    shrinkY = needed
                }
            }
            shrinkX = min(shrinkX / dpr, sourceWidth)
            shrinkY = min(shrinkY / dpr, sourceHeight)
            (x, y, self.dpr) = (1 / shrinkX, 1 / shrinkY, dpr)
        }
    }

    /// The sizes that follow from the scales: the box in pixels, the scaled image, the crop of the result and
    /// the aspect-ratio canvas.
    struct Sizes {
        var target: PixelSize
        var scaled: PixelSize
        var resultCrop: PixelSize
        var aspectRatio: PixelSize?

        init(working: PixelSize, scales: Scales, options: ProcessingOptions) {
            func scale(_ value: Int, _ factor: Double) -> Int {
                value == 0 ? 0 : Int((Double(value) * factor).rounded())
            }
            target = PixelSize(width: scale(options.width, scales.dpr * options.zoomX),
                               height: scale(options.height, scales.dpr * options.zoomY))
            scaled = PixelSize(width: max(1, scale(working.width, scales.x)),
                               height: max(1, scale(working.height, scales.y)))
            resultCrop = target
            if options.resizingType == .fillDown, !options.enlarge {
                // Too small to fill the box: the largest area of the box's aspect ratio that the image has.
                let diffX = Double(target.width) / Double(scaled.width)
                let diffY = Double(target.height) / Double(scaled.height)
                if diffX > diffY, diffX > 1 {
                    resultCrop = PixelSize(width: scaled.width,
                                           height: scale(scaled.width, Double(target.height) / Double(target.width)))
                } else if diffY > diffX, diffY > 1 {
                    resultCrop = PixelSize(width: scale(scaled.height, Double(target.width) / Double(target.height)),
                                           height: scaled.height)
                }
            }
            guard options.extendAspectRatio != nil, target.width > 0, target.height > 0 else { return }
            let out = PixelSize(width: ResizePlan.minNonZero(scaled.width, resultCrop.width),
                                height: ResizePlan.minNonZero(scaled.height, resultCrop.height))
            let diffX = Double(target.width) / Double(out.width), diffY = Double(target.height) / Double(out.height)
            if diffY > diffX {
                aspectRatio = PixelSize(width: out.width,
                                        height: scale(out.width, Double(target.height) / Double(target.width)))
            } else if diffX > diffY {
                aspectRatio = PixelSize(width: scale(out.height, Double(target.width) / Double(target.height)),
                                        height: out.height)
            }
        }

        /// The result's size with extension and padding, for the result dimension limit.
        func outerSize(options: ProcessingOptions, dpr: Double) -> PixelSize {
            var width = ResizePlan.minNonZero(scaled.width, resultCrop.width)
            var height = ResizePlan.minNonZero(scaled.height, resultCrop.height)
            if options.extend != nil {
                width = max(width, target.width)
                height = max(height, target.height)
            } else if let aspectRatio {
                width = max(width, aspectRatio.width)
                height = max(height, aspectRatio.height)
            }
            width += ResizePlan.scaledPadding(options.padding.left, dpr)
                + ResizePlan.scaledPadding(options.padding.right, dpr)
            height += ResizePlan.scaledPadding(options.padding.top, dpr)
                + ResizePlan.scaledPadding(options.padding.bottom, dpr)
            return PixelSize(width: width, height: height)
        }
    }
}
