import Foundation

/// Turns the bytes received so far into preview images for `progressiveLoad`. Only the new bytes of each
/// report are fed to an ``IncrementalDecoder`` (its work grows with them, not with the total), and a preview
/// is rendered when at least an eighth of the expected body (or 64 KB when the length is unknown) arrived
/// since the last one, so a slow trickle of tiny chunks does not render the canvas thousands of times.
final class ProgressivePreviewer: @unchecked Sendable {
    // C boundary: owns an IncrementalDecoder (libjpeg / libpng / libwebp state); `lock` serializes every use.
    private let lock = Locked(())
    private let decoder: IncrementalDecoder
    private var fed = 0
    private var renderedAt = 0
    private var failed = false

    init(options: DecodeOptions, coders: ImageCoders) {
        decoder = IncrementalDecoder(options: options, coders: coders)
    }

    /// A preview from `received` (everything so far), or `nil` when it is too soon or nothing is decodable
    /// yet. A decoder error stops previews; the final decode reports the problem.
    func preview(from received: Data, expected: Int64?) -> Image? {
        lock.withLock { _ -> Image? in
            guard !failed, received.count > fed else { return nil }
            do {
                try decoder.append(received.subdata(in: received.startIndex + fed ..< received.endIndex))
            } catch {
                failed = true
                return nil
            }
            fed = received.count
            let step = expected.map { max(1, Int($0) / 8) } ?? 64 * 1024
            guard fed - renderedAt >= step || (expected.map { fed >= Int($0) } ?? false) else { return nil }
            renderedAt = fed
            // The complete image is the final result, not a preview.
            guard let image = decoder.currentImage(), image.flags.contains(.incremental) else { return nil }
            return image
        }
    }
}
