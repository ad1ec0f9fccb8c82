import Foundation

/// What the stages of a load report while they run, passed on to each caller's ``ImageTask``.
enum ImageTaskUpdate: Sendable {
    case progress(ImageLoadProgress)
    case preview(Image)
}

/// The decode stage's value: the original decoded, with the response it came from.
struct DecodedOriginal: Sendable {
    let image: Image
    let response: ImageLoadResponse
    /// Whether the bytes hold more frames than were decoded (a first-frame-only decode of an animation): such an
    /// image is not what other loads expect from the memory cache.
    let isTrimmedAnimation: Bool
}

/// The final stage's value: the result, and the cache stores still running after it (a caller that passed
/// ``ImageOptions/waitStoreCache`` waits for them before it is handed the result).
struct FinalImage: Sendable {
    let result: ImageResult
    let stores: Task<Void, Never>?
}

typealias FinalImageTask = SharedTask<FinalImage, ImageTaskUpdate>
typealias DecodeTask = SharedTask<DecodedOriginal, ImageTaskUpdate>
