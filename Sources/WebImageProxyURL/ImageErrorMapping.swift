import WebImageCore

extension ProxyError {
    /// The answer for a library error while fetching, decoding or rendering a source, as imgproxy answers it.
    ///
    /// An origin's 4xx is passed on and its 5xx is 502; a source that cannot be reached, is refused by the address
    /// policy or redirects too often is 404; one over the byte or pixel limit, or not an image this server decodes,
    /// is 422; a timeout is 504.
    public init(imageError error: ImageError) {
        let detail = error.message
        switch error.code {
        case .invalidParameter: self.init(status: 404, detail)
        case .destinationRefused: self.init(status: 404, "the source is not allowed: \(detail)")
        case .invalidDownloadStatusCode:
            let status = error.statusCode ?? 502
            let reason = status == 404 || status == 410 ? "the source was not found" : "the source could not be fetched"
            self.init(status: (400..<500).contains(status) ? status : 502, "\(reason): the origin answered \(status)")
        case .responseTooLarge: self.init(status: 422, "the source is too large: \(detail)")
        case .imageTooLarge: self.init(status: 422, "the source image is too large: \(detail)")
        case .badImageData, .unsupportedFormat:
            self.init(status: 422, "the source is not an image this server decodes: \(detail)")
        case .timedOut: self.init(status: 504, "the source took too long: \(detail)")
        case .cancelled: self.init(status: 499, "the request was cancelled")
        case .io: self.init(status: 500, "the server could not read or write its cache: \(detail)")
        default: self.init(status: 404, "the source could not be fetched: \(detail)")
        }
    }
}
