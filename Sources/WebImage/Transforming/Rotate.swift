#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ImageTransformers {
    /// Rotates by any angle, counter-clockwise for positive degrees as in SDWebImage and Pillow
    /// (SDWebImage's `SDImageRotationTransformer`, which takes radians).
    ///
    /// Multiples of 90° are exact (pixels are moved, not resampled). Other angles are sampled bilinearly in
    /// premultiplied alpha (a 16-bit frame in 16 bits); the corners the rotated image leaves uncovered are
    /// transparent and their edges anti-aliased. With ``fitSize`` the canvas grows to hold the whole rotated image;
    /// without it the canvas keeps the source size and the rotated image is centred on it (and cut off). NaN or
    /// infinite angles throw `ImageError.Code.invalidParameter`.
    ///
    /// Key: `Rotation(DEGREES,FIT)` with the angle as given and `1` or `0` for ``fitSize``: `Rotation(30,1)`.
    public struct Rotate: ImageTransformer {
        /// The angle in degrees, counter-clockwise.
        public var degrees: Double
        /// Grow the canvas to hold the whole rotated image.
        public var fitSize: Bool

        /// A rotation by `degrees` counter-clockwise.
        public init(degrees: Double, fitSize: Bool) {
            self.degrees = degrees
            self.fitSize = fitSize
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String {
            "Rotation(\(TransformerKeyFormat.number(degrees)),\(TransformerKeyFormat.flag(fitSize)))"
        }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            guard degrees.isFinite else {
                throw ImageError(.invalidParameter, "cannot rotate by \(degrees) degrees")
            }
            var turn = fmod(degrees, 360)
            if turn < 0 { turn += 360 }
            if turn >= 360 { turn -= 360 }
            let source = image.size
            let quarter: Orientation? = switch turn {
            case 0: .up
            case 90: .left
            case 180: .down
            case 270: .right
            default: nil
            }
            if let quarter {
                if quarter == .up { return image.markedTransformed(preservingMetadata: preservesMetadata) }
                let turned = quarter.displayedSize(of: source)
                let canvas = fitSize ? turned : source
                try ImageTransformers.checkResult(canvas, frameCount: image.frames.count)
                return try image.transformingFrames(
                    preservingMetadata: preservesMetadata, alpha: canvas == turned ? .unchanged : .added,
                    deep: { try $0.applying(quarter).centered(on: canvas) }
                ) { pixels in
                    try pixels.applying(quarter).centered(on: canvas)
                }
            }
            let radians = turn * Double.pi / 180
            let cosine = abs(cos(radians)), sine = abs(sin(radians))
            let canvas = fitSize
                ? PixelSize(
                    width: Int((Double(source.width) * cosine + Double(source.height) * sine - 1e-6).rounded(.up)),
                    height: Int((Double(source.width) * sine + Double(source.height) * cosine - 1e-6).rounded(.up)))
                : source
            try ImageTransformers.checkResult(canvas, frameCount: image.frames.count)
            let hasAlpha = image.hasAlpha
            return try image.transformingFrames(
                preservingMetadata: preservesMetadata, alpha: .added,
                deep: { try $0.rotated(byRadians: radians, onto: canvas) }
            ) { pixels in
                try pixels.rotated(byRadians: radians, onto: canvas, hasAlpha: hasAlpha)
            }
        }
    }
}
