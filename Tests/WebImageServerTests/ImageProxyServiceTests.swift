import Foundation
import Logging
import ServiceLifecycle
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// The proxy as a member of a service group: it starts up (here: downloads its watermark) before it serves, once,
/// and closes its source connections only after the server listed after it has stopped.
struct ImageProxyServiceTests {
    /// A server's stand-in: runs until the group's graceful shutdown, then does `onStop` before it returns.
    private struct StandInServer: Service {
        let onStop: @Sendable () async -> Void

        func run() async throws {
            try? await gracefulShutdown()
            await onStop()
        }
    }

    private static func watermarkOrigin() async throws -> TestImageServer {
        let marks = try await TestImageServer.start()
        marks.serve("mark.png", data: try ProxyHarness.photo(width: 12, height: 12, as: .png), contentType: "image/png")
        return marks
    }

    @Test func startUpDownloadsTheWatermarkOnceAndAFailedOneStopsTheGroup() async throws {
        let marks = try await Self.watermarkOrigin()
        try await ProxyHarness.with(configuring: { $0.watermarkURL = marks.url("/files/mark.png") }) { harness in
            try await harness.proxy.start()
            try await harness.proxy.start()
            #expect(marks.log.count("/files/mark.png") == 1)
            #expect(harness.proxy.watermarks.current != nil)

            var configuration = harness.proxy.configuration
            configuration.watermarkURL = marks.url("/files/missing.png")
            let broken = ImageProxy(configuration: configuration)
            await #expect(throws: ProxyConfigurationError.self) { try await broken.start() }
            let group = ServiceGroup(services: [broken, StandInServer(onStop: {})], logger: Logger(label: "test"))
            await #expect(throws: ProxyConfigurationError.self) { try await group.run() }
            #expect(marks.log.count("/files/missing.png") == 2)
        }
        await marks.shutdown()
    }

    @Test func inAGroupItStartsUpServesUntilTheServerStopsAndThenClosesItsSources() async throws {
        let marks = try await Self.watermarkOrigin()
        try await ProxyHarness.with(configuring: { $0.watermarkURL = marks.url("/files/mark.png") }) { harness in
            let statusAsTheServerStopped = Locked<Int?>(nil)
            let server = StandInServer {
                let status = await harness.get(harness.plainPath(["w:50"], "photo.jpg")).status
                statusAsTheServerStopped.withLock { $0 = status }
            }
            let group = ServiceGroup(services: [harness.proxy, server], logger: Logger(label: "test"))
            let running = Task { try await group.run() }
            // The proxy's start-up runs as the group starts: the watermark is fetched without a call to start().
            #expect(await marks.waitUntil { $0.count("/files/mark.png") == 1 })
            while !harness.proxy.started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            await group.triggerGracefulShutdown()
            try await running.value

            // The server, stopping first, was still answered from a fresh download.
            #expect(statusAsTheServerStopped.withLock { $0 } == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            // Afterwards the proxy's source client is closed: a new source is refused without reaching the origin.
            #expect(await harness.get(harness.plainPath(["w:50"], "logo.png")).status != 200)
            #expect(harness.origin.log.count("/files/logo.png") == 0)
        }
        await marks.shutdown()
    }
}
