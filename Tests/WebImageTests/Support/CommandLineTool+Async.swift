import Foundation

extension CommandLineTool {
    /// ``run(_:input:in:)`` on a thread of its own: waiting for the child must not hold one of the few threads
    /// of Swift's cooperative pool, which the in-process test server needs to answer that same child.
    static func runDetached(_ arguments: [String], input: Data? = nil, in directory: URL? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try run(arguments, input: input, in: directory) })
            }
            thread.start()
        }
    }
}
