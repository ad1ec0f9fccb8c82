import WebImage
import CoreMetrics
import Foundation
import NIOCore

/// A cache tier on Redis (or Valkey), shared by every process that points at the same server: the third tier
/// behind memory and disk (`ImageCache(folder:remoteTiers: [redis])`, a `DataCacheTiers` of one's own, or a
/// member of `ImageCaches`), or `webimage serve --redis`.
///
/// Values are the disk cache's entry format (a checksummed header, then the bytes): a value damaged in Redis or on
/// the way reads as a miss and is deleted. Keys are `namespace:` followed by the SHA-256 of the cache key in hex,
/// so any key is a short, safe Redis key; the full key is kept in the entry and compared on every read. Each
/// value expires after ``timeToLive`` (Redis evicts earlier under `maxmemory`, which is a miss like any other).
///
/// It degrades, never fails: while Redis is down, slow or refusing writes, every lookup is a miss and every
/// store is dropped (counted in `webimage_redis_errors_total`), and a circuit breaker stops asking after three
/// failures in a row, trying again once a second. It holds bytes only (an `ImageDataCaching`, not an
/// `ImageMemoryCaching`): the manager uses it behind a cache that keeps decoded images in memory.
public final class RedisImageCache: ImageDataCaching {
    /// The server, as configured.
    public let configuration: RedisConfiguration
    /// The prefix of every key this cache writes (followed by `:`).
    public let namespace: String
    /// How long a stored value lives in Redis.
    public let timeToLive: Duration
    let commands: any RedisCommands
    let breaker: CircuitBreaker
    let metrics: RedisTierMetrics

    /// A tier on the server at `configuration`. Nothing connects until it is used or ``connect()`` is called.
    public convenience init(configuration: RedisConfiguration, namespace: String = "webimage",
                            timeToLive: Duration = .seconds(7 * 24 * 3600),
                            metricsFactory: (any MetricsFactory)? = nil) {
        self.init(commands: RESPClient(configuration: configuration), configuration: configuration,
                  namespace: namespace, timeToLive: timeToLive, metricsFactory: metricsFactory)
    }

    /// A tier on the server at `url` (`redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS).
    public convenience init(url: String, namespace: String = "webimage", timeToLive: Duration = .seconds(7 * 24 * 3600),
                            metricsFactory: (any MetricsFactory)? = nil) throws(RedisError) {
        self.init(configuration: try RedisConfiguration(url: url), namespace: namespace, timeToLive: timeToLive,
                  metricsFactory: metricsFactory)
    }

    init(commands: any RedisCommands, configuration: RedisConfiguration, namespace: String, timeToLive: Duration,
         metricsFactory: (any MetricsFactory)?, breaker: CircuitBreaker = CircuitBreaker()) {
        self.commands = commands
        self.configuration = configuration
        self.namespace = namespace
        self.timeToLive = timeToLive
        self.breaker = breaker
        metrics = RedisTierMetrics(factory: metricsFactory)
    }

    /// A tier on the same connections and circuit breaker under another namespace (say sources beside results),
    /// with its own time to live.
    public func sharingConnections(namespace: String, timeToLive: Duration? = nil,
                                   metricsFactory: (any MetricsFactory)? = nil) -> RedisImageCache {
        RedisImageCache(commands: commands, configuration: configuration, namespace: namespace,
                        timeToLive: timeToLive ?? self.timeToLive, metricsFactory: metricsFactory, breaker: breaker)
    }

    /// Connects now and checks the server answers. Throws ``RedisError/authenticationFailed(_:)`` for wrong
    /// credentials (a mistake to report at start-up) and ``RedisError/connectionFailed(_:)`` when the server
    /// cannot be reached (which a caller may accept: the tier then starts degraded and recovers by itself).
    public func connect() async throws(RedisError) {
        if let client = commands as? RESPClient { try await client.pool.connectAll() }
        try await commands.ping()
    }

    /// Whether the tier is failing over to misses now (its circuit breaker is open or trying one request).
    public var isDegraded: Bool { breaker.isOpen }

    /// The Redis key for a cache key.
    public func redisKey(forKey key: String) -> String {
        var key = key
        let digest = key.withUTF8 { SHA256.hash(UnsafeRawBufferPointer($0)) }
        return namespace + ":" + SHA256.hex(digest)
    }

    /// Runs one Redis operation through the breaker: `nil` when it is open or the operation fails.
    func attempt<Value: Sendable>(_ operation: () async throws(RedisError) -> Value) async -> Value? {
        guard breaker.allowsRequest() else {
            metrics.errors.increment()
            return nil
        }
        let started = ContinuousClock.now
        do {
            let value = try await operation()
            metrics.seconds.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            breaker.recordSuccess()
            return value
        } catch {
            metrics.errors.increment()
            // An error reply (say OOM under maxmemory with noeviction) shows the server is there: not a reason
            // to stop asking it.
            if case .serverError = error { breaker.recordSuccess() } else { breaker.recordFailure() }
            return nil
        }
    }

    // MARK: ImageDataCaching

    public func cachedData(forKey key: String) async -> CachedImageData? {
        let redisKey = redisKey(forKey: key)
        guard let stored = await attempt({ () async throws(RedisError) in try await commands.get(redisKey) }) else {
            return nil
        }
        guard let bytes = stored else {
            metrics.misses.increment()
            return nil
        }
        let decoded = bytes.withUnsafeReadableBytes { CacheEntryEncoding.decode($0, key: key) }
        switch decoded {
        case .success(var hit):
            metrics.hits.increment()
            hit.tier = .remote
            return hit
        case .failure:
            metrics.misses.increment()
            metrics.damaged.increment()
            _ = await attempt({ () async throws(RedisError) in try await commands.delete([redisKey]) })
            return nil
        }
    }

    /// A network tier has no synchronous answer: always `nil` (the manager then asks ``cachedData(forKey:)``).
    public func cachedDataSynchronously(forKey key: String) -> CachedImageData? { nil }

    /// Stores `data` with `validators` for ``timeToLive``. A Redis that cannot take it (down, full) drops it and
    /// counts an error: the image is still served, and a later request stores it again.
    public func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        try await store(data, forKey: key, validators: validators, created: Date().timeIntervalSince1970)
    }

    func store(_ data: Data, forKey key: String, validators: HTTPValidators, created: Double) async throws {
        let header = try CacheEntryEncoding.header(for: data, key: key, validators: validators, created: created)
        let redisKey = redisKey(forKey: key), timeToLive = timeToLive
        _ = await attempt({ () async throws(RedisError) in
            try await commands.set(redisKey, to: .joined(header, data), expiresIn: timeToLive, onlyIfAbsent: false)
        })
    }

    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) async throws -> Bool {
        guard let stored = await cachedData(forKey: key) else { return false }
        try await store(stored.data, forKey: key, validators: validators, created: Date().timeIntervalSince1970)
        return true
    }

    public func removeData(forKey key: String) async {
        let redisKey = redisKey(forKey: key)
        _ = await attempt({ () async throws(RedisError) in try await commands.delete([redisKey]) })
    }

    public func containsData(forKey key: String) async -> Bool {
        let redisKey = redisKey(forKey: key)
        return await attempt({ () async throws(RedisError) in try await commands.exists(redisKey) }) ?? false
    }

    /// Deletes every key under ``namespace`` (by `SCAN`, so it takes a while on a large server).
    public func removeAllData() async {
        let prefix = namespace + ":"
        _ = await attempt({ () async throws(RedisError) in try await commands.deleteAll(withPrefix: prefix) })
    }
}
