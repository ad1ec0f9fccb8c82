import Foundation

/// Reads and writes JPEG through TurboJPEG (libjpeg-turbo).
///
/// Decoding handles baseline, progressive (and arithmetic-coded, where the library allows), grayscale, CMYK and
/// YCCK (converted to RGB, honouring Adobe's inverted polarity), restart markers and every chroma subsampling.
/// Pixels are written straight into the ``PixelBuffer``'s memory. The result is always opaque.
///
/// - The frame size is read from the SOF segment and checked against ``DecodeOptions/limits`` before TurboJPEG
///   allocates anything.
/// - Thumbnails and the scale-down limit decode at the smallest fast DCT scale (5/8, 1/2, 3/8, 1/4, 1/8) that
///   still covers the requested size, then area-average down, so a large photo never becomes a full-size bitmap.
/// - EXIF orientation (APP1) is applied unless ``DecodeOptions/applyOrientation`` is off, and always reported.
/// - A JPEG is one frame: a ``DecodeOptions/frameIndex`` other than 0 is `ImageError.Code.invalidParameter`.
/// - Damage policy: data without an end-of-image marker after its scans is refused as truncated before decoding,
///   and any libjpeg warning other than a few harmless ones (stray bytes between segments, an unknown JFIF
///   version, a bad ICC segment, meaningless scan parameters in a sequential file) fails the decode with
///   `ImageError.Code.badImageData`, so a half-grey image is never returned or cached. Damage inside the
///   entropy-coded data that still parses cannot be detected: JPEG has no checksum.
///
/// Encoding writes the first frame at 4:2:0 with quality ``EncodeOptions/clampedQuality`` mapped to 1…100,
/// after scaling down to ``EncodeOptions/maxPixelSize`` and flattening alpha onto
/// ``EncodeOptions/backgroundColor``.
///
/// Safe to use from many tasks at once: each call makes its own TurboJPEG handle (never pooled: libjpeg would
/// carry quantization tables from one image into the next).
public struct JPEGCoder: SingleFormatImageCoder {
    public let format = ImageFormat.jpeg

    /// Creates the coder; it has no configuration.
    public init() {}

    /// Decodes JPEG `data`; see the type's documentation for what is supported and refused.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        if let index = options.frameIndex, index != 0 {
            throw ImageError(.invalidParameter, "JPEG: frame \(index) asked of a still image")
        }
        return try JPEGDecoder.decode(data, options: options)
    }

    /// Encodes the first frame of `image` as JPEG; any other `format` is `ImageError.Code.unsupportedFormat`.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .jpeg else {
            throw ImageError(.unsupportedFormat, "the JPEG coder cannot write \(format.rawValue)")
        }
        return try JPEGEncoder.encode(image, options: options)
    }
}
