import CoreMetrics

/// What the Redis tier counts: hits, misses (a damaged value counts as a miss and as damage), errors (including
/// requests the open circuit breaker turned away) and the time each command took.
struct RedisTierMetrics: Sendable {
    static let hitsLabel = "webimage_redis_hits_total"
    static let missesLabel = "webimage_redis_misses_total"
    static let errorsLabel = "webimage_redis_errors_total"
    static let damagedLabel = "webimage_redis_damaged_total"
    static let secondsLabel = "webimage_redis_seconds"

    let hits: Counter
    let misses: Counter
    let errors: Counter
    let damaged: Counter
    let seconds: Timer

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        hits = Counter(label: Self.hitsLabel, factory: factory)
        misses = Counter(label: Self.missesLabel, factory: factory)
        errors = Counter(label: Self.errorsLabel, factory: factory)
        damaged = Counter(label: Self.damagedLabel, factory: factory)
        seconds = Timer(label: Self.secondsLabel, factory: factory)
    }
}
