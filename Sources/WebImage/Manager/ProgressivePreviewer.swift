import Foundation

/// Turns the bytes received so far into preview images for `progressiveLoad`. Only the new bytes of each
/// report are fed to an ``IncrementalDecoder`` (its work grows with them, not with the total); the decoder's
/// ``IncrementalDecoder/PartialImagePolicy`` decides when a new partial image is worth building, and only a new
/// one becomes a preview.
final class ProgressivePreviewer: @unchecked Sendable {
    // C boundary: owns an IncrementalDecoder (libjpeg / libpng / libwebp state); `state`'s lock serializes every
    // use of it.
    private let decoder: IncrementalDecoder
    /// What was fed and shown so far; its lock is held for every use of the decoder. (Not a `Locked<Void>` beside
    /// plain properties: ThreadSanitizer reports a zero-sized value's accesses as races on the lock object.)
    private let state = Locked(State())

    private struct State {
        var fed = 0
        var lastPreview: ObjectIdentifier?
        var failed = false
    }

    init(options: DecodeOptions, coders: ImageCoders) {
        decoder = IncrementalDecoder(options: options, coders: coders)
    }

    /// A new preview from `received` (everything so far), or `nil` when there is nothing new to show. A decoder
    /// error stops previews; the final decode reports the problem.
    func preview(from received: Data) -> Image? {
        state.withLock { state -> Image? in
            guard !state.failed, received.count > state.fed else { return nil }
            do {
                try decoder.append(received.subdata(in: received.startIndex + state.fed ..< received.endIndex))
            } catch {
                state.failed = true
                return nil
            }
            state.fed = received.count
            // The complete image is the final result, not a preview.
            guard let image = decoder.currentImage(), image.flags.contains(.incremental) else { return nil }
            let identity = ObjectIdentifier(image.pixels.storage)
            guard identity != state.lastPreview else { return nil }
            state.lastPreview = identity
            return image
        }
    }
}
