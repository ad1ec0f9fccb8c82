import WebImage

/// Results that failed lately, by result key, answered again with the same status for a short while without
/// fetching or rendering: a source that costs seconds of CPU before it is refused (a scan-flooded JPEG, a source
/// over a render budget) would otherwise cost them again on every request for the same URL.
///
/// Only the failures that cost the server work are kept: a 422, a source that does not decode or is over a limit
/// (the bytes it was refused for are what a new fetch would bring). An origin's own answers (a 404 for a file that
/// is uploaded a moment later), timeouts, the server's load (429) and a client that left are asked again at once,
/// as imgproxy asks. Each is forgotten after ``lifetime`` from when it happened, however often it is asked for
/// meanwhile.
final class RecentFailures: Sendable {
    private struct Failure: Sendable {
        let error: ProxyError
        let until: ContinuousClock.Instant
    }

    /// How long a failure is answered from here.
    let lifetime: Duration
    private let failures: MemoryCache<String, Failure>

    /// Failures kept for `lifetime` each, at most `count` of them (the least recently asked for go first).
    init(lifetime: Duration, count: Int = 10_000) {
        self.lifetime = lifetime
        failures = MemoryCache(limits: .init(costLimit: .max, countLimit: count))
    }

    /// The failure kept for `key`, while it lasts.
    func failure(forKey key: String) -> ProxyError? {
        guard lifetime > .zero, let failure = failures.value(forKey: key) else { return nil }
        guard ContinuousClock.now < failure.until else {
            _ = failures.removeValue(forKey: key)
            return nil
        }
        return failure.error
    }

    /// Keeps `error` for `key` when it is one worth answering again (see the type's description).
    func keep(_ error: ProxyError, forKey key: String) {
        guard lifetime > .zero, Self.isLasting(error.status) else { return }
        failures.setValue(Failure(error: error, until: ContinuousClock.now + lifetime), forKey: key)
    }

    /// Failures kept now (expired ones included until they are asked for or pushed out).
    var count: Int { failures.count }

    static func isLasting(_ status: Int) -> Bool { status == 422 }
}
