import Foundation
import Synchronization
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// A source decoded in a helper process holds no render slot while the helper works, and a helper never runs at a
/// higher priority than the server that started it.
@Suite struct HelperWaitTests {
    /// A TIFF signature and the helpers' test marker: a helper given it stops answering until it is killed.
    static let hanging = Data([0x49, 0x49, 0x2A, 0x00]) + Data("HANG".utf8)

    @Test func aHelperDecodeHoldsNoRenderSlot() async throws {
        let pool = try DecodeHelperPoolTests.pool(size: 1, timeout: .seconds(15),
                                                  extraArguments: ["--test-hang-marker", "HANG"])
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool,
                                           behind: DecodeHelperPoolTests.inProcess)
        let origin = try await TestImageServer.start()
        let folder = TestScratch.root.appendingPathComponent("helper-wait-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ProxyConfiguration()
        configuration.allowsLoopbackSources = true
        configuration.cacheDirectory = folder
        configuration.workers = 1  // one render slot: a helper's wait holding it would stop every other render
        configuration.downloadTimeout = .seconds(120)
        configuration.requestTimeout = .seconds(120)
        let proxy = ImageProxy(configuration: configuration, coders: coders)
        let photo = Image(pixels: try PixelBuffer(width: 64, height: 48, filledWith: RGBA(10, 200, 30)))
        origin.serve("photo.jpg", data: try ImageCoders.shared.encode(photo, as: .jpeg), contentType: "image/jpeg")
        origin.serve("hang.tif", data: Self.hanging, contentType: "image/tiff")
        func path(_ name: String) -> String { "/_/w:32/plain/" + origin.url("/files/" + name).absoluteString }

        let stuck = Task { await proxy.respond(to: ProxyRequest(method: "GET", path: path("hang.tif") + "@png")) }
        #expect(await Self.eventually { proxy.load.helperDecodes == 1 })
        // The only render slot is free: the JPEG is rendered while the helper still works on the TIFF.
        let answer = await proxy.respond(to: ProxyRequest(method: "GET", path: path("photo.jpg")))
        #expect(answer.status == 200)
        #expect(proxy.load.helperDecodes == 1 && proxy.load.rendering == 0)
        // The helper is killed at its time limit; its request gets the typed failure, and nothing is left.
        #expect(await stuck.value.status == 422)
        #expect(await Self.eventually { proxy.load == .idle })
        await origin.shutdown()
    }

    /// A pool started (or a helper replaced) from a thread that runs at a higher priority than the process, as a
    /// dispatch thread of a high quality of service does: its helpers still run at the process's own.
    @Test(.enabled(if: getuid() == 0, "raising a thread's priority needs root"))
    func helpersRunAtTheServersPriorityWhateverThreadStartsThem() async throws {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let own = getpriority(which, 0)
        let started = Mutex<Result<DecodeHelperPool, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // On Linux this sets the calling thread's nice value alone.
            if setpriority(which, 0, own - 2) == 0 {
                let result = Result { try DecodeHelperPoolTests.pool(size: 1) }
                started.withLock { $0 = result }
            }
            done.signal()
        }
        thread.start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                done.wait()
                continuation.resume()
            }
        }
        let pool = try #require(try started.withLock { $0 }?.get())
        // One round trip: the helper has started and settled its priority before it answers.
        let tiff = try IsolationFixtures.tiff("rgb")
        #expect(try pool.decode(tiff, options: DecodeOptions()).size.area > 0)
        let helpers = pool.idleHelperIDs
        #expect(helpers.count == 1)
        for helper in helpers {
            errno = 0
            #expect(getpriority(which, id_t(helper)) == own && errno == 0)
        }
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<6000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
