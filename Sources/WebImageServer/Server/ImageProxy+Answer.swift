import WebImage
import Foundation
import HTTPTypes

extension ImageProxy {
    /// `/health`'s text: `ok`, and the Redis tier's state when there is one (`degraded` while it answers misses).
    var health: String {
        guard let shared else { return "ok" }
        return shared.isDegraded ? "ok\nredis: degraded" : "ok\nredis: ok"
    }

    /// What is in flight now: every gauge is zero when the proxy is idle.
    var load: ProxyLoad {
        ProxyLoad(renders: renders.inFlight, rendering: renders.cpu.slots.running,
                  queued: renders.cpu.slots.waiting, downloading: downloader.runningCount,
                  downloadsQueued: downloader.queuedCount,
                  helperDecodes: renders.helperWaits?.slots.running ?? 0,
                  helperDecodesQueued: renders.helperWaits?.slots.waiting ?? 0)
    }

    /// Whether `path` (inside the prefix) is `/health`, the extra health path or `/metrics`.
    func isOperationsPath(_ path: String) -> Bool {
        path == "/health" || path == "/metrics" || path == configuration.operations.healthCheckPath
    }

    /// imgproxy's order: the prefix (outside it there is no route: 404), then a preflight, which browsers send
    /// without credentials, then the method, `/health` (open to probes), the secret, and the route. Answers to
    /// image requests, refusals included, carry the CORS fields; `/health` and `/metrics` do not.
    func answer(_ request: ProxyRequest) async -> ProxyResponse {
        guard let inner = access.inside(request) else {
            return responder.text(404, "not found: the path is outside the path prefix \(access.pathPrefix)")
        }
        if request.method == "OPTIONS", access.answersPreflights {
            var preflight = responder.empty(200)
            access.addCORS(to: &preflight)
            return preflight
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var refusal = responder.text(405, "only GET and HEAD are served")
            refusal.headers[.allow] = access.answersPreflights ? "GET, HEAD, OPTIONS" : "GET, HEAD"
            return refusal
        }
        if inner.path == "/health" || inner.path == configuration.operations.healthCheckPath {
            return responder.text(200, health)
        }
        guard access.admits(request) else {
            var refusal = responder.failure(ProxyError.forbidden("Forbidden: the Authorization header does not carry "
                                                                 + "the secret"))
            access.addCORS(to: &refusal)
            return refusal
        }
        do {
            switch try route(inner) {
            case .health:
                return responder.text(200, health)
            case .metrics:
                metrics.record(load)
                return responder.metrics(metrics.exposition())
            case .image(let image):
                let made: (result: RenderedResult, tier: ResultCache.Tier?)
                do {
                    made = try await renders.result(for: image)
                } catch {
                    metrics.resultLookup(nil)
                    guard let fallback = error as? FallbackAnswer else { throw error }
                    metrics.answeredFallback()
                    var answer = responder.fallback(fallback, for: image, settings: configuration.fallbackImage,
                                                    ifNoneMatch: request.ifNoneMatch)
                    access.addCORS(to: &answer)
                    return answer
                }
                metrics.resultLookup(made.tier)
                var answer = responder.image(made.result, for: image, ifNoneMatch: request.ifNoneMatch)
                access.addCORS(to: &answer)
                return answer
            case .info(let info):
                let made: (result: RenderedResult, tier: ResultCache.Tier?)
                do {
                    made = try await renders.info(for: info)
                } catch {
                    metrics.resultLookup(nil)
                    throw error
                }
                metrics.resultLookup(made.tier)
                var answer = responder.info(made.result, for: info, ifNoneMatch: request.ifNoneMatch)
                access.addCORS(to: &answer)
                return answer
            }
        } catch {
            var failure = responder.failure(error)
            access.addCORS(to: &failure)
            return failure
        }
    }
}
