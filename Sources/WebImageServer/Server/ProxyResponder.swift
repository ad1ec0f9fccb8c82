import Foundation
import HTTPTypes
import NIOCore
import WebImage

/// Turns what the proxy found or made into HTTP answers, with imgproxy's headers: images with their validators
/// (or a 304), `Content-Disposition`, a `Cache-Control` lifetime that never outlives the URL's expiry, and a
/// `Content-Security-Policy` that keeps an image opened as a document (an SVG) from running anything, and
/// `X-Content-Type-Options: nosniff` on every answer, so no browser reads one as another type than it says; the
/// operations' endpoints; errors as a status and a one-line reason; HEAD as GET without its body.
struct ProxyResponder: Sendable {
    /// `Cache-Control: max-age` of results, in seconds (0: `no-cache`).
    let timeToLive: Int
    /// `Cache-Control` of a result whose URL does not expire, made once: most answers carry it.
    private let lastingCacheControl: String

    /// Whether a result's `Cache-Control` follows its source's lifetime when the origin gave one.
    let passesSourceCacheControl: Bool
    /// Whether answers carry `Link: <SOURCE>; rel="canonical"`.
    let setsCanonicalHeader: Bool

    init(timeToLive: Int, passesSourceCacheControl: Bool = false, setsCanonicalHeader: Bool = false) {
        self.timeToLive = timeToLive
        self.passesSourceCacheControl = passesSourceCacheControl
        self.setsCanonicalHeader = setsCanonicalHeader
        lastingCacheControl = Self.cacheControl(maxAge: timeToLive)
    }

    init(configuration: ProxyConfiguration) {
        self.init(timeToLive: configuration.timeToLive,
                  passesSourceCacheControl: configuration.passesSourceCacheControl,
                  setsCanonicalHeader: configuration.setsCanonicalHeader)
    }

    /// imgproxy's policy for every answer: nothing loads, nothing runs, inline styles only.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// `X-Content-Type-Options`, whose one value `nosniff` holds a browser to the answer's `Content-Type`.
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

    /// `result` as a 200, or a 304 when `ifNoneMatch` names its tag.
    func image(_ result: RenderedResult, for request: RenderRequest, ifNoneMatch: String?,
               now: Double = Date().timeIntervalSince1970) -> ProxyResponse {
        var headers = HTTPFields()
        let notModified = ifNoneMatch.map { Self.matches($0, etag: result.etag) } ?? false
        if !notModified {
            // imgproxy's type for every HEIF answer is image/heif.
            headers[.contentType] = result.format == .heic ? "image/heif" : result.format.mimeType
            headers[.contentDisposition] = Self.contentDisposition(
                stem: request.fileStem, options: request.options, format: result.format)
        }
        headers[.eTag] = result.etag
        headers[.lastModified] = result.lastModified
        headers[.cacheControl] = cacheControl(expires: request.options.expires, now: now,
                                              sourceExpires: passesSourceCacheControl ? result.sourceExpires : nil)
        if setsCanonicalHeader, let link = Self.canonicalLink(request.source) { headers[Self.link] = link }
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[Self.contentTypeOptions] = "nosniff"
        if let vary = request.vary { headers[.vary] = vary }
        return notModified ? ProxyResponse(status: 304, headers: headers)
                           : ProxyResponse(status: 200, headers: headers, body: result.body)
    }

    /// An `/info` answer: `result`'s JSON as a 200, or a 304 when `ifNoneMatch` names its tag, with a result's
    /// validators and lifetime.
    func info(_ result: RenderedResult, for request: InfoRequest, ifNoneMatch: String?,
              now: Double = Date().timeIntervalSince1970) -> ProxyResponse {
        var headers = HTTPFields()
        let notModified = ifNoneMatch.map { Self.matches($0, etag: result.etag) } ?? false
        if !notModified { headers[.contentType] = "application/json" }
        headers[.eTag] = result.etag
        headers[.lastModified] = result.lastModified
        headers[.cacheControl] = cacheControl(expires: request.options.expires, now: now,
                                              sourceExpires: passesSourceCacheControl ? result.sourceExpires : nil)
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[Self.contentTypeOptions] = "nosniff"
        return notModified ? ProxyResponse(status: 304, headers: headers)
                           : ProxyResponse(status: 200, headers: headers, body: result.body)
    }

    /// `max-age=N, public`, N the time to live or, when the URL expires sooner, the seconds left until then. A URL
    /// that does not expire and a source with a lifetime of its own (`sourceExpires`, seconds since 1970) get the
    /// seconds left of that instead, longer than the time to live or not, as imgproxy passes the origin's on.
    func cacheControl(expires: Int?, now: Double, sourceExpires: Double? = nil) -> String {
        if let expires { return Self.cacheControl(maxAge: min(timeToLive, max(0, Int(Double(expires) - now)))) }
        guard let sourceExpires else { return lastingCacheControl }
        let left = (sourceExpires - now).rounded(.down)
        return Self.cacheControl(maxAge: left.isFinite ? Int(min(max(0, left), SourceLifetime.longest)) : 0)
    }

