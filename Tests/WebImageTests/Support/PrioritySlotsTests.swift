import Dispatch
import Foundation
import Testing

@testable import WebImage

/// The slots every queue of the library and the proxy waits in: a slot taken is always given back, whatever order
/// reservations, work and cancellations happen in.
@Suite struct PrioritySlotsTests {
    /// The work's task can run to its end before the caller that created it reserves its place (the downloader
    /// reserves right after subscribing, and under load the transfer may already be over by then). That late
    /// reservation must take nothing: a slot taken for work that already ended is never given back, and once
    /// every slot is lost that way, every later transfer waits for ever.
    @Test func aReservationAfterTheWorkEndedTakesNoSlot() async throws {
        let slots = PrioritySlots(width: 1)
        let pool = TaskPool<Int, Int, Never>()
        let place = PrioritySlots.Place()
        let value = try await pool.value(forKey: 1) { task in try await slots.run(in: place, for: task) { 7 } }
        #expect(value == 7)
        slots.reserve(place, priority: .normal)
        try #require(slots.running == 0 && slots.waiting == 0)
        let next = try await pool.value(forKey: 2) { task in try await slots.run(for: task) { 8 } }
        #expect(next == 8 && slots.running == 0)
    }

    @Test func workPastTheQueueLimitIsRefusedAndEverySlotComesBack() async throws {
        let slots = PrioritySlots(width: 1, queueLimit: 1)
        let gate = Gate()
        let holder = Task { try await slots.run { await gate.wait() } }
        await expectEventually { slots.running == 1 }
        let waiter = Task { try await slots.run { 1 } }
        await expectEventually { slots.waiting == 1 }
        await #expect(throws: SlotQueueFull.self) { try await slots.run { 2 } }
        gate.open()
        _ = try await holder.value
        #expect(try await waiter.value == 1)
        #expect(slots.running == 0 && slots.waiting == 0)
    }

    @Test func workCancelledWhileWaitingNeverRuns() async throws {
        let slots = PrioritySlots(width: 1)
        let gate = Gate()
        let holder = Task { try await slots.run { await gate.wait() } }
        await expectEventually { slots.running == 1 }
        let ran = Counter()
        let waiter = Task { try await slots.run { ran.add() } }
        await expectEventually { slots.waiting == 1 }
        waiter.cancel()
        await #expect(throws: ImageError.self) { try await waiter.value }
        #expect(slots.waiting == 0)
        gate.open()
        _ = try await holder.value
        #expect(ran.value == 0 && slots.running == 0)
    }

    /// Thousands of pieces of work in flight through four slots, reserved early or late, a third of them cancelled
    /// at random points: every one ends (ran or was cancelled), never more than four run at once, and every slot
    /// comes back.
    @Test func thousandsInFlightWithCancellationsLeaveEverySlotFree() async throws {
        let slots = PrioritySlots(width: 4)
        let pool = TaskPool<Int, Int, Never>()
        let running = Counter(), peak = Counter()
        let total = 4_000
        let ended = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<total {
                let place = PrioritySlots.Place()
                let work = Task {
                    try await pool.value(forKey: index) { task in
                        try await slots.run(in: place, for: task) {
                            peak.raise(to: running.add())
                            await Task.yield()
                            running.subtract()
                            return index
                        }
                    }
                }
                if index % 2 == 0 { slots.reserve(place, priority: ImagePriority.allCases[index % 3]) }
                if index % 3 == 0 { work.cancel() }
                group.addTask { (try? await work.value) != nil || index % 3 == 0 }
            }
            var ended = 0
            for await finished in group where finished { ended += 1 }
            return ended
        }
        #expect(ended == total)
        #expect(peak.value <= 4)
        #expect(slots.running == 0 && slots.waiting == 0 && pool.count == 0)
    }
}

/// A door tasks wait at until it opens.
private final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let openNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if openNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A counter shared by tasks.
private final class Counter: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    @discardableResult func add() -> Int { count.withLock { $0 += 1; return $0 } }
    func subtract() { count.withLock { $0 -= 1 } }
    func raise(to candidate: Int) { count.withLock { $0 = max($0, candidate) } }
}
