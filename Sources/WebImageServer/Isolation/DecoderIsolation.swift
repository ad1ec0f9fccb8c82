import Foundation
import WebImage

/// How `webimage serve` isolates decoders: which formats go to helper processes, how many helpers run and the
/// bounds each works under. The defaults are the server's.
package struct DecoderIsolation: Sendable {
    /// The formats decoded in helpers. Default ``IsolatedCoder/defaultFormats``.
    package var formats = IsolatedCoder.defaultFormats
    /// Helpers kept running; `nil` matches the proxy's render workers, so a render never waits for a helper.
    package var helpers: Int?
    /// How long one decode may take in a helper before the helper is killed. Default 10 s.
    package var timeout: Duration = .seconds(10)
    /// The address space each helper may use (`RLIMIT_AS`), in bytes. Default 2 GiB: a source at the proxy's
    /// 50-megapixel limit needs about 200 MB of RGBA plus its decoder's planes, and every thread's stack and
    /// allocator arena count against the limit too.
    package var memoryLimitBytes = 2048 * 1024 * 1024

    /// The defaults described on each property.
    package init() {}

    /// The helpers' arguments for the `webimage` executable's hidden `_decode-helper` command.
    package var helperArguments: [String] {
        ["_decode-helper", "--memory-limit-mb", String(memoryLimitBytes / (1024 * 1024))]
    }
}