    /// `Link`, which names the source as the canonical page of every rendition of it.
    static let link = HTTPField.Name("Link")!

    /// `<SOURCE>; rel="canonical"` for an http or https source, as imgproxy sends it; `nil` for any other.
    static func canonicalLink(_ source: URL) -> String? {
        guard let scheme = source.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return "<\(source.absoluteString)>; rel=\"canonical\""
    }

    static func cacheControl(maxAge: Int) -> String {
        maxAge > 0 ? "max-age=\(maxAge), public" : "no-cache"
    }

    /// The name an answer's file is given before its extension: the URL's `filename`, else the source's last
    /// path segment without its extension, else `image`: a source whose path ends in `/` has no last segment
    /// (`http://host/path/to/` is `image`, as in imgproxy, not `to`). Worked out once a request is routed.
    static func fileStem(source: URL, options: ProcessingOptions) -> String {
        var stem = options.filename ?? ""
        if stem.isEmpty, !source.hasDirectoryPath {
            let last = source.lastPathComponent
            stem = last.lastIndex(of: ".").map { String(last[..<$0]) } ?? last
        }
        return stem.isEmpty ? "image" : stem
    }

    /// `inline` (or `attachment` with `return_attachment`) with a file name: `stem` (``fileStem(source:options:)``)
    /// and the answer's extension, which is always the last: a dot in the stem is written `_`, so the name never
    /// names another type than the answer's (`fn:invoice.html` names `invoice_html.png`). The name is a quoted
    /// string (RFC 9110) that nothing in it can end or break: `"` and `\` are written `%22` and `%5C`, and
    /// control characters (C0, DEL, C1) and Unicode's format characters (a right-to-left override shows
    /// `x\u{202E}gnp.html` as `xlmth.png`) are left out, judged scalar by scalar (`"\r\n"` is one `Character`).
    static func contentDisposition(stem: String, options: ProcessingOptions, format: ImageFormat) -> String {
        let disposition = options.returnAttachment ? "attachment" : "inline"
        var name = ""
        if stem.utf8.allSatisfy({ (0x20...0x7E).contains($0) && !"\"\\.".utf8.contains($0) }) {
            name = stem  // most names: printable ASCII with nothing to change
        } else {
            for scalar in stem.unicodeScalars {
                switch scalar {
                case "\"": name += "%22"
                case "\\": name += "%5C"
                case ".": name += "_"
                case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): continue
                case _ where scalar.properties.generalCategory == .format: continue
                default: name.unicodeScalars.append(scalar)
                }
            }
        }
        return "\(disposition); filename=\"\(name.isEmpty ? "image" : name).\(format.fileExtension)\""
    }

    /// The answer for a failed request: its status, its reason as the body, and `Retry-After` for a 429.
    func failure(_ error: any Error) -> ProxyResponse {
        let proxyError: ProxyError
        switch error {
        case let error as ProxyError: proxyError = error
        case _ where Self.isCancellation(error):
            // Only a client that went away cancels a request: nobody reads this answer, but the access log and
            // the status counters do, and it is not the server's error (nginx's 499).
            proxyError = ProxyError(status: 499, "the client closed the request")
        case let error as ImageError: proxyError = ProxyError(imageError: error)
        default: proxyError = ProxyError(status: 500, "internal error: \(error)")
        }
        var response = text(proxyError.status, proxyError.reason)
        if proxyError.status == 429 { response.headers[.retryAfter] = "1" }
        return response
    }

    /// Whether `error` says the request was cancelled (its client went away).
    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ImageError)?.code == .cancelled
    }

    /// `/metrics`' answer.
    func metrics(_ exposition: String) -> ProxyResponse {
        ProxyResponse(status: 200, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store",
                                             Self.contentTypeOptions: "nosniff"],
                      body: ByteBuffer(string: exposition))
    }

    /// A plain-text answer that is never cached.
    func text(_ status: Int, _ reason: String) -> ProxyResponse {
        ProxyResponse(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store",
                                                .contentSecurityPolicy: Self.contentSecurityPolicy,
                                                Self.contentTypeOptions: "nosniff"],
                      body: ByteBuffer(string: reason + "\n"))
    }

    /// An answer with no body (a CORS preflight's), never cached.
    func empty(_ status: Int) -> ProxyResponse {
        ProxyResponse(status: status, headers: [.cacheControl: "no-store", Self.contentTypeOptions: "nosniff"])
    }

    /// HEAD's answer: the length a GET would have (RFC 9110 §9.3.2), and no body.
    func head(_ response: ProxyResponse) -> ProxyResponse {
        var response = response
        response.headers[.contentLength] = String(response.body.readableBytes)
        response.body = ByteBuffer()
        return response
    }

    /// `If-None-Match` against a strong tag: `*`, or any listed tag equal to it (weak tags compared weakly).
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
