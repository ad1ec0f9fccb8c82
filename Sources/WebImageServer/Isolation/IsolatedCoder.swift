import Foundation
import WebImage

/// An `ImageCoder` that decodes its formats in a ``DecodeHelperPool`` instead of this process, for the formats
/// whose C libraries have crashed or hung on hostile files. Register it in front of the in-process coders: it only
/// decodes and reads properties, so encoding still goes to the coders behind it.
public struct IsolatedCoder: ImageCoder {
    /// The formats sent to the helpers; every other format is left to the coders behind this one.
    public let formats: Set<ImageFormat>
    /// The helpers that decode.
    public let pool: DecodeHelperPool

    /// Decodes `formats` in `pool`'s helpers.
    public init(formats: Set<ImageFormat>, pool: DecodeHelperPool) {
        self.formats = formats
        self.pool = pool
    }

    /// The formats `webimage serve` isolates by default: those decoded by large C libraries that parse
    /// containers and codecs of their own (libheif with libde265, libavif with dav1d, libjxl, librsvg, poppler,
    /// libtiff). The built-in coders (JPEG, PNG, GIF, WebP, BMP, ICO) stay in process.
    public static let defaultFormats: Set<ImageFormat> = [.heic, .heif, .avif, .jxl, .svg, .pdf, .tiff]

    public func canDecode(_ data: Data) -> Bool { formats.contains(ImageFormat.detect(data)) }

    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try pool.decode(data, options: options)
    }

    public func properties(of data: Data) throws -> ImageProperties {
        try pool.properties(of: data)
    }

    /// The properties and the pixels from one exchange with a helper, the source sent once.
    public func decode(_ data: Data, planning plan: (ImageProperties) throws -> DecodeOptions) throws -> Image {
        try pool.decode(data, planning: plan)
    }

    public var decodableFormats: Set<ImageFormat> { formats }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "an isolated coder does not encode")
    }
}

extension ImageCoders {
    /// A registry with `coders`'s coders, asked in the same order, behind an ``IsolatedCoder`` that sends
    /// `formats` to `pool`.
    public static func isolating(_ formats: Set<ImageFormat>, in pool: DecodeHelperPool,
                                 behind coders: ImageCoders) -> ImageCoders {
        let isolated = ImageCoders(coders: coders.coders.reversed())
        isolated.add(IsolatedCoder(formats: formats, pool: pool))
        return isolated
    }
}
