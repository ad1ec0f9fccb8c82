import Dispatch
import Foundation
import Metrics
import WebImage

/// A few pre-started helper processes that decode for this one, so that a decoder that crashes, hangs or eats
/// memory on hostile bytes costs one request an error instead of costing the server its life.
///
/// Calls block the calling thread until a helper is free and has answered: call from threads that may block
/// (the proxy renders on threads of its own), not from the async cooperative pool. A helper that dies, stops
/// answering before ``Configuration/timeout`` (it is then killed) or writes nonsense is replaced at once, and
/// its request fails with `ImageError.Code.badImageData`.
public final class DecodeHelperPool: Sendable {
    /// How helpers are started and bounded.
    public struct Configuration: Sendable {
        /// The executable that serves as a helper (`webimage`, whose hidden `_decode-helper` command runs
        /// ``DecodeHelper/serve(coders:memoryLimitBytes:hangMarker:)``).
        public var executable: URL
        /// The helper's arguments, such as `["_decode-helper", "--memory-limit-mb", "1024"]`.
        public var arguments: [String]
        /// Helpers kept running, and so decodes at once. Default: the number of cores.
        public var size: Int
        /// How long one decode may take, from sending the bytes to the last pixel, before its helper is killed.
        /// Default 10 s.
        public var timeout: Duration

        /// Creates a configuration; `size` and `timeout` default as documented on their properties.
        public init(executable: URL, arguments: [String], size: Int = ProcessInfo.processInfo.activeProcessorCount,
                    timeout: Duration = .seconds(10)) {
            self.executable = executable
            self.arguments = arguments
            self.size = max(1, size)
            self.timeout = timeout
        }
    }

    private struct State {
        var idle: [DecodeHelperProcess] = []
        var busy = 0
        var restarts = 0
    }

    /// What the pool was started with.
    public let configuration: Configuration
    private let state = Locked(State())
    /// One permit per helper: a caller waits here while every helper is busy.
    private let permits: DispatchSemaphore
    private let restartCounter: CoreMetrics.Counter?
    private let onRestart: @Sendable (String) -> Void

    /// Starts `configuration.size` helpers.
    /// - Parameters:
    ///   - metricsFactory: where `webimage_decode_helper_restarts_total` is counted, if anywhere.
    ///   - onRestart: told why each replaced helper ended ("killed by signal 11", "no answer in time"), for logs.
    /// - Throws: `ImageError.Code.io` when a helper cannot be started.
    public init(configuration: Configuration, metricsFactory: (any MetricsFactory)? = nil,
                onRestart: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.configuration = configuration
        permits = DispatchSemaphore(value: configuration.size)
        restartCounter = metricsFactory.map {
            CoreMetrics.Counter(label: "webimage_decode_helper_restarts_total", factory: $0)
        }
        self.onRestart = onRestart
        // A helper that dies while its request is being written must cost an EPIPE, not this process.
        _ = signal(SIGPIPE, SIG_IGN)
        let helpers = try (0..<configuration.size).map { _ in try Self.start(configuration) }
        state.withLock { $0.idle = helpers }
    }

    deinit {
        state.withLock { state in
            state.idle.forEach { $0.stop() }
            state.idle = []
        }
    }

    /// Decodes `data` in a helper, as `ImageCoders.decode(_:options:)` with the helper's coders would here.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard case .image(let image) = try exchange(.decode(options), source: data) else {
            throw ImageError(.badImageData, "the decode helper answered a decode with properties")
        }
        return image
    }

    /// Reads `data`'s properties in a helper (header parsers crash too).
    public func properties(of data: Data) throws -> ImageProperties {
        guard case .properties(let properties) = try exchange(.properties, source: data) else {
            throw ImageError(.badImageData, "the decode helper answered a properties request with pixels")
        }
        return properties
    }

    /// Reads `data`'s properties in a helper, asks `plan` for the decode options, and decodes there with them,
    /// the source sent once (`ImageCoder.decode(_:planning:)`). What `plan` throws is thrown unchanged.
    public func decode(_ data: Data, planning plan: (ImageProperties) throws -> DecodeOptions) throws -> Image {
        let outcome = try withHelper { helper, deadline throws(HelperFailure) in
            try helper.exchange(planning: plan, source: data, deadline: deadline)
        }
        switch outcome {
        case .image(let image): return image
        case .planRefused(let error): throw error
        case .refused(let error): throw error
        case .properties:
            throw ImageError(.badImageData, "the decode helper answered a planned decode with properties")
        }
    }

    /// Helpers working on a request now.
    public var busyCount: Int { state.withLock { $0.busy } }

    /// Helpers replaced since the pool started, because they died, hung or broke the protocol.
    public var restartCount: Int { state.withLock { $0.restarts } }

    /// The process ids of the helpers waiting for work (for tests that look at the processes themselves).
    var idleHelperIDs: [pid_t] { state.withLock { $0.idle.map(\.pid) } }

    private func exchange(_ request: HelperWireFormat.Request, source: Data) throws -> DecodeHelperProcess.Outcome {
        try withHelper { helper, deadline throws(HelperFailure) in
            try helper.exchange(request, source: source, deadline: deadline)
        }
    }

    /// Runs `body` with an idle helper (waiting for one while all are busy) and the deadline of its work; a
    /// helper that fails is replaced, and the decoder's refusal is thrown.
    private func withHelper(
        _ body: (DecodeHelperProcess, ContinuousClock.Instant) throws(HelperFailure) -> DecodeHelperProcess.Outcome
    ) throws -> DecodeHelperProcess.Outcome {
        permits.wait()
        defer { permits.signal() }
        var waiting = state.withLock { state in
            state.busy += 1
            return state.idle.popLast()
        }
        if let ended = waiting, ended.endedWhileIdle {
            // Not this source's fault: replaced before the request, which then goes to the new helper.
            let ending = ended.stop()
            state.withLock { $0.restarts += 1 }
            restartCounter?.increment()
            onRestart("ended while idle (\(ending))")
            waiting = nil
        }
        let helper: DecodeHelperProcess
        do {
            // A slot is empty when starting its replacement failed: try again now.
            helper = try waiting ?? Self.start(configuration)
        } catch {
            state.withLock { $0.busy -= 1 }
            throw error
        }
        let outcome: DecodeHelperProcess.Outcome
        do {
            outcome = try body(helper, .now + configuration.timeout)
        } catch {
            let ending = helper.stop()
            let reason = error.kind == .timedOut
                ? "took longer than \(configuration.timeout) and was stopped" : "failed (\(error), \(ending))"
            replace(reason: reason)
            throw ImageError(.badImageData, "the decoder \(reason) on this source")
        }
        release(helper)
        if case .refused(let error) = outcome { throw error }
        return outcome
    }

    private func release(_ helper: DecodeHelperProcess) {
        state.withLock { state in
            state.idle.append(helper)
            state.busy -= 1
        }
    }

    /// Starts a helper in place of one that was stopped; when that fails, the next request tries again.
    private func replace(reason: String) {
        let replacement = try? Self.start(configuration)
        state.withLock { state in
            if let replacement { state.idle.append(replacement) }
            state.busy -= 1
            state.restarts += 1
        }
        restartCounter?.increment()
        onRestart(reason)
    }

    private static func start(_ configuration: Configuration) throws -> DecodeHelperProcess {
        do {
            return try DecodeHelperProcess(executable: configuration.executable.path,
                                           arguments: configuration.arguments)
        } catch {
            throw ImageError(.io, "cannot start a decode helper: \(error)")
        }
    }
}
