import Foundation
import WebImage
import WebImageCairo

/// SVG through librsvg and cairo: vector documents drawn to a bitmap.
///
/// Decoding draws the document at its intrinsic size (its absolute `width` and `height`, else its `viewBox`,
/// else 512 pixels a side; see the rules in `SVGIntrinsicSize`). With ``DecodeOptions/thumbnailPixelSize`` or
/// ``DecodeOptions/scaleDownLimitBytes`` it is drawn directly at the target size, so edges stay sharp; being a
/// vector, it is drawn larger than its intrinsic size too when the thumbnail box is larger. The background is
/// transparent, so the image always carries ``Image/Flags/hasAlpha``. The drawn size is checked against
/// ``DecodeOptions/limits`` before any bitmap exists. A document is one frame: ``DecodeOptions/frameIndex``
/// other than 0 throws ``ImageError/Code/invalidParameter``.
///
/// A gzipped document (`.svgz`) is read the same way once inflated here, within 16 MiB
/// (librsvg would inflate it without a limit, and the embedded-image scan must see the text); a gzip bomb throws
/// ``ImageError/Code/imageTooLarge`` before librsvg sees it.
///
/// Safety: the document is parsed from its bytes alone, with no base URI, so no `file:`, `http:` or relative
/// reference (images, `<use>`, stylesheets) is ever read or fetched; XML entity expansion bombs are refused by
/// libxml2's limits as ``ImageError/Code/badImageData``. Raster images embedded as `data:` URLs are decoded by
/// gdk-pixbuf at their own size, so one declaring more than ``DecodeLimits/maxPixels`` refuses the document with
/// ``ImageError/Code/imageTooLarge`` (its header is read by ``ImageCoders/shared``).
///
/// SVG is not written: ``encode(_:as:options:)`` throws ``ImageError/Code/unsupportedFormat``.
public struct SVGCoder: SingleFormatImageCoder {
    /// Always ``ImageFormat/svg``.
    public let format = ImageFormat.svg

    /// Creates the coder; it holds no state.
    public init() {}

    /// Renders the SVG document in `data`. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        if let index = options.frameIndex, index != 0 {
            throw ImageError(.invalidParameter, "SVG: frame \(index) asked of a document with one frame")
        }
        let data = try Gzip.inflatedIfCompressed(data)
        let document = try SVGDocument(data)
        let intrinsic = try document.intrinsicSize()
        let target = options.vectorTargetSize(for: intrinsic.pixels)
        try options.limits.check(target)
        try SVGEmbeddedImages.check(data, limits: options.limits)
        let pixels = try document.render(exact: intrinsic.exact, pixels: intrinsic.pixels, into: target)
        var flags: Image.Flags = .hasAlpha
        if target != intrinsic.pixels { flags.insert(.thumbnail) }
        return Image(frames: [ImageFrame(pixels: pixels)], loopCount: 1, format: .svg,
                     scale: options.resolvedScale, orientation: .up, flags: flags)
    }

    /// Parses the document and reports its intrinsic size; nothing is drawn. A still image with alpha.
    public func properties(of data: Data) throws -> ImageProperties {
        let size = try SVGDocument(try Gzip.inflatedIfCompressed(data)).intrinsicSize().pixels
        return ImageProperties(format: .svg, size: size, hasAlpha: true)
    }

    /// Always `false`: this coder only reads, so callers that pick an output format by asking (the tool's
    /// `--format`, a proxy falling back from its source's format) never pick one it would refuse.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Always throws ``ImageError/Code/unsupportedFormat``: bitmaps are not turned back into vectors.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "the SVG coder cannot write \(format.rawValue)")
    }
}
