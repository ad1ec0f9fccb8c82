import Foundation

/// One format's decoder behind ``IncrementalDecoder``: it keeps its C decoder alive between chunks and does
/// work in proportion to the bytes it is given.
protocol PushDecoder: AnyObject {
    /// Takes the bytes that follow everything given before. `received` holds all bytes so far, `chunk` included.
    /// Throws the first error the data shows (a limit exceeded by the header, corrupt data).
    func consume(_ chunk: UnsafeRawBufferPointer, received: Data) throws -> PushOutcome

    /// Whether the end of the image has been read.
    var isComplete: Bool { get }

    /// Pixels of the bitmap being decoded (after DCT or libwebp scaling); 0 before the header. A partial image
    /// costs work in proportion to it.
    var outputPixelCount: Int { get }

    /// Grows whenever a new partial image would show more (rows, passes, scans); 0 while nothing can be shown.
    var progress: Int { get }

    /// The stored (not yet scaled or turned) pixels as far as they are known, or `nil` when nothing can be shown
    /// yet. Rows not decoded yet are transparent.
    func partialPixels() -> PartialPixels?

    /// An animation's frames completed so far, each composited and finished, as one image flagged
    /// ``Image/Flags/incremental``; `nil` while there is none, and always for decoders that show a partial bitmap
    /// (``partialPixels()``) instead.
    func completedFrames() -> Image?

    /// The whole image with the options applied; called once, after ``isComplete`` became true.
    func finalImage(received: Data) throws -> Image
}

extension PushDecoder {
    func completedFrames() -> Image? { nil }
}

/// What a push decoder made of a chunk.
enum PushOutcome {
    /// Decoding goes on chunk by chunk.
    case decoding
    /// This file cannot be decoded piecewise (an animation, CMYK JPEG, …): collect the bytes and decode them
    /// with the coders once they are complete.
    case needsWholeFile
}

/// A partial bitmap and what ``DecodeOptions/finish(_:sourceSize:orientation:)`` needs to scale and turn it.
struct PartialPixels {
    var pixels: PixelBuffer
    /// The stored size of the whole image (the canvas may be smaller: JPEG DCT scaling, libwebp's scaler).
    var sourceSize: PixelSize
    var orientation: Orientation
    /// Some pixels are transparent: rows not decoded yet, or an alpha channel.
    var hasAlpha: Bool
}
