import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension HTTPImageLoader {
    /// Validates the response head, then streams the body with a size limit, progress and resumption.
    func readBody(of response: HTTPClientResponse, url: URL, request: ImageLoadRequest,
                  progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        let status = Int(response.status.code)
        request.record?.noteStatus(status)
        let headers = HTTPHeaderFields(response.headers.map { ($0.name, $0.value) })
        let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        let announced = headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        var metadata = ImageResponseMetadata(
            url: url, statusCode: status, headers: headers,
            mimeType: ImageResponseMetadata.mimeType(fromContentType: headers["Content-Type"]),
            expectedContentLength: encoded ? nil : announced, httpVersion: "\(response.version)")

        if status == 304 {
            await discardBody(of: response)
            throw ImageError(.cacheNotModified, "the server says the cached copy of \(url.absoluteString) is current")
        }
        var body = Data()
        if status == 206, let resume = request.resume {
            // The rest of a broken transfer: it must start exactly where our bytes end.
            guard let range = ContentRange(headers["Content-Range"]), range.start == resume.data.count else {
                throw ImageError(.invalidDownloadResponse, "a resumed response does not continue at byte "
                    + "\(resume.data.count): \(headers["Content-Range"] ?? "no Content-Range")")
            }
            body = resume.data
            metadata.statusCode = 200
            metadata.expectedContentLength = range.total ?? announced.map { $0 + Int64(resume.data.count) }
        } else if !request.acceptableStatusCodes.contains(status) {
            await discardBody(of: response)
            throw ImageError(.invalidDownloadStatusCode, "HTTP \(status) for \(url.absoluteString)",
                             statusCode: status)
        }
        guard request.accepts(mimeType: metadata.mimeType) else {
            await discardBody(of: response)
            throw ImageError(.invalidDownloadContentType,
                             "content type \(metadata.mimeType ?? "none") is not acceptable for \(url.absoluteString)")
        }
        let expected = metadata.expectedContentLength
        if let expected, expected > Int64(request.maximumBodySize) {
            throw ImageError(.responseTooLarge,
                             "the body of \(expected) bytes exceeds the limit of \(request.maximumBodySize)")
        }
        let validator = TransferRecord.resumeValidator(for: metadata)
        if let expected { body.reserveCapacity(Int(expected)) }
        progress?(ImageLoadProgress(receivedBytes: Int64(body.count), expectedBytes: expected,
                                    partialData: request.wantsPartialData ? body : nil, response: metadata))
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= request.maximumBodySize else {
                    // Leaving the loop abandons the body, which closes the connection at the limit.
                    throw ImageError(.responseTooLarge, "the body exceeds the limit of \(request.maximumBodySize) bytes")
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                progress?(ImageLoadProgress(receivedBytes: Int64(body.count), expectedBytes: expected,
                                            partialData: request.wantsPartialData ? body : nil))
            }
        } catch {
            let mapped = ImageError.fromTransport(error)
            if mapped.code == .connectionFailed || mapped.code == .timedOut {
                request.record?.noteInterrupted(body: body, validator: validator)
            }
            throw mapped
        }
        if let expected, Int64(body.count) < expected {
            request.record?.noteInterrupted(body: body, validator: validator)
            throw ImageError(.connectionFailed, "the body ended after \(body.count) of \(expected) bytes")
        }
        guard !body.isEmpty else {
            throw ImageError(.badImageData, "the response from \(url.absoluteString) has an empty body")
        }
        return ImageLoadResponse(data: body, metadata: metadata)
    }
}

/// A parsed `Content-Range: bytes START-END/TOTAL` header (TOTAL may be `*`).
struct ContentRange: Equatable {
    let start: Int
    let end: Int
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int(bounds[0]), let end = Int(bounds[1]), start <= end else { return nil }
        self.start = start
        self.end = end
        total = parts[1] == "*" ? nil : Int64(parts[1])
    }
}
