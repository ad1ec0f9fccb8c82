import Foundation
import Metrics

/// What happens inside the manager, for dashboards and tests (``ImageManager/eventStream()``).
package enum ImageManagerEvent: Sendable, Equatable {
    /// A load started (after the options processor).
    case started(URL)
    /// The final image was found in the cache (``ImageCacheType/memory`` or ``ImageCacheType/disk``).
    case cacheHit(URL, ImageCacheType)
    /// Neither the final image nor the original was cached.
    case cacheMiss(URL)
    /// The loader delivered `bytes` bytes (`notModified`: a 304 confirmed the cached image).
    case loaded(URL, bytes: Int, notModified: Bool)
    /// Bytes were decoded, taking `duration`.
    case decoded(URL, duration: Duration)
    /// The transformer ran, taking `duration`.
    case transformed(URL, duration: Duration)
    /// The result was stored under `key` in `types`.
    case stored(key: String, ImageCacheType)
    /// A load ended: `nil` on success, else the failure's code (`ImageError.Code.cancelled` included).
    case finished(URL, error: ImageError.Code?)
}

/// The manager's swift-metrics: cache hits by type, misses, bytes loaded, decode and transform time, failures.
struct ManagerMetrics: Sendable {
    let memoryHits: Counter
    let diskHits: Counter
    let remoteHits: Counter
    let misses: Counter
    let bytesLoaded: Counter
    let decodeTime: Timer
    let transformTime: Timer
    private let errors: ErrorCounters

    static let hitsLabel = "webimage_manager_cache_hits_total"
    static let missesLabel = "webimage_manager_cache_misses_total"
    static let bytesLabel = "webimage_manager_loaded_bytes_total"
    static let decodeLabel = "webimage_manager_decode_seconds"
    static let transformLabel = "webimage_manager_transform_seconds"
    static let errorsLabel = "webimage_manager_errors_total"

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        memoryHits = Counter(label: Self.hitsLabel, dimensions: [("type", "memory")], factory: factory)
        diskHits = Counter(label: Self.hitsLabel, dimensions: [("type", "disk")], factory: factory)
        remoteHits = Counter(label: Self.hitsLabel, dimensions: [("type", "remote")], factory: factory)
        misses = Counter(label: Self.missesLabel, factory: factory)
        bytesLoaded = Counter(label: Self.bytesLabel, factory: factory)
        decodeTime = Timer(label: Self.decodeLabel, factory: factory)
        transformTime = Timer(label: Self.transformLabel, factory: factory)
        errors = ErrorCounters(label: Self.errorsLabel, factory: factory)
    }

    func recordHit(_ type: ImageCacheType) {
        switch type {
        case .memory: memoryHits.increment()
        case .remote: remoteHits.increment()
        default: diskHits.increment()
        }
    }

    func recordError(_ code: ImageError.Code) {
        errors.record(code)
    }
}

extension Duration {
    /// Whole nanoseconds, for metrics timers.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
