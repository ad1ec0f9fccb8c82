import Foundation

/// What a transfer stage sends one request through: a downloader's transfers (its loaders, retries, rate limit,
/// events and counters) or a bare ``ImageLoader`` given to a manager or a context.
protocol Transport: Sendable {
    /// Who sends: equal requests through equal identities are one transfer.
    var identity: PartIdentity { get }

    /// Whether this transport handles `url`.
    func canLoad(_ url: URL) -> Bool

    /// One transfer of `request`, retried as this transport retries unless `retries` is off.
    func transfer(_ request: ImageLoadRequest, retries: Bool,
                  progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse
}

/// A bare loader as a transport: one attempt, the loader's own behaviour (it retries only if it is a
/// ``RetryingImageLoader``), merged by the loader's identity.
struct LoaderTransport: Transport {
    let loader: any ImageLoader

    var identity: PartIdentity { PartIdentity(loader) }

    func canLoad(_ url: URL) -> Bool {
        loader.canLoad(url)
    }

    func transfer(_ request: ImageLoadRequest, retries: Bool,
                  progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        try await loader.load(request, progress: progress)
    }
}
