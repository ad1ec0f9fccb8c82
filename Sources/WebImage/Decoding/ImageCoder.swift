import Foundation

/// Turns encoded bytes into an ``Image`` and back, for one or more formats. Coders are plugins: register one
/// with ``ImageCoders/add(_:)`` and it is asked before the built-in ones.
///
/// Implementations must be safe to call from many tasks at once and must throw ``ImageError`` (never trap) on
/// bad input: ``ImageError/Code/badImageData`` for corrupt or truncated data, ``ImageError/Code/imageTooLarge``
/// when ``DecodeOptions/limits`` are exceeded.
public protocol ImageCoder: Sendable {
    /// Whether ``decode(_:options:)`` understands `data` (usually decided by its magic bytes).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data` into an image, applying size, frame and orientation options.
    func decode(_ data: Data, options: DecodeOptions) throws -> Image
    /// Whether this coder can write `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data
}

/// A coder for exactly one ``ImageFormat``, recognised by magic bytes: the shape of every built-in coder.
public protocol SingleFormatImageCoder: ImageCoder {
    /// The format read and written.
    var format: ImageFormat { get }
}

extension SingleFormatImageCoder {
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == format }
    public func canEncode(to format: ImageFormat) -> Bool { format == self.format }
}
