import WebImage
import Foundation

/// A source that could not be fetched (imgproxy's download errors): the one failure a fallback image answers.
struct SourceFetchFailure: Error {
    /// What went wrong, as the downloader or a limit said it.
    let underlying: any Error

    /// The answer the failure has without a fallback image (its status is a fallback answer's when the
    /// configured status is 0).
    var proxyError: ProxyError {
        switch underlying {
        case let error as ProxyError: error
        case let error as ImageError: ProxyError(imageError: error)
        default: ProxyError(status: 500, "internal error: \(underlying)")
        }
    }
}

/// The fallback image rendered for a request whose source could not be fetched, thrown in place of that failure:
/// every request waiting for the rendering gets it, and the proxy answers it with the fallback's status and
/// lifetime (``ProxyConfiguration/FallbackImage``).
struct FallbackAnswer: Error, Sendable {
    /// The fallback image rendered with the request's options, cached under its own key.
    let result: RenderedResult
    /// Why the source itself was not answered.
    let sourceFailure: ProxyError
}

extension RenderService {
    /// The source `load` fetches, or a ``SourceFetchFailure`` for what imgproxy answers with its fallback image:
    /// the download failed (an origin's error status, no connection, a timeout, a refused address or redirect,
    /// over the byte limit). A request that went away is not one: nobody is left to answer.
    func fetchingSource(_ load: () async throws -> SourceLoader.Source) async throws -> SourceLoader.Source {
        let started = ContinuousClock.now
        do {
            return try await load()
        } catch {
            if error is CancellationError || (error as? ImageError)?.code == .cancelled { throw error }
            RequestTrace.current?.step("downloading_image", lasting: ContinuousClock.now - started, error: "\(error)")
            throw SourceFetchFailure(underlying: error)
        }
    }

    /// Refuses, as a ``SourceFetchFailure``, a source of no known image format (an origin's HTML page) when a
    /// fallback image is configured: imgproxy's type detection is part of its download, so such a source gets the
    /// fallback there. An image of a known format that then fails to decode does not, as in imgproxy. Without a
    /// fallback image the decoder's own refusal answers, as before.
    func refuseUnrecognisedSource(_ data: Data) throws {
        guard fallbackImage.current != nil, ImageFormat.detect(data) == .unknown else { return }
        throw SourceFetchFailure(underlying: ProxyError(
            status: 422, "the source is not an image this server decodes: its format is unknown"))
    }

    /// `request` rendered, or, when its source cannot be fetched and a fallback image is configured, the fallback
    /// image rendered with the same options.
    func renderOrFallback(_ request: RenderRequest, in task: SharedTask<RenderOutcome, Never>) async throws
        -> RenderOutcome
    {
        do {
            return .rendered(try await renderInTurn(request, in: task))
        } catch let failure as SourceFetchFailure {
            guard let fallback = fallbackImage.current else { throw failure.underlying }
            let result = try await renderFallback(fallback, for: request, in: task)
            return .fallback(FallbackAnswer(result: result, sourceFailure: failure.proxyError))
        }
    }

    /// The fallback image rendered as `request` asks (size, format, quality, every option), from the result cache
    /// when it was rendered for this request before, under a key of its own (``FallbackImage/key(for:)``): the
    /// source's key keeps meaning the source, whose result is rendered as soon as the origin has it.
    private func renderFallback(_ fallback: FallbackImage, for request: RenderRequest,
                                in task: SharedTask<RenderOutcome, Never>) async throws -> RenderedResult {
        let substitute = RenderRequest(source: request.source, options: request.options, format: request.format,
                                       vary: request.vary, key: fallback.key(for: request),
                                       bestFormats: request.bestFormats)
        if let stored = await results.result(forKey: substitute.key) { return stored.result }
        let drawing = SourceDrawing(renderer: renderer, metrics: metrics, configuration: configuration)
        let (data, output) = try await draw(fallback.data, request: substitute, drawing: drawing, in: task)
        let result = RenderedResult(
            data: data, format: output, etag: ResultTag.etag(key: substitute.key, sourceLastModified: nil, body: data),
            lastModified: HTTPDate.string(secondsSince1970: Date().timeIntervalSince1970))
        await results.store(result, data: data, forKey: substitute.key)
        return result
    }
}
