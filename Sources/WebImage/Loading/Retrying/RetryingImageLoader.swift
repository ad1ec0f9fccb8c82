import Foundation

/// A loader that tries another loader again after transient failures (``RetryPolicy``): with backoff, and for a
/// body that broke off, continuing from the bytes that arrived (`Range` + `If-Range`, when the failed attempt's
/// error carried a ``PartialBody``). The wrapped loader knows nothing about retries: what it learned travels in
/// the error it throws (status code, partial body).
package struct RetryingImageLoader: ImageLoader {
    /// The loader asked for each attempt.
    package let base: any ImageLoader
    /// When and how often to try again.
    package let policy: RetryPolicy
    let rateLimiter: TokenBucket?
    /// Told before every attempt (`retry` is 0 for the first).
    let onAttempt: @Sendable (_ url: URL, _ retry: Int) -> Void

    /// Wraps `base`.
    package init(_ base: any ImageLoader, policy: RetryPolicy = RetryPolicy()) {
        self.init(base, policy: policy, rateLimiter: nil, onAttempt: { _, _ in })
    }

    init(_ base: any ImageLoader, policy: RetryPolicy, rateLimiter: TokenBucket?,
         onAttempt: @escaping @Sendable (URL, Int) -> Void) {
        self.base = base
        self.policy = policy
        self.rateLimiter = rateLimiter
        self.onAttempt = onAttempt
    }

    package func canLoad(_ url: URL) -> Bool { base.canLoad(url) }

    package func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        let scheme = request.url.scheme?.lowercased()
        let isNetwork = scheme == "http" || scheme == "https"
        var retry = 0
        var resume: PartialBody?
        while true {
            if Task.isCancelled { throw Self.cancelled }
            if isNetwork, let rateLimiter {
                do { try await rateLimiter.acquire() } catch { throw Self.cancelled }
            }
            onAttempt(request.url, retry)
            do {
                return try await attempt(request, resume: resume, progress: progress)
            } catch {
                let failure = ImageError.fromTransport(error)
                if Task.isCancelled || failure.code == .cancelled { throw Self.cancelled }
                guard retry < policy.maximumRetries,
                      policy.isTransient(failure, statusCode: failure.statusCode) else { throw failure }
                retry += 1
                if policy.resumesInterruptedTransfers, let partial = failure.partialBody {
                    resume = partial
                } else if failure.statusCode != nil {
                    // A response arrived but left nothing to continue from: start over.
                    resume = nil
                }
                do { try await Task.sleep(for: policy.delay(beforeRetry: retry)) } catch { throw Self.cancelled }
            }
        }
    }

    /// One attempt; with `resume`, asks for the rest and puts the two parts together.
    private func attempt(_ request: ImageLoadRequest, resume: PartialBody?,
                         progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        guard let resume else { return try await base.load(request, progress: progress) }
        var ranged = request
        ranged.headers.merge(resume.rangeHeaders)
        // The rest of the body is read whole: the early stop judges a body from its first byte, and what is
        // missing of a broken transfer is usually less than a new one would read anyway.
        ranged.earlyStop = nil
        let prefix = resume.data
        let total = Locked<Int64?>(nil)
        var response = try await base.load(ranged) { report in
            var report = report
            if let head = report.response, head.statusCode == 206 {
                let range = ContentRange(head.headers["Content-Range"])
                total.withLock { $0 = range?.total ?? head.expectedContentLength.map { $0 + Int64(prefix.count) } }
            }
            guard let expected = total.withLock({ $0 }) else { return progress?(report) ?? () }
            report.receivedBytes += Int64(prefix.count)
            report.expectedBytes = expected
            report.partialData = report.partialData.map { prefix + $0 }
            progress?(report)
        }
        guard response.metadata.statusCode == 206 else { return response }  // The server sent it all again.
        // The rest of a broken transfer: it must start exactly where our bytes end.
        guard let range = ContentRange(response.metadata.headers["Content-Range"]), range.start == prefix.count else {
            throw ImageError(.invalidDownloadResponse, "a resumed response does not continue at byte "
                + "\(prefix.count): \(response.metadata.headers["Content-Range"] ?? "no Content-Range")")
        }
        // The loader checked the continuation against what the limit leaves after the prefix; checked again
        // here because the whole is what the limit is about.
        guard prefix.count + response.data.count <= request.maximumBodySize else {
            throw ImageError(.responseTooLarge, "the resumed body exceeds the limit of \(request.maximumBodySize) bytes")
        }
        response.data = prefix + response.data
        response.metadata.statusCode = 200
        response.metadata.expectedContentLength = Int64(response.data.count)
        return response
    }

    static var cancelled: ImageError { ImageError(.cancelled, "the download was cancelled") }
}
