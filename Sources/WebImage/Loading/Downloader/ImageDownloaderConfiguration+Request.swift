import Foundation

extension ImageDownloaderConfiguration {
    /// The defaults a request starts from when its loader brings none of its own (any loader but a downloader's).
    static let standard = ImageDownloaderConfiguration()

    /// The request for `url`: these headers, the context's on top, the headers filter, then the request modifier
    /// (the context's, else this configuration's). The one rule by which a request is made, for a downloader's
    /// own downloads, for a manager loading through a downloader, and (with ``standard``) for every other loader.
    /// Throws `ImageError.Code.cancelled` when the request modifier cancels it.
    func request(for url: URL, options: DownloadOptions, context: DownloadContext) throws -> ImageLoadRequest {
        var headers = self.headers
        // Read per request, not when the configuration was made: coders registered later count.
        if headers["Accept"] == nil { headers["Accept"] = ImageLoadRequest.defaultAccept }
        headers.merge(context.headers)
        if let headersFilter { headers = headersFilter(url, headers) }
        let request = ImageLoadRequest(
            url: url, headers: headers, timeout: context.timeout ?? timeout,
            credentials: context.credentials ?? credentials,
            handlesCookies: options.contains(.handleCookies),
            allowsInvalidCertificates: options.contains(.allowInvalidSSLCertificates),
            wantsPartialData: options.contains(.progressiveLoad),
            acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes,
            maximumBodySize: maximumBodySize, maximumRedirects: maximumRedirects, priority: options.priority)
        guard let modifier = context.requestModifier ?? requestModifier else { return request }
        guard let modified = modifier(request) else {
            throw ImageError(.cancelled, "the request modifier cancelled the load of \(url.absoluteString)")
        }
        return modified
    }
}
