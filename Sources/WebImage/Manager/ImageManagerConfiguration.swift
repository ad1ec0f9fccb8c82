import Foundation
import Logging
import Metrics

extension ImageManager {
    /// Rewrites a load's options and context before it starts (SDWebImage's options processor): per URL
    /// policies such as "always refresh avatars" or "thumbnails for this host".
    package typealias OptionsProcessor = @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)

    /// What a manager does when a load does not say otherwise.
    public struct Configuration: Sendable {
        /// Applied to every load whose context leaves ``ImageContext/transformer`` at
        /// ``TransformerChoice/managerDefault``.
        public var defaultTransformer: (any ImageTransformer)?
        /// Maps URLs to cache keys when the context has no filter (`nil`: the absolute URL).
        public var cacheKeyFilter: CacheKeyFilter?
        /// Decides what goes to disk when the context has no serializer (default: ``CacheSerializer/default``,
        /// the downloaded bytes as they came).
        public var cacheSerializer: CacheSerializer
        /// Runs first for every load.
        public var optionsProcessor: (@Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext))?
        /// Pixel and frame limits for decoding.
        public var decodeLimits: DecodeLimits
        /// How many decodes and transforms run at once (default: the number of cores).
        public var maxConcurrentDecodes: Int
        /// How many loads run at once for a manager made with a bare ``ImageLoader`` (default 6, SDWebImage's
        /// download limit); the rest wait, the highest priority first. A manager made with a downloader shares
        /// the downloader's ``ImageDownloader/maxConcurrentDownloads`` with its direct callers instead.
        public var maxConcurrentLoads: Int
        /// How long a failed URL stays blocked (`nil`: until removed).
        public var failedURLExpiry: Duration?
        /// The scale-down limit used by ``ImageOptions/scaleDownLargeImages`` when the context gives none.
        public var defaultScaleDownLimitBytes: Int
        /// Where the manager logs (debug: each load's outcome; warning: cache stores that failed).
        public var logger: Logger
        /// Where metrics go (`nil`: the process-wide `MetricsSystem`).
        public var metricsFactory: (any MetricsFactory)?

        /// Creates a configuration; the defaults are described on each property.
        public init(
            defaultTransformer: (any ImageTransformer)? = nil, cacheKeyFilter: CacheKeyFilter? = nil,
            cacheSerializer: CacheSerializer = .default,
            optionsProcessor: (@Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext))? = nil,
            decodeLimits: DecodeLimits = .default,
            maxConcurrentDecodes: Int = ProcessInfo.processInfo.activeProcessorCount, maxConcurrentLoads: Int = 6,
            failedURLExpiry: Duration? = nil, defaultScaleDownLimitBytes: Int = 90 * 1024 * 1024,
            logger: Logger = Logger(label: "swift-web-image.manager"), metricsFactory: (any MetricsFactory)? = nil
        ) {
            self.defaultTransformer = defaultTransformer
            self.cacheKeyFilter = cacheKeyFilter
            self.cacheSerializer = cacheSerializer
            self.optionsProcessor = optionsProcessor
            self.decodeLimits = decodeLimits
            self.maxConcurrentDecodes = maxConcurrentDecodes
            self.maxConcurrentLoads = maxConcurrentLoads
            self.failedURLExpiry = failedURLExpiry
            self.defaultScaleDownLimitBytes = defaultScaleDownLimitBytes
            self.logger = logger
            self.metricsFactory = metricsFactory
        }
    }
}
