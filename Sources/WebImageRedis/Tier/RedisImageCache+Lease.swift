import WebImage
import Foundation

/// What a node should do about a value no tier has: render it itself, or use the one another node just stored.
public enum RenderTurn: Sendable {
    /// This node holds the lease: produce the value, store it, then ``RenderLease/release()``.
    case render(RenderLease)
    /// Another node held the lease and stored the value while this one waited.
    case stored(CachedImageData)
    /// Redis is unavailable, or the value did not appear in time: produce it without a lease.
    case renderWithoutLease
}

/// The right to produce one value across all nodes, until released or until the lease time passes.
public struct RenderLease: Sendable {
    let cache: RedisImageCache
    let lockKey: String
    let token: String

    /// Gives the lease up (only if this node still holds it: after the lease time another node may).
    public func release() async {
        let (lockKey, token) = (lockKey, token)
        _ = await cache.attempt({ () async throws(RedisError) in try await cache.commands.deleteIfEqual(lockKey, to: token) })
    }
}

extension RedisImageCache {
    /// Cross-node coalescing of one value's production (SDWebImage coalesces per process; this does it across
    /// processes). The first node to ask takes a lease (`SET key:lock token NX PX leaseTime`) and renders; the
    /// others wait, looking for the stored value with growing pauses (10 ms up to 100 ms). A node that crashes
    /// while holding the lease delays the others by at most `leaseTime`: the lock expires and the next waiter
    /// takes it. A waiter gives up and renders itself after `leaseTime` plus a second.
    public func renderTurn(forKey key: String, leaseTime: Duration = .seconds(10)) async -> RenderTurn {
        let lockKey = redisKey(forKey: key) + ":lock"
        let token = UUID().uuidString
        let deadline = ContinuousClock.now + leaseTime + .seconds(1)
        var pause = Duration.milliseconds(10)
        while ContinuousClock.now < deadline {
            let acquired = await attempt({ () async throws(RedisError) in
                try await commands.set(lockKey, to: .text(token), expiresIn: leaseTime, onlyIfAbsent: true)
            })
            switch acquired {
            case nil: return .renderWithoutLease
            case true?:
                // The holder may have stored the value and released the lease between our last look and now.
                if let stored = await cachedData(forKey: key) {
                    await RenderLease(cache: self, lockKey: lockKey, token: token).release()
                    return .stored(stored)
                }
                return .render(RenderLease(cache: self, lockKey: lockKey, token: token))
            case false?:
                try? await Task.sleep(for: pause)
                pause = min(pause * 3 / 2, .milliseconds(100))
                if let stored = await cachedData(forKey: key) { return .stored(stored) }
                if Task.isCancelled { return .renderWithoutLease }
            }
        }
        return .renderWithoutLease
    }
}
