/// Turns one decoded image into another: resize, crop, round corners, blur… (SDWebImage's `SDImageTransformer`).
///
/// A transformer's ``key`` names exactly what it does. The manager appends it to an image's cache key, so a
/// transformed image is cached beside its original and found again on the next run: the key must be
/// deterministic (no addresses, dates or locale-dependent formatting) and must change only when the output
/// would. The built-ins in ``ImageTransformers`` document their key formats, modelled on SDWebImage's
/// (`Resizing({200,200},aspectFill)`, `Blur(10)`, …); a ``ImageTransformers/Pipeline`` joins its members'
/// keys with `-`.
///
/// ``transform(_:)`` handles every frame of an animated image (the manager decides whether to ask for
/// animated images at all). Results carry ``Image/Flags/transformed``.
public protocol ImageTransformer: Sendable {
    /// A stable identifier of this transformation and its parameters, used in cache keys.
    var key: String { get }

    /// Whether the result keeps the source's metadata: its ``Image/format`` (so the cache can store it in the
    /// same format), ``Image/scale`` and ``Image/orientation`` tag. When `false` the result is a new image in
    /// memory: format `ImageFormat.unknown`, scale 1, orientation ``Orientation/up``. Frame durations and the
    /// loop count are part of the animation and always kept. The default is `true`.
    var preservesMetadata: Bool { get }

    /// The transformed image, or a typed `ImageError` for parameters that cannot apply (zero sizes, NaN
    /// angles, crops outside the image, results over the pixel limit). It runs on the calling thread: from `async`
    /// code, ``transform(_:on:priority:)`` runs it on a ``CPUExecutor``.
    func transform(_ image: Image) throws -> Image
}

extension ImageTransformer {
    /// Built-in transformers keep metadata; see ``ImageTransformer/preservesMetadata``.
    public var preservesMetadata: Bool { true }
}

/// The built-in transformers. Callers usually reach them through the static factories on
/// ``ImageTransformer`` (`.resize(to:fit:)`, `.crop(_:)`, `.roundCorners(radius:)`, …).
///
/// Shared rules: parameters are checked when ``ImageTransformer/transform(_:)`` runs (bad values throw
/// `ImageError.Code.invalidParameter`, results over ``DecodeLimits/default`` throw
/// `ImageError.Code.imageTooLarge` before any allocation); filters and blends work in premultiplied alpha;
/// an image without ``Image/Flags/hasAlpha`` is trusted to be opaque and is not rescanned; every frame of an
/// animation is transformed, with cancellation checked between frames (`ImageError.Code.cancelled`).
public enum ImageTransformers {}
