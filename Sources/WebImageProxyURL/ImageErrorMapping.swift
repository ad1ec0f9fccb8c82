import WebImage

extension ProxyError {
    /// The answer for a library error while fetching, decoding or rendering a source.
    ///
    /// What the source is at fault for is 4xx (404 missing, 413 too many bytes, 422 not a decodable image or too
    /// many pixels, 403 refused by the address policy); what the origin or the network is at fault for is 502, or
    /// 504 for a timeout; bad parameters are 400.
    public init(imageError error: ImageError) {
        let detail = error.message
        switch error.code {
        case .invalidParameter: self.init(status: 400, detail)
        case .destinationRefused: self.init(status: 403, "the source is not allowed: \(detail)")
        case .invalidDownloadStatusCode where error.statusCode == 404 || error.statusCode == 410:
            self.init(status: 404, "the source was not found (\(error.statusCode ?? 404))")
        case .responseTooLarge: self.init(status: 413, "the source is too large: \(detail)")
        case .imageTooLarge: self.init(status: 422, "the source image is too large: \(detail)")
        case .badImageData, .unsupportedFormat:
            self.init(status: 422, "the source is not an image this server decodes: \(detail)")
        case .timedOut: self.init(status: 504, "the source took too long: \(detail)")
        case .invalidURL: self.init(status: 400, "the source URL is not valid: \(detail)")
        default: self.init(status: 502, "the source could not be fetched: \(detail)")
        }
    }
}
