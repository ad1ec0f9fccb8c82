import Foundation
import Testing
@testable import WebImage

@Suite("MemoryCache")
struct MemoryCacheTests {
    @Test("least recently used order: a hit moves an entry to the front, eviction takes the back")
    func lruOrder() {
        let cache = MemoryCache<String, Int>(limits: .init(countLimit: 3))
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        #expect(cache.keysByRecency == ["c", "b", "a"])
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.keysByRecency == ["a", "c", "b"])
        cache.setValue(4, forKey: "d")
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.contains("c"))
        #expect(cache.keysByRecency == ["d", "a", "c"], "contains does not change recency")
    }

    @Test("the cost limit is enforced at every insertion")
    func costLimit() {
        let cache = MemoryCache<String, Int>(limits: .init(costLimit: 100, maxEntryCost: 100))
        cache.setValue(1, forKey: "a", cost: 40)
        cache.setValue(2, forKey: "b", cost: 40)
        #expect(cache.totalCost == 80)
        cache.setValue(3, forKey: "c", cost: 30)
        #expect(cache.totalCost == 70)
        #expect(cache.keysByRecency == ["c", "b"])
        cache.setValue(4, forKey: "b", cost: 90)  // replacing re-charges, and evicts "c"
        #expect(cache.totalCost == 90)
        #expect(cache.keysByRecency == ["b"])
        #expect(cache.value(forKey: "b") == 4)
    }

    @Test("the count limit is enforced at every insertion, and lowering a limit evicts at once")
    func countLimit() {
        let cache = MemoryCache<Int, Int>(limits: .init(countLimit: 5))
        for key in 0..<20 { cache.setValue(key, forKey: key) }
        #expect(cache.count == 5)
        #expect(cache.keysByRecency == [19, 18, 17, 16, 15])
        cache.limits.countLimit = 2
        #expect(cache.keysByRecency == [19, 18])
    }

    @Test("entries unused for longer than the age limit are gone, by last use")
    func ageLimit() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(limits: .init(ageLimit: 10), clock: clock.cacheClock)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        clock.advance(by: 6)
        #expect(cache.value(forKey: "a") == 1)  // used at 6
        clock.advance(by: 6)  // now 12: "b" is 12 old, "a" 6
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "a") == 1)
        clock.advance(by: 11)
        cache.setValue(3, forKey: "c")  // insertion drops the expired tail
        #expect(cache.keysByRecency == ["c"])
        clock.advance(by: 11)
        #expect(!cache.contains("c"))
        cache.removeExpired()
        #expect(cache.count == 0)
    }

    @Test("an entry over the single-entry cap is not stored and drops the older value")
    func singleEntryCap() {
        let cache = MemoryCache<String, Int>(limits: .init(costLimit: 1000, maxEntryCost: 50))
        #expect(cache.setValue(1, forKey: "a", cost: 50))
        #expect(!cache.setValue(2, forKey: "a", cost: 51))
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.totalCost == 0)
        let defaults = MemoryCache<String, Int>.Limits(costLimit: 400)
        #expect(defaults.effectiveMaxEntryCost == 100)
        #expect(MemoryCache<String, Int>.Limits.default.costLimit
            == Int(ProcessInfo.processInfo.physicalMemory / 8))
    }

    @Test("trim(toCost:), trim(toCount:), removeValue and removeAll")
    func trimming() {
        let cache = MemoryCache<Int, Int>(limits: .init(costLimit: 10_000))
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 10) }
        cache.trim(toCost: 55)
        #expect(cache.totalCost == 50)
        #expect(cache.keysByRecency == [9, 8, 7, 6, 5])
        cache.trim(toCount: 2)
        #expect(cache.keysByRecency == [9, 8])
        #expect(cache.removeValue(forKey: 9) == 9)
        #expect(cache.removeValue(forKey: 9) == nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
        cache.setValue(1, forKey: 1, cost: 3)
        #expect(cache.totalCost == 3)
    }

    @Test("slots are recycled: churn does not grow the storage past the peak entry count")
    func slotsAreRecycled() {
        let cache = MemoryCache<Int, Int>(limits: .init(countLimit: 10))
        for key in 0..<10_000 { cache.setValue(key, forKey: key) }
        #expect(cache.count == 10)
        #expect(cache.allocatedSlots <= 11)
        for key in 0..<10_000 { cache.removeValue(forKey: key) }
        for key in 0..<5 { cache.setValue(key, forKey: key) }
        #expect(cache.allocatedSlots <= 11)
    }

    @Test("images are charged their memory cost")
    func imageCost() throws {
        let cache = MemoryCache<String, Image>(limits: .init(costLimit: 1 << 20))
        let image = try TestImages.solid(RGBA(1, 2, 3), width: 10, height: 4)
        #expect(cache.setImage(image, forKey: "x"))
        #expect(cache.totalCost == 160)
        #expect(cache.value(forKey: "x")?.pixels[0, 0] == RGBA(1, 2, 3))
    }

    @Test("many tasks at once keep the limits and the accounting exact")
    func concurrencySmoke() async {
        func cost(_ key: Int) -> Int { key % 7 + 1 }
        let cache = MemoryCache<Int, Int>(limits: .init(costLimit: 200, countLimit: 40, maxEntryCost: 200))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var state = UInt64(worker + 1)
                    for _ in 0..<3_000 {
                        state = state &* 6364136223846793005 &+ 1442695040888963407
                        let key = Int(state >> 33) % 100
                        switch (state >> 20) % 4 {
                        case 0, 1: cache.setValue(key * 10, forKey: key, cost: cost(key))
                        case 2: if let value = cache.value(forKey: key) { #expect(value == key * 10) }
                        default: cache.removeValue(forKey: key)
                        }
                    }
                }
            }
        }
        let keys = cache.keysByRecency
        #expect(keys.count == cache.count)
        #expect(cache.count <= 40)
        #expect(cache.totalCost <= 200)
        #expect(cache.totalCost == keys.reduce(0) { $0 + cost($1) })
        #expect(Set(keys).count == keys.count)
        for key in keys { #expect(cache.value(forKey: key) == key * 10) }
    }
}
