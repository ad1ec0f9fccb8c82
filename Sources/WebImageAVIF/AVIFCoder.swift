import Foundation
import WebImage

/// AVIF through libavif 0.11 (AV1 decoded by dav1d or libaom, encoded by libaom). Register it with
/// `ImageCoders.shared.add(AVIFCoder())`.
///
/// Decoding: 8, 10 and 12-bit images, any chroma subsampling, to RGBA8; alpha (``Image/hasAlpha`` is set when
/// the file declares an alpha plane); the HEIF `irot` and `imir` properties, which libavif 0.11 leaves
/// unapplied, turned into the image's ``Orientation`` and applied like EXIF orientation (the Exif tag counts
/// only when neither property is present); image sequences as animations with every frame's duration and a
/// loop count of 0 (forever: libavif 0.11 does not expose the repetition count);
/// ``DecodeOptions/firstFrameOnly``; ``DecodeOptions/frameIndex`` (that frame alone, as a still image);
/// thumbnails by area-averaging the full decode. Sizes and frame counts are checked against
/// ``DecodeOptions/limits`` from the container before any AV1 data is decoded. The clean aperture (`clap`) is
/// not applied: the full coded picture is returned. Files are read leniently, as browsers read them: an image
/// item without its `pixi` property, an invalid `clap` or an alpha item without `ispe` is still decoded.
///
/// Encoding: lossy YUV 4:2:0 at ``EncodeOptions/quality``, or lossless (``EncodeOptions/lossless``: 4:4:4,
/// identity matrix, quantizer 0, exact round trip); alpha kept; animations become AVIF sequences with their
/// frame durations (played forever), unless ``EncodeOptions/firstFrameOnly``.
public struct AVIFCoder: SingleFormatImageCoder {
    /// Always ``ImageFormat/avif``.
    public let format = ImageFormat.avif
    /// The AV1 encoder's speed, 0 (slowest, smallest) to 10 (fastest).
    public var speed: Int
    /// Reads the thumbnail embedded in a file for ``DecodeOptions/prefersEmbeddedThumbnail`` (`nil` when the file
    /// has none). libavif does not expose thumbnail items, so this comes from elsewhere: `HEIFCoder`'s
    /// `embeddedThumbnail(of:options:)` reads them through libheif. Without a reader the option is ignored.
    public var embeddedThumbnails: (@Sendable (Data, DecodeOptions) throws -> Image?)?

    /// Creates the coder. The default encoder speed, 8, is fast enough for thumbnails made on the fly
    /// (libaom takes about 14 ms for 300×200 pixels).
    public init(speed: Int = 8, embeddedThumbnails: (@Sendable (Data, DecodeOptions) throws -> Image?)? = nil) {
        self.speed = speed
        self.embeddedThumbnails = embeddedThumbnails
    }

    /// Decodes a still AVIF or an image sequence, or its embedded thumbnail (see ``embeddedThumbnails``). See the
    /// type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        // A thumbnail that cannot be read is no reason to fail: the main image is decoded instead, as imgproxy
        // falls back to it.
        if options.prefersEmbeddedThumbnail, let reader = embeddedThumbnails,
           let thumbnail = try? reader(data, options) {
            return thumbnail
        }
        return try data.withUnsafeBytes { bytes in
            try AVIFDecoder.decode(bytes, options: options)
        }
    }

    /// Encodes `image` as AVIF (a sequence when it has several frames), after ``EncodeOptions/maxPixelSize``.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .avif else {
            throw ImageError(.unsupportedFormat, "the AVIF coder cannot write \(format.rawValue)")
        }
        let frames = options.firstFrameOnly ? [image.frames[0]] : image.frames
        let fitted = try frames.map { try options.fittingMaxPixelSize($0) }
        return try AVIFEncoder.encode(fitted, hasAlpha: image.hasAlpha, colorProfile: image.colorProfile,
                                      metadata: image.metadata, speed: speed, options: options)
    }
}
