import Foundation
import Synchronization
import Testing
import WebImage
import WebImageCore
@testable import WebImageServer

/// Starting children: descriptors as asked and in order, no signal blocked in the child whatever the spawning
/// thread blocks, and a refusal that names its cause.
@Suite struct ChildProcessSpawnTests {
    @Test func redirectionsApplyInOrderAndTheChildStartsWithNoSignalBlocked() throws {
        let folder = TestScratch.root.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.txt").path, mask = folder.appendingPathComponent("mask.txt").path
        // Spawned from a thread that blocks SIGTERM and SIGINT, as NIO's event loops block signals. The mask is
        // read by grep itself: a shell would clear it before anything it runs could see it.
        let pids = try Self.onThreadBlocking([SIGTERM, SIGINT]) { () throws(ChildProcessSpawn.Failure) in
            let reader = try ChildProcessSpawn.spawn(
                "/bin/grep", arguments: ["SigBlk", "/proc/self/status"], environment: [:],
                redirections: [(1, .open(path: mask, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600))])
            let writer = try ChildProcessSpawn.spawn(
                "/bin/sh", arguments: ["-c", "echo \"$GREETING\" >&2; echo to standard output"],
                environment: ["GREETING": "to standard error"],
                redirections: [(0, .open(path: "/dev/null", flags: O_RDONLY)),
                               (1, .open(path: output, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)),
                               (2, .duplicate(1))])
            return [reader, writer]
        }
        for pid in pids {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            #expect(status == 0)
        }
        #expect(try String(contentsOfFile: mask, encoding: .utf8) == "SigBlk:\t0000000000000000\n")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "to standard error\nto standard output\n")
    }

    /// A child has the descriptors it was given and no other, even one this process left open across `exec`: a
    /// socket a child inherits stays open after this process closes it, and its peer never sees the end.
    @Test func aChildHasNoDescriptorItWasNotGiven() throws {
        let folder = TestScratch.root.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let listing = folder.appendingPathComponent("fd.txt").path
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        defer { close(opened) }
        // A copy made by dup2 is never close-on-exec.
        let leftOpen: Int32 = 200
        try #require(dup2(opened, leftOpen) == leftOpen)
        defer { close(leftOpen) }
        let pid = try ChildProcessSpawn.spawn(
            "/bin/sh", arguments: ["-c", "ls /proc/$$/fd"], environment: [:],
            redirections: [(1, .open(path: listing, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600))])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        #expect(status == 0)
        let descriptors = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.contains(1) && descriptors.allSatisfy { $0 <= 2 }, "\(descriptors)")
    }

    @Test func aMissingExecutableIsRefusedWithItsErrno() throws {
        do throws(ChildProcessSpawn.Failure) {
            _ = try ChildProcessSpawn.spawn("/no/such/executable", arguments: [], environment: [:], redirections: [])
            Issue.record("a child started from a missing executable")
        } catch {
            #expect(error.errno == ENOENT)
        }
        do throws(HelperFailure) {
            _ = try DecodeHelperProcess(executable: "/no/such/helper", arguments: [])
            Issue.record("a helper started from a missing executable")
        } catch {
            #expect(error.kind == .notStarted)
            #expect(error.description.contains("/no/such/helper"))
        }
    }

    /// Runs `body` on a new thread that blocks `signals`, and returns what it returned.
    private static func onThreadBlocking<T: Sendable>(_ signals: [Int32],
                                                      _ body: @escaping @Sendable () throws(ChildProcessSpawn.Failure) -> T) throws -> T {
        let result = Mutex<Result<T, ChildProcessSpawn.Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            for signal in signals { sigaddset(&blocked, signal) }
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let outcome = Result { () throws(ChildProcessSpawn.Failure) in try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }.start()
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
