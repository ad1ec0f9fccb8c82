import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What one hop of a load ends in.
enum HopOutcome: Sendable {
    /// A redirect to follow (its small body was read and dropped, so its connection is kept).
    case redirect(URL)
    /// The final response: the whole body, or the prefix an early stop found sufficient.
    case response(ImageLoadResponse)
    /// A range of a ranged prefix that was not enough: ask for the next one.
    case moreRange(RangedPrefix)
}

/// Receives one hop's response on the event loop that reads it. The head is checked as it arrives; each body part
/// is appended to one buffer reserved from Content-Length, and progress and the early stop are decided per part,
/// with no hop to another thread and no async sequence in between (through AsyncHTTPClient's async body, each 64 KB
/// part made a round trip between the event loop and the consumer, which cost three to five times curl's CPU).
///
/// A response whose body is not wanted (a redirect, a refusal decided at the head) has a small body read and
/// dropped so that its connection can be reused; a larger one ends the transfer, which closes the connection.
final class ResponseCollector: HTTPClientResponseDelegate {
    typealias Response = HopOutcome

    /// The most of an unwanted body read to keep its connection.
    static let droppedBodyLimit = 64 * 1024

    private struct State: Sendable {
        var metadata: ImageResponseMetadata?
        var redirect: URL?
        /// The answer decided at the head for a response whose body is not wanted.
        var refusal: ImageError?
        var dropped = 0
        var body = Data()
        var limit = 0
        var validator: String?
        var earlyStop: EarlyStopWatch?
        /// Set when an early stop ended the transfer: what the load answers.
        var prefix: ImageLoadResponse?
        /// The answer to a ranged prefix's range: the file's size and the range's last byte.
        var range: (total: Int, end: Int)?
    }

    /// Ends a transfer on purpose (an early stop, an unwanted body too large to drop); the load's answer was
    /// recorded before it is raised.
    private struct TransferEnded: Error {}

    // Touched from the task's event loop only; the lock is what makes that checkable (and the type Sendable).
    private let state = Locked(State())
    private let url: URL
    private let request: ImageLoadRequest
    private let progress: ImageLoadProgressHandler?
    private let cookies: CookieJar?
    private let rangeStep: RangeStep?
    private let originRanges: OriginRanges?

    /// A collector for `request`'s hop to `url`; `cookies` stores the response's cookies when the request
    /// handles them; `rangeStep` is the range of a ranged prefix the hop asked for; `originRanges` learns
    /// whether the origin serves ranges.
    init(url: URL, request: ImageLoadRequest, progress: ImageLoadProgressHandler?, cookies: CookieJar?,
         rangeStep: RangeStep? = nil, originRanges: OriginRanges? = nil) {
        self.url = url
        self.request = request
        self.progress = progress
        self.cookies = cookies
        self.rangeStep = rangeStep
        self.originRanges = originRanges
    }

    /// Whether a response head arrived: a failure before it is a failure to connect or to send.
    var receivedHead: Bool {
        state.withLock { $0.metadata != nil || $0.redirect != nil }
    }

