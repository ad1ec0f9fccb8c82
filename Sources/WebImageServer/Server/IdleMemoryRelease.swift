import WebImage
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Gives freed memory back to the system once the proxy has been idle for a moment: the pixel pool's idle blocks
/// (up to 256 MB kept for the next decode) and what glibc keeps in its arenas (one per thread that allocated,
/// each holding its peak; `malloc_trim` returns their free pages). After a few large animations a server that
/// does nothing would otherwise still hold hundreds of megabytes. Releasing while renders run would only make
/// their next allocations fault the pages in again, so it waits until nothing renders.
final class IdleMemoryRelease: Sendable {
    private let scheduled = Atomic(false)
    private let delay: Duration
    private let queue = DispatchQueue(label: "webimage.serve.memory", qos: .utility)

    /// Trims `delay` after a render ends with nothing else rendering.
    init(delay: Duration = .seconds(1)) {
        self.delay = delay
    }

    /// A render ended; `isIdle` tells, when the delay has passed, whether nothing renders any more (if something
    /// does, the end of that render looks again).
    func renderEnded(isIdle: @escaping @Sendable () -> Bool) {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            scheduled.store(false, ordering: .releasing)
            guard isIdle() else { return }
            PixelMemoryPool.shared.drain()
            _ = Self.trim?(0)
        }
    }

    /// glibc's `malloc_trim`, which Swift's Glibc module does not import (it is a GNU extension in malloc.h);
    /// `nil` on other C libraries.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }  // nil: RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
