import CWebP
import Foundation

/// WebP through libwebp (decode, demux, mux, encode).
///
/// Decoding: lossy, lossless and alpha stills straight into the pixel buffer, with libwebp's scaler for
/// thumbnails and the scale-down limit; animations through libwebp's compositing animation decoder (all frames,
/// durations in seconds, loop count; ``DecodeOptions/firstFrameOnly`` stops after the first,
/// ``DecodeOptions/frameIndex`` after that frame, which it returns alone as a still); orientation from
/// the EXIF chunk. The file must be whole: data shorter than the RIFF header's size is refused
/// (`ImageError.Code.badImageData`); `decodeCompleteFrames(_:options:)` returns the frames of a cut or
/// damaged animation that arrived whole, and the error.
///
/// Encoding: lossy with ``EncodeOptions/quality``, or lossless with ``EncodeOptions/lossless``, alpha kept;
/// images with several frames become animations with their durations and loop count, unless
/// ``EncodeOptions/firstFrameOnly``. An image that carries a ``Image/colorProfile`` gets it as an `ICCP` chunk, and its
/// ``Image/metadata`` as `EXIF` and `XMP ` chunks.
public struct WebPCoder: SingleFormatImageCoder {
    /// Always `ImageFormat.webp`.
    public let format = ImageFormat.webp

    /// Creates the coder; it holds no state.
    public init() {}

    /// Decodes a still or animated WebP file. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try Self.withFeatures(of: data) { bytes, features in
            var image: Image
            if features.has_animation != 0 {
                image = try WebPAnimationDecoder.decode(bytes, options: options)
            } else {
                if let index = options.frameIndex, index != 0 {
                    throw ImageError(.invalidParameter, "WebP: frame \(index) asked of a still image")
                }
                image = try WebPStillDecoder.decode(bytes, features: features, options: options)
            }
            image.colorProfile = WebPColorProfile.profile(in: bytes)
            return image
        }
    }

    /// Calls `body` with the bytes of a whole WebP file and its bitstream features; throws for a cut file or
    /// a header libwebp cannot read.
    static func withFeatures<R>(
        of data: Data, _ body: (UnsafeRawBufferPointer, WebPBitstreamFeatures) throws -> R
    ) throws -> R {
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw ImageError(.badImageData, "WebP: the data is empty")
            }
            try checkWhole(bytes)
            var features = WebPBitstreamFeatures()
            let status = WebPGetFeatures(base, bytes.count, &features)
            guard status == VP8_STATUS_OK else { throw WebPStatus.error(status, action: "reading the header") }
            return try body(bytes, features)
        }
    }

    /// Encodes `image` as WebP (animated when it has several frames), after ``EncodeOptions/maxPixelSize``.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .webp else {
            throw ImageError(.unsupportedFormat, "the WebP coder cannot write \(format.rawValue)")
        }
        let encoded: Data
        if image.frames.count > 1, !options.firstFrameOnly {
            let frames = try image.frames.map {
                ImageFrame(pixels: try options.fittingMaxPixelSize($0.pixels), duration: $0.duration)
            }
            encoded = try WebPAnimationEncoder.encode(frames, loopCount: image.loopCount, options: options)
        } else {
            encoded = try WebPEncoder.encode(options.fittingMaxPixelSize(image.pixels), options: options)
        }
        var chunks: [(String, Data)] = []
        if let icc = image.colorProfile?.iccData { chunks.append(("ICCP", icc)) }
        if let exif = image.metadata?.exif { chunks.append(("EXIF", exif)) }
        if let xmp = image.metadata?.xmp { chunks.append(("XMP ", xmp)) }
        return try WebPExtendedChunks.tagging(encoded, with: chunks)
    }

    /// Refuses data shorter than its RIFF header says: a cut download, even when the pixels happen to be complete.
    static func checkWhole(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= 12 else { throw ImageError(.badImageData, "WebP: the data ends inside the header") }
        let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard bytes.count >= riffSize + 8 else {
            throw ImageError(.badImageData, "WebP: \(bytes.count) bytes of a \(riffSize + 8)-byte file")
        }
    }
}
