import Foundation

/// URLs whose last load failed for a reason that will not go away by asking again (SDWebImage's
/// `failedURLs`), each with that failure. A blocked URL fails with `ImageError.Code.blackListed` without a
/// request, unless the load passes ``ImageOptions/retryFailed``; the error carries the first failure's status and
/// the failure itself as its `ImageError.underlyingError`.
public final class FailedURLs: Sendable {
    private struct Entry {
        var since: ContinuousClock.Instant
        var failure: ImageError?
    }

    private let entries = Locked<[URL: Entry]>([:])
    /// How long a URL stays blocked; `nil` keeps it until removed.
    public let expiry: Duration?

    /// A set whose entries expire after `expiry` (`nil`: never).
    public init(expiry: Duration? = nil) {
        self.expiry = expiry
    }

    /// Whether a failure with `error` blocks the URL: an invalid URL, bad image data, an image over the limits,
    /// a refused response (content type, response modifier, body too large), a destination the HTTP loader's
    /// address policy or hop check refused, an HTTP 404 or 410. Not:
    /// cancellation, timeouts, connection and DNS failures, other statuses (5xx may recover), local disk errors,
    /// cache-only misses, invalid parameters (the caller's, not the URL's), and a format no registered coder
    /// reads: a server that negotiates by `Accept` may send another format next time, and a coder for it may be
    /// registered later.
    public static func blocks(after error: ImageError) -> Bool {
        switch error.code {
        case .invalidURL, .badImageData, .imageTooLarge, .invalidDownloadContentType,
             .invalidDownloadResponse, .responseTooLarge, .destinationRefused:
            return true
        case .invalidDownloadStatusCode:
            return error.statusCode == 404 || error.statusCode == 410
        case .cacheNotModified, .blackListed, .cancelled, .timedOut, .connectionFailed, .connectionRefused,
             .notFoundInCache, .io, .unsupportedFormat, .invalidParameter:
            return false
        }
    }

    /// Whether `url` is blocked now.
    public func contains(_ url: URL) -> Bool {
        blocking(url) != nil
    }

    /// The failure that blocked `url`, when it is blocked now and the failure was given to ``insert(_:failure:)``.
    public func failure(for url: URL) -> ImageError? {
        blocking(url)?.failure
    }

    private func blocking(_ url: URL) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[url] else { return nil }
            if let expiry, entry.since.duration(to: .now) >= expiry {
                entries.removeValue(forKey: url)
                return nil
            }
            return entry
        }
    }

    /// Blocks `url` from now on, because of `failure` when given.
    public func insert(_ url: URL, failure: ImageError? = nil) {
        entries.withLock { $0[url] = Entry(since: .now, failure: failure) }
    }

    /// Unblocks `url`.
    public func remove(_ url: URL) {
        entries.withLock { _ = $0.removeValue(forKey: url) }
    }

    /// Unblocks every URL.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many URLs are blocked (expired entries included until next looked up).
    public var count: Int { entries.withLock { $0.count } }
}

extension ImageError {
    /// The failure of a load refused because its URL is blocked: the first failure's status and response, and
    /// the failure itself as the cause, in words a client may be shown (no URL, no advice to programmers).
    static func blocked(after failure: ImageError?) -> ImageError {
        var message = "the image failed to load before and is not requested again"
        if let status = failure?.statusCode { message += " (the server answered \(status))" }
        return ImageError(.blackListed, message, statusCode: failure?.statusCode, response: failure?.response,
                          underlyingError: failure)
    }
}
