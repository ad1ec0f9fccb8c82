import Foundation
import Logging
import WebImage
import WebImageServer

/// Starts `webimage serve`'s decode helpers: this same executable, run as `webimage _decode-helper`.
enum DecoderHelpers {
    /// The shared registry's coders behind an ``IsolatedCoder`` whose pool of helpers is started now.
    static func coders(isolating isolation: DecoderIsolation, proxy: ProxyConfiguration, logger: Logger) throws
        -> ImageCoders
    {
        guard let executable = Bundle.main.executableURL else {
            throw ServeError("cannot find this executable to start decode helpers (--no-isolate-decoders runs without)")
        }
        let configuration = DecodeHelperPool.Configuration(
            executable: executable, arguments: isolation.helperArguments, size: isolation.helpers ?? proxy.workers,
            timeout: isolation.timeout)
        let pool: DecodeHelperPool
        do {
            pool = try DecodeHelperPool(configuration: configuration,
                                        metricsFactory: proxy.metricsFactory) { reason in
                logger.warning("decode helper replaced: the decoder \(reason)")
            }
        } catch {
            throw ServeError("\(error) (--no-isolate-decoders runs without helpers)")
        }
        return ImageCoders.isolating(isolation.formats, in: pool, behind: .shared)
    }
}
