import Foundation

/// What makes two load requests "the same bytes": everything that can change the response or how it is judged —
/// the URL, headers, credentials, cookie and TLS switches, status and type filters, limits, and the timeout (a
/// caller that allows 1 s must not ride on a transfer that allows 60 s, nor the reverse), and the early stop (a
/// caller that needs the whole body must not ride on a transfer that may end early). Priority and whether a
/// caller wants partial data are per caller and not part of it. The hash is computed once.
struct ImageLoadKey: Hashable, Sendable {
    private let precomputedHash: Int
    let url: String
    /// The headers in canonical form.
    let headers: [String]
    let credentials: BasicCredentials?
    let handlesCookies: Bool
    let allowsInvalidCertificates: Bool
    let acceptableStatusCodes: IndexSet
    let acceptableContentTypes: Set<String>?
    let maximumBodySize: Int
    let maximumRedirects: Int
    let timeout: Duration
    let retries: Bool
    let earlyStop: EarlyStop?

    init(_ request: ImageLoadRequest, retries: Bool) {
        url = request.url.absoluteString
        headers = request.headers.canonical
        credentials = request.credentials
        handlesCookies = request.handlesCookies
        allowsInvalidCertificates = request.allowsInvalidCertificates
        acceptableStatusCodes = request.acceptableStatusCodes
        acceptableContentTypes = request.acceptableContentTypes
        maximumBodySize = request.maximumBodySize
        maximumRedirects = request.maximumRedirects
        timeout = request.timeout
        self.retries = retries
        earlyStop = request.earlyStop
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(credentials)
        hasher.combine(handlesCookies)
        hasher.combine(allowsInvalidCertificates)
        hasher.combine(acceptableStatusCodes)
        hasher.combine(acceptableContentTypes)
        hasher.combine(maximumBodySize)
        hasher.combine(maximumRedirects)
        hasher.combine(timeout)
        hasher.combine(retries)
        hasher.combine(earlyStop)
        precomputedHash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }
}
