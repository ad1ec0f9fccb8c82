import Foundation
import Testing
@testable import WebImage

/// The first stores into a folder that does not exist yet: each creates it if it is still missing, and each
/// succeeds, however they interleave (found by `webimage demo` under AddressSanitizer in CI: a store whose first
/// write failed while another store was creating the folder gave up with "No such file or directory").
@Suite struct DiskCacheFirstStoreTests {
    @Test func concurrentFirstStoresIntoAMissingFolderAllSucceed() throws {
        let writers = 6
        for _ in 0..<40 {
            let parent = try TemporaryFolder()
            defer { parent.remove() }
            let cache = DiskCache(folder: parent.url.appendingPathComponent("cache/nested"),
                                  configuration: .init(sweepInterval: nil))
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: writers) { index in
                do {
                    try cache.store(Data(repeating: UInt8(index), count: 100), forKey: "key-\(index)")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let stored = (0..<writers).filter { cache.data(forKey: "key-\($0)") == Data(repeating: UInt8($0), count: 100) }
            #expect(stored.count == writers)
        }
    }
}
