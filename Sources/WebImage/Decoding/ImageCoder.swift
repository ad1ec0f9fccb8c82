import Foundation

/// Turns encoded bytes into an ``Image`` and back, for one or more formats. Coders are plugins: register one
/// with ``ImageCoders/add(_:)`` and it is asked before the built-in ones.
///
/// Implementations must be safe to call from many tasks at once and must throw `ImageError` (never trap) on
/// bad input: `ImageError.Code.badImageData` for corrupt or truncated data, `ImageError.Code.imageTooLarge`
/// when ``DecodeOptions/limits`` are exceeded.
public protocol ImageCoder: Sendable {
    /// Whether ``decode(_:options:)`` understands `data` (usually decided by its magic bytes).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data` into an image, applying size, frame and orientation options.
    func decode(_ data: Data, options: DecodeOptions) throws -> Image
    /// Reads format, size, frames, loop count, alpha, orientation and frame durations from the headers of
    /// `data`, without decoding pixels. Throws what ``decode(_:options:)`` would for a header it cannot read.
    ///
    /// The default implementation decodes the whole image: coders should provide a header reader.
    func properties(of data: Data) throws -> ImageProperties
    /// Reads `data`'s properties, asks `plan` for the options to decode with (a server sizes its decode from the
    /// source's size, frames and format) and decodes with them: what ``properties(of:)`` then
    /// ``decode(_:options:)`` do, which is the default. A coder that decodes elsewhere does both in one exchange
    /// (a decode helper reads the source once and sends the properties back before the pixels). What `plan`
    /// throws is thrown unchanged, before anything is decoded.
    func decode(_ data: Data, planning plan: (ImageProperties) throws -> DecodeOptions) throws -> Image
    /// The formats this coder decodes: they make up the `Accept` header the downloader sends, so that a server
    /// that picks a format from it never answers with one nothing here can read. Empty by default.
    var decodableFormats: Set<ImageFormat> { get }
    /// Whether this coder can write `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data
}

/// A coder for exactly one `ImageFormat`, recognised by magic bytes: the shape of every built-in coder.
public protocol SingleFormatImageCoder: ImageCoder {
    /// The format read and written.
    var format: ImageFormat { get }
}

extension ImageCoder {
    public func properties(of data: Data) throws -> ImageProperties {
        ImageProperties(of: try decode(data, options: DecodeOptions()))
    }

    public func decode(_ data: Data, planning plan: (ImageProperties) throws -> DecodeOptions) throws -> Image {
        try decode(data, options: plan(properties(of: data)))
    }

    public var decodableFormats: Set<ImageFormat> { [] }
}

extension SingleFormatImageCoder {
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == format }
    public func canEncode(to format: ImageFormat) -> Bool { format == self.format }
    public var decodableFormats: Set<ImageFormat> { [format] }
}
