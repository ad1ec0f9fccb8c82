import CWebP
import Foundation

extension WebPCoder {
    /// What `decodeCompleteFrames(_:options:)` read: the frames and the error that stopped reading.
    package typealias PartialDecode = CompleteFrames

    /// Decodes every frame of an animated WebP that can be read completely, for showing a cut or damaged file
    /// the way browsers do; ``decode(_:options:)`` stays strict and throws for the same data.
    ///
    /// - Data shorter than its RIFF header declares: the frames whose ANMF chunks arrived whole are decoded (as
    ///   in the whole file: compositing depends only on earlier frames), and ``CompleteFrames/error`` is
    ///   `ImageError.Code.badImageData` "WebP: the data ends after N whole frames (X of a Y-byte file)". An
    ///   EXIF chunk after the frames is then missing, so such frames are not turned.
    /// - A whole file with a frame libwebp cannot decode: the frames before it, and the error "WebP: frame N of M
    ///   is corrupt or truncated".
    /// - A whole, sound file (animated or still): everything, and no error.
    ///
    /// Throws `ImageError.Code.badImageData` when not even the first frame could be read (a cut still image
    /// among others), and `ImageError.Code.imageTooLarge` when the canvas or the complete frames exceed
    /// ``DecodeOptions/limits``.
    package func decodeCompleteFrames(_ data: Data, options: DecodeOptions) throws -> PartialDecode {
        let (isAnimated, whole) = data.withUnsafeBytes { bytes in
            var features = WebPBitstreamFeatures()
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let status = WebPGetFeatures(base, bytes.count, &features)
            let isAnimated = (status == VP8_STATUS_OK || status == VP8_STATUS_NOT_ENOUGH_DATA)
                && features.has_animation != 0
            return (isAnimated, (try? Self.checkWhole(bytes)) != nil)
        }
        guard isAnimated else { return CompleteFrames(image: try decode(data, options: options), error: nil) }
        if whole {
            return try data.withUnsafeBytes {
                try WebPAnimationDecoder.decodeFrames($0, options: options, lenient: true)
            }
        }
        let cut = try data.withUnsafeBytes { try Self.wholeFramesPrefix(of: $0) }
        let declared = WebPPushDecoder.declaredLength(data) ?? data.count
        let error = ImageError(
            .badImageData,
            "WebP: the data ends after \(cut.frames) whole frames (\(data.count) of a \(declared)-byte file)")
        let result = try cut.bytes.withUnsafeBytes {
            try WebPAnimationDecoder.decodeFrames($0, options: options, lenient: true)
        }
        return CompleteFrames(image: result.image, error: result.error ?? error)
    }

    /// The start of a cut animated file up to the end of its last whole ANMF chunk, with the RIFF size written to
    /// match, so libwebp's demuxer takes it as a whole file of fewer frames; and how many frames it holds. Reads
    /// chunk headers only. Throws `ImageError.Code.badImageData` when no frame arrived whole.
    static func wholeFramesPrefix(of bytes: UnsafeRawBufferPointer) throws -> (bytes: [UInt8], frames: Int) {
        guard bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8)
        else { throw ImageError(.badImageData, "WebP: the data does not start with a RIFF WEBP header") }
        var offset = 12, end = 0, frames = 0
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let chunkEnd = offset + 8 + size + (size & 1)  // chunks are padded to an even length
            guard chunkEnd <= bytes.count else { break }
            if Array(bytes[offset..<(offset + 4)]) == Array("ANMF".utf8) {
                frames += 1
                end = chunkEnd
            }
            offset = chunkEnd
        }
        guard frames > 0 else { throw ImageError(.badImageData, "WebP: the data ends before the first frame is whole") }
        var prefix = Array(bytes[0..<end])
        let riffSize = UInt32(end - 8)
        for index in 0..<4 { prefix[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(index))) }
        return (prefix, frames)
    }
}
