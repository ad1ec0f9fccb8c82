import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestImageServer
import Testing
@testable import WebImage

/// A target that records what it was asked to show.
@MainActor
final class RecordingTarget: ImageTarget {
    let imageLoading = ImageTargetState()
    private(set) var shown: [(color: RGBA?, cacheType: ImageCacheType?)] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func display(_ image: Image?, cacheType: ImageCacheType?) {
        shown.append((image?.pixels[0, 0], cacheType))
        let ready = waiters.filter { $0.count <= shown.count }
        waiters.removeAll { $0.count <= shown.count }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Waits until `count` images have been shown.
    func waitForDisplays(_ count: Int) async {
        if shown.count >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }
}

/// Values written by main-actor completion handlers.
@MainActor
final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

@Suite("Image targets")
struct ImageTargetTests {
    @MainActor @Test("placeholder first, then the image; a memory hit is shown before setImage returns")
    func placeholderThenImage() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(0, 200, 0)))
            let url = h.server.url("/files/a.png")
            let placeholder = Image(pixels: try PixelBuffer(width: 2, height: 2, filledWith: RGBA(9, 9, 9)))
            let target = RecordingTarget()
            target.setImage(with: url, placeholder: placeholder, manager: h.manager)
            await target.waitForDisplays(2)
            #expect(target.shown.map(\.color) == [RGBA(9, 9, 9), RGBA(0, 200, 0)])
            #expect(target.shown.last?.cacheType == ImageCacheType.none)
            let again = RecordingTarget()
            let task = again.setImage(with: url, placeholder: placeholder, manager: h.manager)
            #expect(task == nil)
            #expect(again.shown.map(\.color) == [RGBA(0, 200, 0)])
            #expect(again.shown.first?.cacheType == .memory)
        }
    }

    @MainActor @Test("the latest request wins: a late completion never replaces a newer image")
    func latestWins() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("old.png", data: try ManagerTest.png(RGBA(255, 0, 0)))
            h.server.serve("new.png", data: try ManagerTest.png(RGBA(0, 0, 255)))
            let target = RecordingTarget()
            let completions = Box<[String]>([])
            let oldDone: @MainActor (Result<ImageResult, ImageError>) -> Void = { _ in completions.value.append("old") }
            let newDone: @MainActor (Result<ImageResult, ImageError>) -> Void = { _ in completions.value.append("new") }
            let old = try #require(target.setImage(with: h.server.url("/files/old.png"), manager: h.manager,
                                                   completion: oldDone))
            // Hold the main actor until the old load has succeeded: its completion is then queued behind the newer
            // request, which is the case the late-completion guard exists for (no cancellation saves it here).
            while !old.isFinished { _ = pthread_self() }
            target.setImage(with: h.server.url("/files/new.png"), manager: h.manager, completion: newDone)
            await target.waitForDisplays(3)  // nil placeholder, nil placeholder, the new image
            #expect(try await old.result.image.pixels[0, 0] == RGBA(255, 0, 0))
            await Task.yield()
            #expect(target.shown.map(\.color).allSatisfy { $0 != RGBA(255, 0, 0) })
            #expect(target.shown.last?.color == RGBA(0, 0, 255))
            #expect(completions.value == ["new"])
        }
    }

    @MainActor @Test("bug 3: the target's memory fast path is the manager's (options processor, cache types, frames)")
    func fastPathIsTheManagers() async throws {
        let configuration = ImageManager.Configuration(optionsProcessor: { url, options, context in
            var options = options
            if url.path.hasSuffix("fresh.png") { options.insert(.fromLoaderOnly) }
            return (options, context)
        })
        try await ManagerHarness.with(configuration: configuration) { h in
            h.server.serve("fresh.png", data: try ManagerTest.png(RGBA(1, 1, 1)))
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(2, 2, 2)))
            h.server.serve("a.gif", data: try Fixtures.data("gif/loop-3.gif"))
            let fresh = h.server.url("/files/fresh.png"), a = h.server.url("/files/a.png"), gif = h.server.url("/files/a.gif")
            for url in [fresh, a, gif] { _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache]) }
            // The processor says "always load": no synchronous memory hit.
            #expect(RecordingTarget().setImage(with: fresh, manager: h.manager) != nil)
            // The context skips memory: no synchronous memory hit.
            #expect(RecordingTarget().setImage(with: a, context: ImageContext(queryCacheType: .disk), manager: h.manager) != nil)
            // First frame only: the synchronous hit is the poster frame.
            let frames = Box<Int?>(nil)
            let target = RecordingTarget()
            #expect(target.setImage(with: gif, options: [.decodeFirstFrameOnly], manager: h.manager) { result in
                frames.value = try? result.get().image.frames.count
            } == nil)
            #expect(frames.value == 1)
        }
    }

    @MainActor @Test("delayPlaceholder shows the placeholder only on failure; avoidAutoSetImage shows nothing")
    func placeholderOptions() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let placeholder = Image(pixels: try PixelBuffer(width: 1, height: 1, filledWith: RGBA(7, 7, 7)))
            let target = RecordingTarget()
            let failure = Box<ImageError.Code?>(nil)
            target.setImage(with: h.server.url("/status/404"), placeholder: placeholder, targetOptions: [.delayPlaceholder],
                            manager: h.manager) { result in
                if case .failure(let error) = result { failure.value = error.code }
            }
            await target.waitForDisplays(1)
            #expect(target.shown.map(\.color) == [RGBA(7, 7, 7)])
            #expect(failure.value == .invalidDownloadStatusCode)

            let quiet = RecordingTarget()
            let delivered = Box<RGBA?>(nil)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                quiet.setImage(with: h.server.url("/files/a.png"), targetOptions: [.avoidAutoSetImage, .delayPlaceholder],
                               manager: h.manager) { result in
                    delivered.value = try? result.get().image.pixels[0, 0]
                    done.resume()
                }
            }
            #expect(delivered.value == RGBA(1, 2, 3))
            #expect(quiet.shown.isEmpty)
        }
    }

    @MainActor @Test("cancelImageLoad stops the load and completes nothing")
    func cancel() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let target = RecordingTarget()
            let completed = Box(false)
            let task = target.setImage(with: h.server.url("/gate/z/a.png"), manager: h.manager) { _ in
                completed.value = true
            }
            await h.server.expectEventually { $0.count("/gate/z/a.png") == 1 }
            target.cancelImageLoad()
            #expect(await LoadingTest.failure { try await #require(task).result }?.code == .cancelled)
            h.server.openGate("z")
            await expectEventually { !h.manager.isRunning }
            #expect(!completed.value)
            #expect(target.shown.count == 1)  // the nil placeholder only
        }
    }
}
