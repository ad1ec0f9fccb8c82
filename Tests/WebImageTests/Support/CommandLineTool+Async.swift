import Foundation

extension CommandLineTool {
    /// Runs `webimage` with `arguments` and waits for it to exit on a thread of its own: waiting for a child must
    /// not hold one of the few threads of Swift's cooperative pool (two on a 2-core machine), which every other
    /// test running meanwhile, and the in-process test server a child may talk to, need.
    static func run(_ arguments: [String], input: Data? = nil, in directory: URL? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, input: input, in: directory) })
            }
            thread.start()
        }
    }
}
