import AsyncHTTPClient
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import WebImage

/// Sends finished spans to the collector in batches, as the SDKs' batch span processor does: spans wait in a
/// bounded line (past ``ProxyTracing/maximumQueuedSpans`` they are dropped and counted, never slowing a request),
/// and leave every ``ProxyTracing/scheduleDelay``, or as soon as a batch is full, by OTLP/HTTP. An export that
/// fails or takes longer than ``ProxyTracing/exportTimeout`` is dropped, not retried: traces are worth less than
/// the memory a backlog would hold while the collector is away. At a graceful stop what waits is sent.
final class TraceExporter: Sendable {
    private struct State {
        var spans: [TraceSpan] = []
        /// Spans dropped because the line was full, since the last time the log said so.
        var droppedUnreported = 0
        var counts = TraceExportCounts()
        /// A batch is full: the next nap ends at once.
        var batchReady = false
        var stopping = false
        /// The exporting loop's nap, resumed early by a full batch or a stop.
        var napping: CheckedContinuation<Void, Never>?
    }

    private let settings: ProxyTracing
    private let state = Locked(State())

    init(_ settings: ProxyTracing) {
        self.settings = settings
    }

    /// What happened to the spans so far.
    var counts: TraceExportCounts { state.withLock { $0.counts } }

    /// Queues `span` for the next export; drops it when the line is full.
    func add(_ span: TraceSpan) {
        let napping: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard state.spans.count < settings.maximumQueuedSpans else {
                state.droppedUnreported += 1
                state.counts.dropped += 1
                return nil
            }
            state.spans.append(span)
            guard state.spans.count >= settings.maximumBatchSpans else { return nil }
            state.batchReady = true
            return state.napping.take()
        }
        napping?.resume()
    }

    /// Exports until ``stop()`` (or a graceful shutdown, or cancellation), then sends what waits and returns.
    /// - Throws: ``ProxyConfigurationError`` when the TLS settings' certificates or key do not parse.
    func run(logger: Logger) async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: try clientConfiguration())
        let sender = TraceSender(settings: settings, client: client, logger: logger)
        await withGracefulShutdownHandler {
            while !state.withLock({ $0.stopping }) && !Task.isCancelled {
                // Between the timer's ticks only full batches leave: a busy server sends few large exports.
                let woken = await nap()
                await exportQueued(with: sender, logger: logger, fullBatchesOnly: woken == .batchFull)
            }
        } onGracefulShutdown: {
            self.stop()
        }
        await exportQueued(with: sender, logger: logger, fullBatchesOnly: false)
        try await client.shutdown()
    }

    /// Ends ``run(logger:)`` after one last export.
    func stop() {
        state.withLock { state in
            state.stopping = true
            return state.napping.take()
        }?.resume()
    }

    /// Everything queued, in batches; or only the full batches.
    private func exportQueued(with sender: TraceSender, logger: Logger, fullBatchesOnly: Bool) async {
        while true {
            let (batch, dropped) = state.withLock { state in
                let size = settings.maximumBatchSpans
                let batch = fullBatchesOnly && state.spans.count < size ? [] : Array(state.spans.prefix(size))
                state.spans.removeFirst(batch.count)
                state.batchReady = state.spans.count >= settings.maximumBatchSpans
                defer { state.droppedUnreported = 0 }
                return (batch, state.droppedUnreported)
            }
            if dropped > 0 {
                logger.warning("\(dropped) spans dropped: more than \(settings.maximumQueuedSpans) waited to be sent")
            }
            guard !batch.isEmpty else { return }
            let sent = await sender.send(batch)
            state.withLock { state in
                if sent { state.counts.exported += batch.count } else { state.counts.failed += batch.count }
            }
        }
    }

    /// What ended a nap.
    private enum Wake {
        case timer
        /// A full batch, a stop or cancellation.
        case batchFull
    }

    /// Waits for the schedule delay, a full batch, a stop or cancellation, whichever comes first.
    private func nap() async -> Wake {
        await withTaskGroup(of: Wake.self) { group in
            group.addTask { [settings] in
                try? await Task.sleep(for: settings.scheduleDelay)
                return .timer
            }
            group.addTask {
                await self.untilBatchReady()
                return .batchFull
            }
            defer { group.cancelAll() }
            return await group.next() ?? .timer
        }
    }

    private func untilBatchReady() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    // Checked under the lock: a cancellation after this finds the continuation stored.
                    if state.batchReady || state.stopping || Task.isCancelled { return true }
                    state.napping = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.napping.take() }?.resume()
        }
    }

    /// The client's TLS: the collector's certificates when given instead of the system's, and the client's own
    /// certificate and key for a collector that asks for them.
    private func clientConfiguration() throws(ProxyConfigurationError) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        guard settings.trustedCertificatesPEM != nil || settings.clientCertificatePEM != nil else {
            return configuration
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            if let trusted = settings.trustedCertificatesPEM {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(trusted.utf8)))
            }
            if let chain = settings.clientCertificatePEM, let key = settings.clientKeyPEM {
                tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(chain.utf8)).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem))
            }
        } catch {
            throw ProxyConfigurationError(
                "the OpenTelemetry collector's TLS certificate or key does not parse: \(error)")
        }
        configuration.tlsConfiguration = tls
        return configuration
    }
}

/// What became of the spans a proxy made: sent, refused or lost by the collector, or dropped before sending.
struct TraceExportCounts: Sendable, Equatable {
    var exported = 0
    var failed = 0
    var dropped = 0
}

/// The exporter as a service of the server's group: it stops after the image server does (it is listed
/// first), so the spans of the last requests are sent.
struct TraceExportService: Service {
    let exporter: TraceExporter
    let logger: Logger

    func run() async throws { try await exporter.run(logger: logger) }
}
