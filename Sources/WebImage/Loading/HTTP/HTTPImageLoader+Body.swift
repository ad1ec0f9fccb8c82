import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension HTTPImageLoader {
    /// Validates the response head, then streams the body with a size limit and progress. A `206` answer to a
    /// request that asked for a range is returned as it came (the caller that asked continues its own bytes); a
    /// body that breaks off fails with what had arrived in ``ImageError/partialBody`` when it can be resumed.
    func readBody(of response: HTTPClientResponse, url: URL, request: ImageLoadRequest,
                  progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        let status = Int(response.status.code)
        let headers = HTTPHeaderFields(response.headers.map { ($0.name, $0.value) })
        let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        let announced = headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        let metadata = ImageResponseMetadata(
            url: url, statusCode: status, headers: headers,
            mimeType: ImageResponseMetadata.mimeType(fromContentType: headers["Content-Type"]),
            expectedContentLength: encoded ? nil : announced, httpVersion: "\(response.version)")

        if status == 304 {
            await discardBody(of: response)
            throw ImageError(.cacheNotModified, "the server says the cached copy of \(url.absoluteString) is current",
                             response: metadata)
        }
        var body = Data()
        let askedForRange = request.headers["Range"] != nil
        if !(status == 206 && askedForRange) && !request.acceptableStatusCodes.contains(status) {
            await discardBody(of: response)
            throw ImageError(.invalidDownloadStatusCode, "HTTP \(status) for \(url.absoluteString)",
                             statusCode: status, response: metadata)
        }
        guard request.accepts(mimeType: metadata.mimeType) else {
            await discardBody(of: response)
            throw ImageError(.invalidDownloadContentType,
                             "content type \(metadata.mimeType ?? "none") is not acceptable for \(url.absoluteString)",
                             response: metadata)
        }
        // A continuation of a broken transfer (a 206 to our `Range`) is checked together with the bytes before
        // it: the limit is on the whole image, or each resumed attempt could bring nearly another limit's worth.
        let alreadyHeld = status == 206 && askedForRange ? Self.rangeStart(request.headers["Range"]) ?? 0 : 0
        let limit = max(0, request.maximumBodySize - alreadyHeld)
        if status == 206, let total = ContentRange(headers["Content-Range"])?.total,
           total > Int64(request.maximumBodySize) {
            await discardBody(of: response)
            throw ImageError(.responseTooLarge,
                             "the body of \(total) bytes exceeds the limit of \(request.maximumBodySize)")
        }
        let expected = metadata.expectedContentLength
        if let expected, expected > Int64(limit) {
            throw ImageError(.responseTooLarge, "the body of \(expected + Int64(alreadyHeld)) bytes exceeds the limit "
                + "of \(request.maximumBodySize)")
        }
        let validator = PartialBody.resumeValidator(for: metadata)
        if let expected { body.reserveCapacity(Int(expected)) }
        progress?(ImageLoadProgress(receivedBytes: Int64(body.count), expectedBytes: expected,
                                    partialData: request.wantsPartialData ? body : nil, response: metadata))
        // A continuation of a broken transfer lacks the file's start, which the early stop reads from.
        var earlyStop = askedForRange ? nil : request.earlyStop.map(EarlyStopWatch.init)
        var isPrefix = false
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= limit else {
                    // Leaving the loop abandons the body, which closes the connection at the limit.
                    throw ImageError(.responseTooLarge, "the body exceeds the limit of \(request.maximumBodySize) bytes")
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                if let prefix = earlyStop?.sufficientPrefix(of: body) {
                    // Enough for the decode: leaving the loop abandons the rest, which closes the connection.
                    body = prefix
                    isPrefix = true
                    earlyStop = nil
                }
                progress?(ImageLoadProgress(receivedBytes: Int64(body.count), expectedBytes: expected,
                                            partialData: request.wantsPartialData ? body : nil))
                if isPrefix { break }
            }
        } catch {
            let mapped = ImageError.fromTransport(error)
            guard mapped.code == .connectionFailed || mapped.code == .timedOut else { throw mapped }
            throw ImageError(mapped.code, mapped.message, statusCode: status,
                             partialBody: Self.partial(body, validator: validator))
        }
        if let expected, Int64(body.count) < expected, !isPrefix {
            throw ImageError(.connectionFailed, "the body ended after \(body.count) of \(expected) bytes",
                             statusCode: status, partialBody: Self.partial(body, validator: validator))
        }
        guard !body.isEmpty else {
            throw ImageError(.badImageData, "the response from \(url.absoluteString) has an empty body")
        }
        var loaded = ImageLoadResponse(data: body, metadata: metadata)
        loaded.isPrefix = isPrefix
        return loaded
    }
}

extension HTTPImageLoader {
    /// The first byte a `Range: bytes=START-` header asks for.
    static func rangeStart(_ header: String?) -> Int? {
        guard let header, header.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[..<dash].trimmingCharacters(in: .whitespaces))
    }

    /// What a broken body leaves to resume from: nothing without bytes or a usable validator.
    static func partial(_ body: Data, validator: String?) -> PartialBody? {
        guard !body.isEmpty, let validator else { return nil }
        return PartialBody(data: body, validator: validator)
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
