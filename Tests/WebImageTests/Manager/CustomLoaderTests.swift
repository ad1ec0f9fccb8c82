import Foundation
import Testing
@testable import WebImage

/// A loader of `gate://NAME` URLs that is not the downloader: each load waits until its gate opens, and the
/// loader records which loads started, in what order, with which headers, and which were cancelled.
final class GateLoader: ImageLoader {
    private struct State {
        var started: [String] = []
        var headers: [String: HTTPHeaderFields] = [:]
        var cancelled: [String] = []
        var open: Set<String> = []
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    let body: Data
    private let state = Locked(State())

    init(body: Data) {
        self.body = body
    }

    var started: [String] { state.withLock { $0.started } }
    var cancelled: [String] { state.withLock { $0.cancelled } }
    func headers(of name: String) -> HTTPHeaderFields? { state.withLock { $0.headers[name] } }

    func open(_ name: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open.insert(name)
            return state.waiting.removeValue(forKey: name) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    func canLoad(_ url: URL) -> Bool { url.scheme == "gate" }

    func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws -> ImageLoadResponse {
        let name = request.url.host ?? ""
        state.withLock {
            $0.started.append(name)
            $0.headers[name] = request.headers
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let passes = state.withLock { state -> Bool in
                    if state.open.contains(name) || Task.isCancelled { return true }
                    state.waiting[name, default: []].append(continuation)
                    return false
                }
                if passes { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { $0.waiting.removeValue(forKey: name) ?? [] }
            for waiter in waiters { waiter.resume() }
        }
        if Task.isCancelled {
            state.withLock { $0.cancelled.append(name) }
            throw ImageError(.cancelled, "cancelled")
        }
        progress?(ImageLoadProgress(receivedBytes: Int64(body.count), expectedBytes: Int64(body.count)))
        return ImageLoadResponse(data: body, metadata: ImageResponseMetadata(url: request.url))
    }
}

@Suite("Image manager: a custom loader gets coalescing, priorities, cancellation and hooks")
struct CustomLoaderTests {
    static func manager(_ loader: GateLoader, maxConcurrentLoads: Int = 6) throws -> (ImageManager, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let manager = ImageManager(cache: ImageCache(folder: folder.url), loader: loader,
                                   configuration: .init(maxConcurrentLoads: maxConcurrentLoads))
        return (manager, folder)
    }

    @Test("equal loads share one load of the custom loader")
    func coalescing() async throws {
        let loader = GateLoader(body: try ManagerTest.png(RGBA(1, 2, 3)))
        let (manager, folder) = try Self.manager(loader)
        defer { folder.remove() }
        let tasks = (0..<20).map { _ in manager.imageTask(from: URL(string: "gate://a")!) }
        await expectEventually { loader.started == ["a"] }
        loader.open("a")
        for task in tasks { #expect(try await task.result.image.pixels[0, 0] == RGBA(1, 2, 3)) }
        #expect(loader.started == ["a"])
    }

    @Test("raising a waiting load's priority moves it ahead in the queue")
    func priorityChange() async throws {
        let loader = GateLoader(body: try ManagerTest.png(RGBA(1, 2, 3)))
        let (manager, folder) = try Self.manager(loader, maxConcurrentLoads: 1)
        defer { folder.remove() }
        let blocker = manager.imageTask(from: URL(string: "gate://blocker")!)
        await expectEventually { loader.started == ["blocker"] }
        let normal = manager.imageTask(from: URL(string: "gate://normal")!)
        let late = manager.imageTask(ImageRequest(url: URL(string: "gate://late")!, priority: .low))
        await expectEventually { manager.stage.slots.waiting == 2 }
        late.priority = .high
        #expect(late.priority == .high)
        for name in ["blocker", "normal", "late"] { loader.open(name) }
        _ = try await (blocker.result, normal.result, late.result)
        #expect(loader.started == ["blocker", "late", "normal"])
    }

    @Test("a shared load runs at its highest subscriber's priority and drops back when that one leaves")
    func priorityFollowsSubscribers() async throws {
        let loader = GateLoader(body: try ManagerTest.png(RGBA(1, 2, 3)))
        let (manager, folder) = try Self.manager(loader, maxConcurrentLoads: 1)
        defer { folder.remove() }
        let blocker = manager.imageTask(from: URL(string: "gate://blocker")!)
        await expectEventually { loader.started == ["blocker"] }
        let other = manager.imageTask(from: URL(string: "gate://other")!)
        let lowA = manager.imageTask(ImageRequest(url: URL(string: "gate://shared")!, priority: .low))
        let highA = manager.imageTask(ImageRequest(url: URL(string: "gate://shared")!, priority: .high))
        await expectEventually { manager.stage.slots.waiting == 2 }
        highA.cancel()  // the shared load is low again: "other" (normal) goes first
        for name in ["blocker", "other", "shared"] { loader.open(name) }
        _ = try await (blocker.result, other.result, lowA.result)
        #expect(loader.started == ["blocker", "other", "shared"])
    }

    @Test("cancelling every caller cancels the custom loader's load; one caller leaving does not")
    func cancellation() async throws {
        let loader = GateLoader(body: try ManagerTest.png(RGBA(1, 2, 3)))
        let (manager, folder) = try Self.manager(loader)
        defer { folder.remove() }
        let first = manager.imageTask(from: URL(string: "gate://c")!)
        let second = manager.imageTask(from: URL(string: "gate://c")!)
        await expectEventually { loader.started == ["c"] }
        first.cancel()
        #expect(await LoadingTest.failure { try await first.result }?.code == .cancelled)
        #expect(loader.cancelled.isEmpty)
        second.cancel()
        #expect(await LoadingTest.failure { try await second.result }?.code == .cancelled)
        await expectEventually { loader.cancelled == ["c"] && !manager.isRunning }
    }

    @Test("the context's request modifier, response modifier and decryptor apply to a custom loader")
    func hooks() async throws {
        let png = try ManagerTest.png(RGBA(4, 5, 6))
        let loader = GateLoader(body: Data(png.base64EncodedString().utf8))
        let (manager, folder) = try Self.manager(loader)
        defer { folder.remove() }
        loader.open("h")
        let seen = Locked<Int?>(nil)
        let result = try await manager.loadImage(from: URL(string: "gate://h")!, context: ImageContext(download: .init(
            headers: ["X-Extra": "1"],
            requestModifier: { request in
                var request = request
                request.headers["X-Token"] = "secret"
                return request
            },
            responseModifier: { response in
                seen.withLock { $0 = response.statusCode }
                return response
            },
            decryptor: .base64)))
        #expect(result.image.pixels[0, 0] == RGBA(4, 5, 6))
        #expect(loader.headers(of: "h")?["X-Token"] == "secret")
        #expect(loader.headers(of: "h")?["X-Extra"] == "1")
        #expect(seen.withLock { $0 } == 200)
    }
}
