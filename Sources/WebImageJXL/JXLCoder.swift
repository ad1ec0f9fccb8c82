import CJXL
import Foundation
import WebImage

/// JPEG XL through libjxl (0.7 or later): still images and animations, in the bare codestream (`FF 0A`) or the
/// ISO BMFF container.
///
/// **Decoding** gives 8-bit RGBA with straight alpha; lossy (XYB) images come out as sRGB. Animations come back
/// as one full canvas per displayed frame (libjxl blends them), with durations from each frame header's ticks and
/// the animation header's tick rate (under 0.011 s plays as 0.1 s, as for every animated format) and the loop
/// count as written (0 = forever). The codestream's orientation is reported in ``Image/orientation`` and applied
/// to the pixels unless ``DecodeOptions/applyOrientation`` is off. ``DecodeOptions/firstFrameOnly`` stops after
/// the first frame; ``DecodeOptions/frameIndex`` has libjxl skip to that frame. Thumbnails are decoded at full
/// size, then area-averaged down. The image size is checked against ``DecodeOptions/limits`` from the header,
/// the frame and total-pixel limits on each frame header as it arrives, always before pixels are decoded. The
/// file must be whole: cut or corrupt data throws ``ImageError/Code/badImageData``. A result of one frame is a
/// still image: duration 0, loop count 1.
///
/// **Encoding** writes 8-bit sRGB, with an alpha channel when some pixel is not opaque. Lossy by default at
/// ``EncodeOptions/quality`` (mapped to a butteraugli distance as cjxl's `-q` does: 0.9 is distance 1,
/// "visually lossless"); ``EncodeOptions/lossless`` round-trips every pixel exactly. Several frames become an
/// animation with millisecond ticks and the image's loop count, unless ``EncodeOptions/firstFrameOnly``.
/// ``EncodeOptions/maxPixelSize`` applies to every frame.
///
/// **Threads.** libjxl runs on the calling thread, without its thread-pool runner: the library decodes many images
/// at once from separate tasks, and on a 2-core machine a 2-thread runner made a 3000×2000 decode slower (393 ms
/// against 340 ms), with a thread start-up cost on every small image.
public struct JXLCoder: SingleFormatImageCoder {
    /// Always ``ImageFormat/jxl``.
    public let format = ImageFormat.jxl
    /// libjxl's encoder effort, 1 (fastest) to 9 (smallest files). The default, 3, encodes a 300×200 image in
    /// about 6 ms, fast enough for thumbnails made on the fly; cjxl's default, 7, took 29 ms.
    public let effort: Int

    /// Creates the coder; `effort` is clamped to 1…9.
    public init(effort: Int = 3) {
        self.effort = min(max(effort, 1), 9)
    }

    /// Decodes a still or animated JPEG XL file. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try data.withUnsafeBytes { try JXLImageDecoder.decode($0, options: options) }
    }

    /// Encodes `image` as JPEG XL (animated when it has several frames), after ``EncodeOptions/maxPixelSize``.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .jxl else {
            throw ImageError(.unsupportedFormat, "the JPEG XL coder cannot write \(format.rawValue)")
        }
        let frames = options.firstFrameOnly ? [image.frames[0]] : image.frames
        let fitted = try frames.map { try options.fittingMaxPixelSize($0) }
        return Data(try JXLEncoder.encode(fitted, loopCount: image.loopCount, colorProfile: image.colorProfile,
                                          metadata: image.metadata, options: options, effort: effort))
    }
}
