extension ImageError {
    /// Where the bytes of a failed image came from, which decides whose fault a failure is.
    public enum Input: Sendable {
        /// Sent by the client (an upload): a bad or oversized image is the client's request's fault (4xx).
        case upload
        /// Fetched from a URL: an origin that fails or is slow is a gateway's failure (502, 504).
        case remoteSource
    }

    /// The HTTP status a server answers its client with for this failure:
    ///
    /// | code | upload | remote source |
    /// |---|---|---|
    /// | `invalidURL`, `invalidParameter` | 400 | 400 |
    /// | `badImageData` | 422 | 422 |
    /// | `unsupportedFormat` | 415 | 422 |
    /// | `imageTooLarge`, `responseTooLarge` | 413 | 422 |
    /// | `invalidDownloadStatusCode` | | 404 for the origin's 404 and 410, else 502 |
    /// | `invalidDownloadResponse`, `invalidDownloadContentType`, `connectionFailed`, `connectionRefused` | | 502 |
    /// | `timedOut` | 408 | 504 |
    /// | `destinationRefused` | | 403 |
    /// | `blackListed` | | the first failure's, else 404 |
    /// | `notFoundInCache` | 404 | 404 |
    /// | `cacheNotModified` | 304 | 304 |
    /// | `cancelled` | 499 | 499 |
    /// | `io` | 500 | 500 |
    public func httpStatus(for input: Input) -> Int {
        let upload = input == .upload
        switch code {
        case .invalidURL, .invalidParameter: return 400
        case .badImageData: return 422
        case .unsupportedFormat: return upload ? 415 : 422
        case .imageTooLarge, .responseTooLarge: return upload ? 413 : 422
        case .invalidDownloadStatusCode: return statusCode == 404 || statusCode == 410 ? 404 : 502
        case .invalidDownloadResponse, .invalidDownloadContentType, .connectionFailed, .connectionRefused: return 502
        case .timedOut: return upload ? 408 : 504
        case .destinationRefused: return 403
        case .blackListed: return (underlyingError as? ImageError)?.httpStatus(for: input) ?? 404
        case .notFoundInCache: return 404
        case .cacheNotModified: return 304
        case .cancelled: return 499
        case .io: return 500
        }
    }
}
