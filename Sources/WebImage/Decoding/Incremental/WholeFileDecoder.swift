import Foundation

/// The fallback for data no push decoder handles (GIF, animations, CMYK JPEG, formats from plugins): nothing is
/// shown while bytes arrive, and the complete data is decoded once by the coders, so the result is theirs.
final class WholeFileDecoder: PushDecoder {
    private let coders: ImageCoders
    private let options: DecodeOptions

    init(coders: ImageCoders, options: DecodeOptions) {
        self.coders = coders
        self.options = options
    }

    /// Unknown until the coders have seen the data.
    var isComplete: Bool { false }

    var progress: Int { 0 }

    var outputPixelCount: Int { 0 }

    func consume(_ chunk: UnsafeRawBufferPointer, received: Data) throws -> PushOutcome { .decoding }

    func partialPixels() -> PartialPixels? { nil }

    func finalImage(received: Data) throws -> Image {
        try coders.decode(received, options: options)
    }
}
