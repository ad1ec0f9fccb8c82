import Foundation

extension ProxyResponder {
    /// The answer made of the fallback image (``FallbackAnswer``), as imgproxy makes it: the image's headers, with
    /// the configured status (0: the status the source's failure has) and, when `settings` gives one, its own
    /// `Cache-Control` lifetime, never past the URL's expiry. Only a 200 is answered 304 for a matching
    /// `If-None-Match`: "not modified" would tell a client to keep showing what it has for a missing image.
    func fallback(_ answer: FallbackAnswer, for request: RenderRequest, settings: ProxyConfiguration.FallbackImage,
                  ifNoneMatch: String?, now: Double = Date().timeIntervalSince1970) -> ProxyResponse {
        let status = settings.status == 0 ? answer.sourceFailure.status : settings.status
        var response = image(answer.result, for: request, ifNoneMatch: status == 200 ? ifNoneMatch : nil, now: now)
        if response.status == 200 { response.status = status }
        if settings.timeToLive > 0 {
            var maxAge = settings.timeToLive
            if let expires = request.options.expires { maxAge = min(maxAge, max(0, Int(Double(expires) - now))) }
            response.headers[.cacheControl] = Self.cacheControl(maxAge: maxAge)
        }
        return response
    }
}
