import Foundation

/// PNG and APNG through libspng.
///
/// Decoding: every colour type and bit depth (16-bit samples rounded to 8 bits, and kept as
/// ``ImageFrame/deepPixels`` with ``DecodeOptions/keepsHighBitDepth``), palettes and colour keys
/// (tRNS), Adam7 interlace, orientation from the eXIf chunk. A file must be whole, up to its IEND chunk.
/// Thumbnails of non-interlaced files are shrunk row by row while decoding; interlaced ones after a full decode.
///
/// Animated PNG (a file with an acTL chunk before its image data) decodes to every animation frame, composited
/// with the frames' blend and dispose ops, with durations and loop count; ``DecodeOptions/firstFrameOnly`` gives
/// the first animation frame (which is not the default image when that image is not part of the animation), and
/// ``DecodeOptions/frameIndex`` that frame alone, as a still (past the last frame, or other than 0 for a still
/// PNG, it throws `ImageError.Code.invalidParameter`).
/// Damaged animations throw `ImageError.Code.badImageData` rather than returning fewer frames;
/// `decodeCompleteFrames(_:options:)` returns the frames that arrived whole and the error instead.
///
/// Encoding: 8-bit RGBA, or RGB when fully opaque; a still whose every pixel is gray is written gray (with alpha when
/// needed) unless it carries an RGB profile; lossless. A still image with ``ImageFrame/deepPixels`` is written with
/// 16 bits a sample. An image of several frames becomes an APNG (every
/// frame whole, with its duration, and the loop count; see `APNGEncoder`) unless
/// ``EncodeOptions/firstFrameOnly``, which writes the first frame as a still PNG. An image that carries a
/// ``Image/colorProfile`` gets it as an `iCCP` chunk (and `cICP` for code points), and its ``Image/metadata`` as
/// `eXIf` and XMP `iTXt` chunks.
public struct PNGCoder: SingleFormatImageCoder {
    /// Always `ImageFormat.png`.
    public let format = ImageFormat.png

    /// Creates the coder; it holds no state.
    public init() {}

    /// Decodes a PNG or APNG file. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        if data.withUnsafeBytes(APNGFile.declaresAnimation) {
            var image = try data.withUnsafeBytes { try APNGDecoder.decode($0, options: options) }
            image.colorProfile = data.withUnsafeBytes(PNGColorChunks.profile)
            return image
        }
        if let index = options.frameIndex, index != 0 {
            throw ImageError(.invalidParameter, "PNG: frame \(index) asked of a still image")
        }
        // Tagged with its profile by the decoder, which converts a 16-bit file's colour itself.
        return try PNGDecoder.decode(data, options: options)
    }

    /// What `decodeCompleteFrames(_:options:)` read: the frames and the error that stopped reading.
    package typealias PartialDecode = CompleteFrames

    /// Decodes every frame of an APNG that can be read completely, for showing a cut or damaged file the way
    /// browsers do; ``decode(_:options:)`` stays strict and throws for the same data.
    ///
    /// A frame counts as whole once the chunk after its image data has arrived intact: the next frame's fcTL, or
    /// IEND. Reading stops at the first damage after IHDR — data cut short, a bad CRC, a broken sequence number,
    /// a frame whose compressed data libspng refuses — and ``CompleteFrames/error`` is that
    /// `ImageError.Code.badImageData`: for a cut file "PNG: the data ends inside the fdAT chunk at byte N" (or
    /// "inside a chunk header"); for fewer frames than acTL declares, "APNG: acTL declares N frames, the file has
    /// K whole ones". A whole, sound file (or a still PNG) gives everything and no error.
    ///
    /// Throws `ImageError.Code.badImageData` when not even the first frame could be read (a cut still PNG among
    /// others), and `ImageError.Code.imageTooLarge` when the canvas or acTL's frame count exceeds
    /// ``DecodeOptions/limits`` (never lenient).
    package func decodeCompleteFrames(_ data: Data, options: DecodeOptions) throws -> PartialDecode {
        if data.withUnsafeBytes(APNGFile.declaresAnimation) {
            return try data.withUnsafeBytes { try APNGDecoder.decodeFrames($0, options: options, lenient: true) }
        }
        return CompleteFrames(image: try decode(data, options: options), error: nil)
    }

    /// Encodes `image` as PNG, or as APNG when it has several frames, after ``EncodeOptions/maxPixelSize`` is
    /// applied to every frame. See the type's description.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .png else {
            throw ImageError(.unsupportedFormat, "the PNG coder cannot write \(format.rawValue)")
        }
        let encoded: Data
        if image.frames.count > 1, !options.firstFrameOnly {
            let frames = try image.frames.map {
                ImageFrame(pixels: try options.fittingMaxPixelSize($0.pixels), duration: $0.duration)
            }
            encoded = Data(try APNGEncoder.encode(frames, loopCount: image.loopCount))
        } else if let deep = image.frames[0].deepPixels {
            encoded = Data(try PNGEncoder.encodedBytes(deep: options.fittingMaxPixelSize(deep),
                                                       allowsGray: Self.allowsGray(image)))
        } else {
            encoded = try PNGEncoder.encode(options.fittingMaxPixelSize(image.pixels),
                                            allowsGray: Self.allowsGray(image))
        }
        return try PNGAncillaryChunks.tagging(encoded, profile: image.colorProfile, metadata: image.metadata)
    }

    /// Whether a still may be written gray: not when it carries an RGB profile, which PNG allows only on RGB images.
    private static func allowsGray(_ image: Image) -> Bool {
        image.colorProfile.map { $0.space == .gray } ?? true
    }
}
