import Foundation

/// Reads and writes GIF through giflib: still images and animations.
///
/// **Decoding** composites every frame onto a full-size canvas the way browsers do (disposal none / background /
/// previous, the transparent index, global and local palettes, interlaced frames, frames clipped to the canvas)
/// and returns each frame as a full-size bitmap, reduced to the thumbnail size when one is asked for.
/// Frame durations follow the graphic control extension's delay, except that a delay under 0.011 s plays as
/// 0.1 s (as browsers and SDWebImage do); the loop count is the NETSCAPE2.0 value as written (0 = forever), 1
/// when the file has none. ``DecodeOptions/firstFrameOnly`` stops reading after the first frame;
/// ``DecodeOptions/frameIndex`` stops after that frame and returns it alone, the frames before it drawn on the
/// canvas but not kept (an index past the last frame throws `ImageError.Code.invalidParameter`). A result of one
/// frame is a still image whatever the file says: duration 0, loop count 1.
///
/// **Damaged files.** ``decode(_:options:)`` is strict: data cut short or a corrupt frame throws
/// `ImageError.Code.badImageData`, so a truncated download is never taken (and cached) as a shorter animation.
/// Callers that want what can be shown, as browsers do, use `decodeCompleteFrames(_:options:)`: it returns the
/// frames completed before the damage (the damaged frame itself is dropped) plus the error that stopped reading.
/// Exceeding ``DecodeLimits`` (canvas pixels, frame count, pixels over all frames) is never lenient: the whole
/// decode is refused with `ImageError.Code.imageTooLarge`.
///
/// **Encoding** writes a still GIF for one frame (or with ``EncodeOptions/firstFrameOnly``) and an animated GIF
/// otherwise, with each frame's duration in centiseconds and the loop count in a NETSCAPE2.0 extension (omitted
/// for a loop count of 1, which is what its absence means). Images of at most 256 colours (255 plus transparency)
/// are written exactly; others are reduced by median cut, with Floyd–Steinberg dithering when ``dithering`` is on.
/// Pixels with alpha below 128 become transparent, all others opaque. ``EncodeOptions/quality`` and
/// ``EncodeOptions/lossless`` do not apply; ``EncodeOptions/maxPixelSize`` and ``EncodeOptions/firstFrameOnly`` do.
public struct GIFCoder: SingleFormatImageCoder {
    /// What `decodeCompleteFrames(_:options:)` read: the frames and the error that stopped reading. The error is
    /// `ImageError.Code.badImageData`; a file that simply lacks its trailer byte reports one too ("without a
    /// trailer"), since it cannot be told apart from one cut between two frames.
    package typealias PartialDecode = CompleteFrames

    public let format = ImageFormat.gif
    /// Spread the error of colour reduction with Floyd–Steinberg dithering when an image has more than 256
    /// colours. On by default; images with few colours are written exactly either way.
    public var dithering: Bool

    /// Creates a GIF coder.
    public init(dithering: Bool = true) {
        self.dithering = dithering
    }

    /// Decodes a whole GIF; damage throws `ImageError.Code.badImageData` (see the type's documentation).
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let result = try decodeCompleteFrames(data, options: options)
        if let error = result.error { throw error }
        return result.image
    }

    /// Decodes every frame that can be read completely and reports whether the file was read to its end.
    ///
    /// Throws `ImageError.Code.badImageData` when not even the first frame could be read, and
    /// `ImageError.Code.imageTooLarge` when the file exceeds ``DecodeOptions/limits``.
    package func decodeCompleteFrames(_ data: Data, options: DecodeOptions) throws -> PartialDecode {
        let progress = try data.withUnsafeBytes { bytes in
            try GIFFrameDecoder(options: options).decode(bytes)
        }
        return PartialDecode(image: try Self.image(from: progress, options: options), error: progress.stopReason)
    }

    /// The image made of the frames read so far: one frame is a still (duration 0, loop count 1). Throws the stop
    /// reason, or `ImageError.Code.badImageData`, when there is no frame.
    static func image(from progress: GIFFrameDecoder.Progress, options: DecodeOptions) throws -> Image {
        guard !progress.frames.isEmpty else {
            throw progress.stopReason ?? ImageError(.badImageData, "GIF: the file holds no image")
        }
        var frames = progress.frames
        let isStill = frames.count == 1
        if isStill { frames[0].duration = 0 }
        var flags: Image.Flags = []
        if progress.hasAlpha { flags.insert(.hasAlpha) }
        if progress.reduced { flags.insert(.thumbnail) }
        return Image(
            frames: frames, loopCount: isStill ? 1 : (progress.loopCount ?? 1), format: .gif,
            scale: options.resolvedScale, orientation: .up, flags: flags)
    }

    /// Encodes `image` as GIF; see the type's documentation.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .gif else {
            throw ImageError(.unsupportedFormat, "the GIF coder cannot write \(format.rawValue)")
        }
        return try GIFEncoder(dithering: dithering).encode(image, options: options)
    }
}
