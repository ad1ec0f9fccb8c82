import Foundation
import WebImage
import WebImageCairo

/// PDF through poppler-glib and cairo: one page of a document drawn to a bitmap, like SDWebImage's PDF coder.
///
/// Decoding draws the first page, or page ``DecodeOptions/frameIndex`` (from 0; past the last page throws
/// ``ImageError/Code/invalidParameter``), at 72 dpi: one pixel per point of the page's crop box, turned by its
/// `/Rotate`. With ``DecodeOptions/thumbnailPixelSize`` or ``DecodeOptions/scaleDownLimitBytes`` the page is
/// drawn directly at the target size (larger than 72 dpi too, when the thumbnail box is larger). Pages are
/// drawn on white paper, as `pdftoppm` does, so the image is opaque. Only the asked page is ever drawn, and its
/// size is checked against ``DecodeOptions/limits`` first. poppler
/// decodes each image a page draws at the image's own size, so a document whose stream dictionaries declare an
/// image over ``DecodeLimits/maxPixels`` (on any page) is refused with ``ImageError/Code/imageTooLarge`` too.
///
/// A document that needs a password throws ``ImageError/Code/unsupportedFormat``; a damaged or truncated one
/// (no `%%EOF` at its end) throws ``ImageError/Code/badImageData``.
///
/// ``properties(of:)`` reports the first page's size and, as ``ImageProperties/frameCount``, the number of
/// pages (a decode returns one page as a one-frame image). PDF is not written.
public struct PDFCoder: SingleFormatImageCoder {
    /// Always ``ImageFormat/pdf``.
    public let format = ImageFormat.pdf

    /// Creates the coder; it holds no state.
    public init() {}

    /// Renders one page of the PDF in `data`. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let page = try PDFDocument(data).page(options.frameIndex ?? 0)
        let size = try page.pixelSize()
        let target = options.vectorTargetSize(for: size)
        try options.limits.check(target)
        try Self.checkImages(data, limits: options.limits)
        let pixels = try page.render(into: target)
        return Image(frames: [ImageFrame(pixels: pixels)], loopCount: 1, format: .pdf,
                     scale: options.resolvedScale, orientation: .up, flags: target != size ? .thumbnail : [])
    }

    /// Refuses a document holding an image over the pixel limit: poppler decodes images at their own size
    /// whatever the page is drawn at (see `PDFImageScan`).
    static func checkImages(_ data: Data, limits: DecodeLimits) throws {
        let largest = data.withUnsafeBytes(PDFImageScan.largestImageArea)
        guard largest <= limits.maxPixels else {
            throw ImageError(.imageTooLarge, "PDF: the document holds an image of \(largest) pixels, over the limit "
                             + "of \(limits.maxPixels)")
        }
    }

    /// The first page's size at 72 dpi and the page count, from the page tree; no page is drawn.
    public func properties(of data: Data) throws -> ImageProperties {
        let document = try PDFDocument(data)
        let size = try document.page(0).pixelSize()
        return ImageProperties(format: .pdf, size: size, frameCount: document.pageCount)
    }

    /// Always `false`: this coder only reads, so callers that pick an output format by asking (the tool's
    /// `--format`, a proxy falling back from its source's format) never pick one it would refuse.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Always throws ``ImageError/Code/unsupportedFormat``: documents are not written.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "the PDF coder cannot write \(format.rawValue)")
    }
}
