import Foundation

/// Something that fetches the bytes of an image from a URL: the network, the file system, a `data:` URL, or a
/// plugin of yours. SDWebImage calls this role `SDImageLoader`.
///
/// Loaders throw `ImageError` (anything else is mapped to `ImageError.Code.connectionFailed`) and stop
/// promptly when the calling task is cancelled, throwing `ImageError.Code.cancelled`. What a failed attempt
/// learned travels in the error (`ImageError.statusCode`, and what arrived of a broken body); retrying is the job of
/// a wrapping loader (the downloader's retries).
///
/// A loader only moves bytes: the request arrives made (headers, credentials, timeout, limits), and merging,
/// queueing and the response hooks belong to whoever calls it. The manager gives every loader, built in or yours,
/// the same treatment: one load per equal request however many callers wait (coalescing), a queue ordered by
/// priority, the context's request and response modifiers and its decryptor.
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` (its scheme, and a host where one is needed). Cheap, no I/O.
    func canLoad(_ url: URL) -> Bool

    /// Loads the resource `request` names.
    ///
    /// - Parameter progress: called as bytes arrive, from the loading task, one call at a time. Partial data is
    ///   included when `request.wantsPartialData` is set.
    func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse
}

/// Receives ``ImageLoadProgress`` reports while a load runs.
public typealias ImageLoadProgressHandler = @Sendable (ImageLoadProgress) -> Void

/// How far a load has come.
public struct ImageLoadProgress: Sendable {
    /// Bytes of the body received so far (after decompression).
    public var receivedBytes: Int64
    /// The body's announced length, when the server gave one for an uncompressed body.
    public var expectedBytes: Int64?
    /// Everything received so far, for progressive decoding; only for requests that asked for it.
    public var partialData: Data?
    /// The response head, in the first report after it arrived; `nil` in later reports.
    public var response: ImageResponseMetadata?

    /// Creates a progress report.
    public init(receivedBytes: Int64, expectedBytes: Int64?, partialData: Data? = nil,
                response: ImageResponseMetadata? = nil) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.partialData = partialData
        self.response = response
    }

    /// `receivedBytes / expectedBytes` clamped to 0…1, or `nil` when the length is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, max(0, Double(receivedBytes) / Double(expectedBytes)))
    }
}
