import Foundation

/// Files from elsewhere in the repository: the plugin coders' fixtures and the known crash, read where they live.
enum IsolationFixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func file(_ path: String) throws -> Data {
        try Data(contentsOf: repository.appendingPathComponent(path))
    }

    /// A 1.8 KB HEIC grid whose HEVC tiles make libde265 recurse until the stack overflows (SIGSEGV). The file
    /// in Fuzz/ starts with the fuzz harness's option byte, which is not part of the image.
    static func crashingHEIC() throws -> Data {
        try file("Fuzz/known-crashes/heif-libde265-recursion.bin").dropFirst()
    }

    static func heic(_ name: String) throws -> Data { try file("Tests/WebImageHEIFTests/Fixtures/\(name).heic") }
    static func tiff(_ name: String) throws -> Data { try file("Tests/WebImageTIFFTests/Fixtures/\(name).tif") }
    static func pdf(_ name: String) throws -> Data { try file("Tests/WebImagePDFTests/Fixtures/\(name).pdf") }

    /// Runs `body(i)` for `0..<count` on `threads` threads of their own (the pool's calls block, so they stay off
    /// the cooperative pool), and returns when every call has.
    static func runOnThreads(_ threads: Int, count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        Thread {
                            for index in stride(from: thread, to: count, by: threads) { body(index) }
                            continuation.resume()
                        }.start()
                    }
                }
            }
        }
    }

    /// Whether this test process (and so the helpers it starts, built alike) runs under AddressSanitizer or
    /// ThreadSanitizer.
    static var runsUnderASanitizer: Bool {
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        return dlsym(everywhere, "__asan_init") != nil || dlsym(everywhere, "__tsan_init") != nil
    }
}
