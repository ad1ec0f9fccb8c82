import Foundation
import TestImageServer
import Testing

/// The children the tests start: exit statuses and signals as they happened, output where it was sent, and every
/// child of a burst reaped, with no reaping thread left behind.
struct SpawnedProcessTests {
    @Test func exitCodesAndSignalsAreReportedAsTheyHappened() async throws {
        let exited = try SpawnedProcess("/bin/sh", ["-c", "exit 3"])
        #expect(await exited.waitForExit() == 3)
        #expect(!exited.isRunning && exited.exitStatus == 3)

        let sleeper = try SpawnedProcess("/bin/sleep", ["600"])
        #expect(sleeper.isRunning)
        sleeper.killAndWait()
        #expect(sleeper.exitStatus == 128 + SIGKILL)

        // A child stopped with SIGSTOP still dies of the kill (it is sent SIGCONT too).
        let paused = try SpawnedProcess("/bin/sleep", ["600"])
        paused.send(SIGSTOP)
        paused.killAndWait()
        #expect(paused.exitStatus == 128 + SIGKILL)

        // SIGTERM reaches it, whatever the spawning thread blocks.
        let terminated = try SpawnedProcess("/bin/sleep", ["600"])
        terminated.send(SIGTERM)
        #expect(terminated.waitBlocking() == 128 + SIGTERM)

        #expect(throws: ChildProcessError.self) { try SpawnedProcess("/nonexistent/tool", []) }
    }

    @Test func outputGoesToAPipeOrAFileAndInputComesFromAFile() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in"), output = folder.appendingPathComponent("out")
        try Data("from a file\n".utf8).write(to: input)
        let piped = try SpawnedProcess("/bin/sh", ["-c", "cat; echo to stderr >&2"], input: input.path,
                                       output: .pipe, errors: .standardOutput)
        let text = String(decoding: try #require(piped.outputPipe).readDataToEndOfFile(), as: UTF8.self)
        #expect(await piped.waitForExit() == 0)
        #expect(text == "from a file\nto stderr\n")

        let filed = try SpawnedProcess("/bin/sh", ["-c", "echo \"$GREETING\"; echo lost >&2"],
                                       environment: ["GREETING": "hello"], output: .file(output.path))
        #expect(await filed.waitForExit() == 0)
        #expect(try String(contentsOf: output, encoding: .utf8) == "hello\n")
    }

    @Test func aThousandChildrenAtOnceAreAllReapedAndTheirThreadsEnd() async throws {
        let threadsBefore = Self.threadCount()
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    let child = try SpawnedProcess("/bin/sh", ["-c", "exit \(index % 7)"])
                    return await child.waitForExit()
                }
            }
            return try await group.reduce(into: [Int32]()) { $0.append($1) }
        }
        #expect(statuses.count == 1_000)
        #expect(statuses.sorted() == (0..<1_000).map { Int32($0 % 7) }.sorted())
        // Each reaping thread ends once its child is reaped (other tests' threads come and go meanwhile).
        await expectEventually { Self.threadCount() < threadsBefore + 50 }
    }

    /// This process's threads now.
    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
