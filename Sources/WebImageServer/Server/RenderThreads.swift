import Dispatch

/// Threads for a proxy's blocking work (source cache reads, decoding, rendering, encoding), off Swift's
/// cooperative pool, which cache hits and the downloader need to stay responsive, and off the event loops. The
/// work queue bounds how many renderings run, so this keeps at most `--workers` threads busy.
enum RenderThreads {
    private static let queue = DispatchQueue(label: "webimage.serve.render", qos: .userInitiated,
                                             attributes: .concurrent)

    /// `work`'s result, computed on one of the render threads.
    static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
