import CTIFF
import Foundation
import WebImage

/// TIFF through libtiff (the `WebImageTIFF` product; register it with `ImageCoders.shared.add(TIFFCoder())`).
///
/// Decoding reads one page: the first, or page K with ``DecodeOptions/frameIndex``. Every photometric
/// interpretation libtiff's RGBA reader knows, and 16-bit CMYK, which it refuses, is converted to RGBA8 with
/// straight alpha (associated alpha is un-premultiplied; unassociated alpha passes through libtiff's
/// premultiplied raster, so colour under a low alpha is exact only to within the rounding that implies). The
/// orientation tag is applied like EXIF orientation and reported in ``Image/orientation``. Limits are checked
/// from the page's tags before the raster is allocated. ``properties(of:)`` reports the page count as
/// ``ImageProperties/frameCount``; the decoded image holds the one page asked for. With
/// ``DecodeOptions/keepsHighBitDepth`` a 16-bit RGB or gray page (straight alpha or none) also keeps its samples as
/// ``ImageFrame/deepPixels``. The bytes are read in place;
/// libtiff's messages go into the thrown error, never to stderr.
///
/// Encoding TIFF is not offered: it throws ``ImageError/Code/unsupportedFormat``.
public struct TIFFCoder: SingleFormatImageCoder {
    /// Always ``ImageFormat/tiff``.
    public let format = ImageFormat.tiff

    /// More pages than any real document has: a directory chain this long is refused as corrupt rather than
    /// walked (a chain that loops is refused as soon as libtiff notices).
    static let maximumPages = 65_535

    /// Creates the coder; it holds no state.
    public init() {}

    /// Decodes one page of a TIFF. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try data.withUnsafeBytes { bytes in
            try TIFFMemoryFile.withFile(bytes) { file in
                let pages = try Self.pageCount(file)
                if let index = options.frameIndex {
                    guard index >= 0, index < pages else {
                        throw ImageError(.invalidParameter, "TIFF: page \(index) asked of a file with \(pages)")
                    }
                    guard TIFFSetDirectory(file.tiff, tdir_t(index)) != 0 else {
                        throw file.error(.badImageData, "page \(index) cannot be read")
                    }
                    try file.checkErrors("reading page \(index)")
                }
                let page = try TIFFPage(file)
                let result = try page.decode(options: options, profile: TIFFColorProfile.profile(of: file.tiff))
                var flags: Image.Flags = result.hasAlpha ? .hasAlpha : []
                if result.reduced { flags.insert(.thumbnail) }
                var image = Image(frames: [result.frame], loopCount: 1, format: .tiff,
                                  scale: options.resolvedScale, orientation: page.orientation, flags: flags)
                image.colorProfile = result.colorProfile
                return image
            }
        }
    }

    /// Reads the first page's tags and counts the pages by walking the directory offsets (no pixel data).
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            try TIFFMemoryFile.withFile(bytes) { file in
                let pages = try Self.pageCount(file)
                let page = try TIFFPage(file)
                var properties = ImageProperties(
                    format: .tiff, size: page.orientation.displayedSize(of: page.storedSize), frameCount: pages,
                    hasAlpha: page.hasAlpha, orientation: page.orientation)
                properties.describeColor(TIFFColorProfile.profile(of: file.tiff))
                return properties
            }
        }
    }

    /// `true` for ``ImageFormat/tiff``.
    public func canEncode(to format: ImageFormat) -> Bool { format == .tiff }

    /// The first frame as one page of 8-bit RGB or RGBA (straight alpha), Deflate-compressed; any other format
    /// throws ``ImageError/Code/unsupportedFormat``.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .tiff else {
            throw ImageError(.unsupportedFormat, "the TIFF coder does not write \(format.rawValue)")
        }
        return try TIFFEncoder.encode(options.fittingMaxPixelSize(image.pixels), hasAlpha: image.hasAlpha)
    }

    /// The number of pages, from the chain of directory offsets; a chain that loops back (libtiff 4.5 notices)
    /// is refused as corrupt.
    static func pageCount(_ file: TIFFMemoryFile) throws -> Int {
        let count = Int(TIFFNumberOfDirectories(file.tiff))
        try file.checkErrors("following the chain of pages")
        guard count >= 1 else { throw file.error(.badImageData, "no page") }
        guard count <= maximumPages else {
            throw ImageError(.badImageData, "TIFF: \(count) pages, more than the \(maximumPages) accepted")
        }
        return count
    }
}