    func didReceiveHead(task: HTTPClient.Task<HopOutcome>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        if let cookies {
            cookies.store(setCookieValues: head.headers["Set-Cookie"], from: url)
        }
        do {
            let started = try state.withLock { try receive(head, into: &$0) }
            if let started { progress?(started) }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HopOutcome>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (report, ending) = state.withLock { receive(buffer, into: &$0) }
        // Reported outside the lock: a handler may ask the collector (or anything else) for what it holds.
        if let report { progress?(report) }
        if let ending { return task.eventLoop.makeFailedFuture(ending) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<HopOutcome>) throws -> HopOutcome {
        try state.withLock { state in
            if let redirect = state.redirect { return .redirect(redirect) }
            if let refusal = state.refusal { throw refusal }
            guard let metadata = state.metadata else {
                throw ImageError(.invalidDownloadResponse, "the response from \(url.absoluteString) has no head")
            }
            if let range = state.range { return try rangeOutcome(range, metadata: metadata, state: state) }
            if let expected = metadata.expectedContentLength, Int64(state.body.count) < expected {
                throw ImageError(.connectionFailed, "the body ended after \(state.body.count) of \(expected) bytes",
                                 statusCode: metadata.statusCode,
                                 partialBody: PartialBody.resumable(state.body, validator: state.validator))
            }
            guard !state.body.isEmpty else {
                throw ImageError(.badImageData, "the response from \(url.absoluteString) has an empty body")
            }
            return .response(ImageLoadResponse(data: state.body, metadata: metadata))
        }
    }

    /// What the hop answers after its transfer failed with `error`: an answer recorded before the transfer ended
    /// (an early stop's prefix, a redirect, a refusal), else the error, with the body so far when a broken
    /// transfer can be resumed from it.
    func outcome(afterFailure error: any Error) throws -> HopOutcome {
        try state.withLock { state in
            if let prefix = state.prefix { return .response(prefix) }
            if let redirect = state.redirect { return .redirect(redirect) }
            if let refusal = state.refusal { throw refusal }
            let mapped = ImageError.fromTransport(error)
            guard let metadata = state.metadata, mapped.code == .connectionFailed || mapped.code == .timedOut else {
                throw mapped
            }
            throw ImageError(mapped.code, mapped.message, statusCode: metadata.statusCode,
                             partialBody: PartialBody.resumable(state.body, validator: state.validator))
        }
    }

    /// Checks the head and prepares for the body; returns the first progress report when the body is wanted.
    private func receive(_ head: HTTPResponseHead, into state: inout State) throws -> ImageLoadProgress? {
        if let target = HTTPImageLoader.redirectTarget(of: head, from: url) {
            state.redirect = target
            return nil
        }
        let status = Int(head.status.code)
        let headers = HTTPHeaderFields(head.headers.map { ($0.name, $0.value) })
        let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        let announced = headers["Content-Length"].flatMap { Int64($0.trimmingHTTPWhitespace()) }
        let metadata = ImageResponseMetadata(
            url: url, statusCode: status, headers: headers,
            mimeType: ImageResponseMetadata.mimeType(fromContentType: headers["Content-Type"]),
            expectedContentLength: encoded ? nil : announced, httpVersion: "\(head.version)")
        if let originRanges, (200..<300).contains(status) {
            let accepts = headers["Accept-Ranges"]?.lowercased().contains("bytes") ?? false
            originRanges.note(Origin(url), servesRanges: accepts || (status == 206 && rangeStep != nil))
        }
        if let rangeStep, status == 206 {
            return try receiveRange(rangeStep, head: metadata, into: &state)
        }
        state.metadata = metadata
        if status == 304 {
            state.refusal = ImageError(.cacheNotModified,
                                       "the server says the cached copy of \(url.absoluteString) is current",
                                       response: metadata)
            return nil
        }
        let askedForRange = request.headers["Range"] != nil
        if !(status == 206 && askedForRange) && !request.acceptableStatusCodes.contains(status) {
            state.refusal = ImageError(.invalidDownloadStatusCode, "HTTP \(status) for \(url.absoluteString)",
                                       statusCode: status, response: metadata)
            return nil
        }
        guard request.accepts(mimeType: metadata.mimeType) else {
            state.refusal = contentTypeRefusal(metadata)
            return nil
        }
        // A continuation of a broken transfer (a 206 to our `Range`) is checked together with the bytes before
        // it: the limit is on the whole image, or each resumed attempt could bring nearly another limit's worth.
        let alreadyHeld = status == 206 && askedForRange ? ContentRange.start(ofRange: request.headers["Range"]) ?? 0 : 0
        state.limit = max(0, request.maximumBodySize - alreadyHeld)
        if status == 206, let total = ContentRange(headers["Content-Range"])?.total,
           total > Int64(request.maximumBodySize) {
            state.refusal = ImageError(.responseTooLarge,
                                       "the body of \(total) bytes exceeds the limit of \(request.maximumBodySize)")
            return nil
        }
        let expected = metadata.expectedContentLength
        if let expected, expected > Int64(state.limit) {
            throw ImageError(.responseTooLarge, "the body of \(expected + Int64(alreadyHeld)) bytes exceeds the limit "
                + "of \(request.maximumBodySize)")
        }
        state.validator = PartialBody.resumeValidator(for: metadata)
        if let expected { state.body.reserveCapacity(Int(expected)) }
        // A continuation of a broken transfer lacks the file's start, which the early stop reads from.
        state.earlyStop = askedForRange ? nil : request.earlyStop.map(EarlyStopWatch.init)
        return ImageLoadProgress(receivedBytes: 0, expectedBytes: expected,
                                 partialData: request.wantsPartialData ? state.body : nil, response: metadata)
    }

    /// The answer to a response whose content type the request does not accept.
    private func contentTypeRefusal(_ metadata: ImageResponseMetadata) -> ImageError {
        ImageError(.invalidDownloadContentType, "content type \(metadata.mimeType ?? "none") is not acceptable for "
            + url.absoluteString, response: metadata)
    }

    /// Prepares for the bytes of a ranged prefix's range: they continue what earlier ranges brought, under the
    /// early stop that read those.
    private func receiveRange(_ step: RangeStep, head: ImageResponseMetadata, into state: inout State) throws
        -> ImageLoadProgress? {
        guard let range = ContentRange(head.headers["Content-Range"]), let total = range.total.map(Int.init) else {
            throw ImageError(.invalidDownloadResponse, "a 206 without the file's size in Content-Range from "
                + url.absoluteString)
        }
        if case .next(let held) = step {
            guard range.start == held.body.count, total == held.total else {
                throw ImageError(.invalidDownloadResponse, "asked for bytes from \(held.body.count) of \(held.total), "
                    + "got \(head.headers["Content-Range"] ?? "") from \(url.absoluteString)")
            }
            state.metadata = held.metadata
            state.body = held.body
            state.earlyStop = held.watch
            state.validator = held.validator
        } else {
            guard range.start == 0 else {
                throw ImageError(.invalidDownloadResponse,
                                 "asked for the first bytes, got \(head.headers["Content-Range"] ?? "")")
            }
            let whole = RangedPrefix.wholeFileMetadata(of: head, total: total)
            guard request.accepts(mimeType: whole.mimeType) else {
                state.refusal = contentTypeRefusal(whole)
                return nil
            }
            guard total <= request.maximumBodySize else {
                throw ImageError(.responseTooLarge, "the body of \(total) bytes exceeds the limit of "
                    + "\(request.maximumBodySize)")
            }
            state.metadata = whole
            state.validator = PartialBody.resumeValidator(for: head)
            state.earlyStop = request.earlyStop.map(EarlyStopWatch.init)
        }
        state.range = (total, range.end)
        state.limit = range.end + 1
        state.body.reserveCapacity(range.end + 1)
        return ImageLoadProgress(receivedBytes: Int64(state.body.count), expectedBytes: Int64(total),
                                 partialData: request.wantsPartialData ? state.body : nil, response: state.metadata)
    }

    /// What a ranged prefix's range, read to its end, answers: the prefix the early stop found, the whole file
    /// when that was its last byte, else a next range.
    private func rangeOutcome(_ range: (total: Int, end: Int), metadata: ImageResponseMetadata, state: State) throws
        -> HopOutcome {
        if let prefix = state.prefix { return .response(prefix) }
        guard state.body.count == range.end + 1 else {
            throw ImageError(.connectionFailed, "the range ended after \(state.body.count) of \(range.end + 1) bytes")
        }
        guard state.body.count < range.total, let watch = state.earlyStop else {
            return .response(ImageLoadResponse(data: state.body, metadata: metadata))
        }
        return .moreRange(RangedPrefix(body: state.body, watch: watch, metadata: metadata, validator: state.validator,
                                       total: range.total))
    }

    /// Appends one body part; returns the progress to report and, when the transfer is to end here, the error
    /// that ends it.
    private func receive(_ buffer: ByteBuffer, into state: inout State) -> (ImageLoadProgress?, (any Error)?) {
        guard state.refusal == nil && state.redirect == nil else {
            state.dropped += buffer.readableBytes
            return (nil, state.dropped > Self.droppedBodyLimit ? TransferEnded() : nil)
        }
        // A range is read to its end, whatever the early stop said, so its connection is kept.
        if state.range != nil && state.prefix != nil { return (nil, nil) }
        guard state.body.count + buffer.readableBytes <= state.limit else {
            // Failing the part ends the transfer, which closes the connection at the limit.
            return (nil, ImageError(.responseTooLarge, "the body exceeds the limit of \(request.maximumBodySize) bytes"))
        }
        buffer.withUnsafeReadableBytes { state.body.append(contentsOf: $0) }
        let expected = state.metadata?.expectedContentLength
        let undecided = state.earlyStop.map { !$0.readsWhole } ?? false
        let sufficient = state.earlyStop?.sufficientPrefix(of: state.body)
        if undecided, let originRanges, sufficient != nil || state.earlyStop?.readsWhole == true {
            // Decided with this part: what the origin's next early stops are fetched by.
            originRanges.noteEarlyStop(Origin(url), stoppedEarly: sufficient != nil)
        }
        guard let prefix = sufficient else {
            return (ImageLoadProgress(receivedBytes: Int64(state.body.count), expectedBytes: expected,
                                      partialData: request.wantsPartialData ? state.body : nil), nil)
        }
        // Enough for the decode: the answer is recorded, and ending the transfer closes the connection (a range is
        // read to its end instead, and its connection kept).
        state.body = prefix
        state.earlyStop = nil
        if let metadata = state.metadata {
            var loaded = ImageLoadResponse(data: prefix, metadata: metadata)
            loaded.isPrefix = true
            state.prefix = loaded
        }
        return (ImageLoadProgress(receivedBytes: Int64(prefix.count), expectedBytes: expected,
                                  partialData: request.wantsPartialData ? prefix : nil),
                state.range == nil ? TransferEnded() : nil)
    }
}
