import Foundation
import WebImage

/// The pixel geometry of one request on one source, worked out from sizes alone (imgproxy's rules): a crop of the
/// source before scaling, the scaled size, and a crop of the scaled image (the part of a `fill` that sticks out).
///
/// Crops are sizes plus the gravity that places them; ``GravityPlacement`` turns them into rectangles (the smart
/// gravity needs the pixels).
public struct ResizePlan: Sendable, Equatable {
    /// A crop: its size and where it sits.
    public struct CropStep: Sendable, Equatable {
        /// The size of the area kept.
        public var size: PixelSize
        /// Where the area sits in the image.
        public var gravity: Gravity
    }

    /// The crop of the source (the `crop` option), if it cuts anything.
    public var sourceCrop: CropStep?
    /// The size the (cropped) source is scaled to.
    public var scaledSize: PixelSize
    /// The crop of the scaled image, if it cuts anything.
    public var finalCrop: CropStep?

    /// The size of the result.
    public var outputSize: PixelSize { finalCrop?.size ?? scaledSize }

    /// The plan for a source of `source` pixels (after its orientation and the `rotate` option).
    public init(source: PixelSize, options: ProcessingOptions) {
        var working = source
        if let crop = options.crop {
            let size = PixelSize(width: Self.cropSide(crop.width, of: source.width),
                                 height: Self.cropSide(crop.height, of: source.height))
            if size != source {
                sourceCrop = CropStep(size: size, gravity: crop.gravity ?? options.gravity)
                working = size
            }
        }
        let box = (width: Double(options.width) * options.dpr, height: Double(options.height) * options.dpr)
        let type = Self.effectiveType(options.resizingType, source: working, box: box)
        let sourceWidth = Double(working.width), sourceHeight = Double(working.height)
        var scaleX = box.width > 0 ? box.width / sourceWidth : 0
        var scaleY = box.height > 0 ? box.height / sourceHeight : 0
        switch type {
        case .force:
            if scaleX == 0 { scaleX = 1 }
            if scaleY == 0 { scaleY = 1 }
        case .fill, .fillDown:
            let scale = max(scaleX, scaleY)
            (scaleX, scaleY) = scale == 0 ? (1, 1) : (scale, scale)
        case .fit, .auto:
            let scale = scaleX == 0 ? scaleY : scaleY == 0 ? scaleX : min(scaleX, scaleY)
            (scaleX, scaleY) = scale == 0 ? (1, 1) : (scale, scale)
        }
        if !options.enlarge {
            scaleX = min(scaleX, 1)
            scaleY = min(scaleY, 1)
        }
        scaledSize = PixelSize(width: max(1, Int((sourceWidth * scaleX).rounded())),
                               height: max(1, Int((sourceHeight * scaleY).rounded())))

        guard type == .fill || type == .fillDown else { return }
        var target = PixelSize(width: box.width > 0 ? Int(box.width.rounded()) : scaledSize.width,
                               height: box.height > 0 ? Int(box.height.rounded()) : scaledSize.height)
        if type == .fillDown, target.width > scaledSize.width || target.height > scaledSize.height {
            // Too small to fill the box: keep the box's aspect ratio at the largest size that fits.
            let ratio = min(Double(scaledSize.width) / Double(target.width),
                            Double(scaledSize.height) / Double(target.height))
            target = PixelSize(width: max(1, Int((Double(target.width) * ratio).rounded())),
                               height: max(1, Int((Double(target.height) * ratio).rounded())))
        }
        let kept = PixelSize(width: min(target.width, scaledSize.width), height: min(target.height, scaledSize.height))
        if kept != scaledSize { finalCrop = CropStep(size: kept, gravity: options.gravity) }
    }

    /// `auto` is `fill` when the source and the box are both portrait or both landscape, else `fit`; a box with an
    /// open side has no orientation, so it fits.
    static func effectiveType(_ type: ProcessingOptions.ResizingType, source: PixelSize,
                              box: (width: Double, height: Double)) -> ProcessingOptions.ResizingType {
        guard type == .auto else { return type }
        guard box.width > 0, box.height > 0 else { return .fit }
        let sourceIsPortrait = source.height > source.width, boxIsPortrait = box.height > box.width
        return sourceIsPortrait == boxIsPortrait ? .fill : .fit
    }

    /// A crop side: pixels when ≥ 1, a fraction of `full` below 1, all of it at 0; never more than `full`.
    static func cropSide(_ value: Double, of full: Int) -> Int {
        let pixels = value >= 1 ? value.rounded() : value > 0 ? (value * Double(full)).rounded() : Double(full)
        return max(1, min(full, Int(pixels)))
    }
}
