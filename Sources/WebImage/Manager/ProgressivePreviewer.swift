import Foundation

/// Turns the bytes received so far into preview images for `progressiveLoad`. Only the new bytes of each
/// report are fed to an ``IncrementalDecoder`` (its work grows with them, not with the total); the decoder's
/// ``IncrementalDecoder/PartialImagePolicy`` decides when a new partial image is worth building, and only a new
/// one becomes a preview.
final class ProgressivePreviewer: @unchecked Sendable {
    // C boundary: owns an IncrementalDecoder (libjpeg / libpng / libwebp state); `lock` serializes every use.
    private let lock = Locked(())
    private let decoder: IncrementalDecoder
    private var fed = 0
    private var lastPreview: ObjectIdentifier?
    private var failed = false

    init(options: DecodeOptions, coders: ImageCoders) {
        decoder = IncrementalDecoder(options: options, coders: coders)
    }

    /// A new preview from `received` (everything so far), or `nil` when there is nothing new to show. A decoder
    /// error stops previews; the final decode reports the problem.
    func preview(from received: Data) -> Image? {
        lock.withLock { _ -> Image? in
            guard !failed, received.count > fed else { return nil }
            do {
                try decoder.append(received.subdata(in: received.startIndex + fed ..< received.endIndex))
            } catch {
                failed = true
                return nil
            }
            fed = received.count
            // The complete image is the final result, not a preview.
            guard let image = decoder.currentImage(), image.flags.contains(.incremental) else { return nil }
            let identity = ObjectIdentifier(image.pixels.storage)
            guard identity != lastPreview else { return nil }
            lastPreview = identity
            return image
        }
    }
}
