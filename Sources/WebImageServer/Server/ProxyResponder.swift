import Foundation
import WebImage

/// Turns what the proxy found or made into HTTP answers: images with their validators (or a 304), the operations'
/// endpoints, errors as a status and a one-line reason, HEAD as GET without its body.
struct ProxyResponder: Sendable {
    /// `Cache-Control: max-age` of results, in seconds.
    let timeToLive: Int

    /// `result` as a 200, or a 304 when `ifNoneMatch` names its tag.
    func image(_ result: RenderedResult, ifNoneMatch: String?, varies: Bool) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("ETag", result.etag), ("Last-Modified", result.lastModified),
            ("Cache-Control", "public, max-age=\(timeToLive)"),
        ]
        if varies { headers.append(("Vary", "Accept")) }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: result.etag) {
            return ProxyResponse(status: 304, headers: headers, body: Data())
        }
        headers.insert(("Content-Type", result.format.mimeType), at: 0)
        return ProxyResponse(status: 200, headers: headers, body: result.data)
    }

    /// The answer for a failed request: its status, its reason as the body, and `Retry-After` for a 429.
    func failure(_ error: any Error) -> ProxyResponse {
        let proxyError: ProxyError
        switch error {
        case let error as ProxyError: proxyError = error
        case let error as ImageError: proxyError = ProxyError(imageError: error)
        default: proxyError = ProxyError(status: 500, "internal error: \(error)")
        }
        return text(proxyError.status, proxyError.reason,
                    extra: proxyError.status == 429 ? [("Retry-After", "1")] : [])
    }

    /// `/metrics`' answer.
    func metrics(_ exposition: String) -> ProxyResponse {
        ProxyResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4"), ("Cache-Control", "no-store")],
                      body: Data(exposition.utf8))
    }

    /// A plain-text answer that is never cached.
    func text(_ status: Int, _ reason: String, extra: [(String, String)] = []) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "text/plain; charset=utf-8"),
                                                         ("Cache-Control", "no-store")]
        headers += extra.map { (name: $0.0, value: $0.1) }
        return ProxyResponse(status: status, headers: headers, body: Data((reason + "\n").utf8))
    }

    /// HEAD's answer: the length a GET would have (RFC 9110 §9.3.2), and no body.
    func head(_ response: ProxyResponse) -> ProxyResponse {
        var response = response
        response.headers.append(("Content-Length", String(response.body.count)))
        response.body = Data()
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
