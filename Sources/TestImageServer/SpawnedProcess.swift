import Foundation
import WebImageCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process the tests start (a `redis-server`, a `webimage serve`, moto, a one-shot command), spawned with
/// `posix_spawn` and reaped by `waitpid` on its own pid, on a thread of its own.
///
/// Why not Foundation's `Process`: it notices an exit through a SIGCHLD handler and a run loop, and in the test
/// process `waitUntilExit()` was seen never to return, twice: for nginx's daemonising foreground process, and
/// (under ThreadSanitizer, in CI) for a `redis-server` killed at the end of a test. Called on one of Swift's two
/// cooperative threads, such a wait froze the whole run until CI's time ran out. Waiting for the one pid cannot
/// miss its exit, and the waiting thread is never one of the pool's.
public final class SpawnedProcess: Sendable {
    /// Where a child's standard output or error goes.
    public enum Destination: Sendable {
        /// `/dev/null`.
        case discard
        /// A file, created or truncated.
        case file(String)
        /// A pipe whose reading end is ``SpawnedProcess/outputPipe`` (standard output only).
        case pipe
        /// Wherever standard output goes (standard error only).
        case standardOutput
    }

    /// The child's process identifier.
    public let pid: pid_t
    /// The reading end of standard output, when it was asked for as ``Destination/pipe``.
    public let outputPipe: FileHandle?
    private let exit: ExitState

    /// Starts `executable` (a path) with `arguments`, `environment` (else this process's) and standard input read
    /// from the file `input` (else empty). The child starts with no signal blocked, whatever the spawning thread
    /// blocks.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                input: String? = nil, output: Destination = .discard, errors: Destination = .discard) throws {
        var redirections: [(descriptor: Int32, to: ChildProcessSpawn.Redirection)] = [
            (0, .open(path: input ?? "/dev/null", flags: O_RDONLY))]
        // The "pipe" is a socket pair, which can be made close-on-exec at once (`pipe2` is not visible to Swift
        // here): no other child spawned meanwhile inherits its ends and holds it open.
        var pipeEnds: [Int32] = [-1, -1]
        if case .pipe = output {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0 else {
                throw ChildProcessError(errno: errno, doing: "socketpair")
            }
            shutdown(pipeEnds[0], Int32(SHUT_WR))
            redirections.append((1, .duplicate(pipeEnds[1])))
        }
        for (descriptor, destination) in [(Int32(1), output), (Int32(2), errors)] {
            switch destination {
            case .discard: redirections.append((descriptor, .open(path: "/dev/null", flags: O_WRONLY)))
            case .file(let path):
                redirections.append((descriptor, .open(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)))
            case .pipe: precondition(descriptor == 1, "only standard output can be a pipe")
            case .standardOutput:
                precondition(descriptor == 2, "standard output cannot go to itself")
                redirections.append((2, .duplicate(1)))
            }
        }
        let pid: pid_t
        do {
            pid = try ChildProcessSpawn.spawn(executable, arguments: arguments,
                                              environment: environment ?? ProcessInfo.processInfo.environment,
                                              redirections: redirections)
        } catch {
            pipeEnds.filter { $0 >= 0 }.forEach { close($0) }
            throw ChildProcessError(errno: error.errno, doing: executable)
        }
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        self.pid = pid
        outputPipe = pipeEnds[0] >= 0 ? FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true) : nil
        let exit = ExitState()
        self.exit = exit
        let child = pid
        Thread {
            // Waits for the exit without reaping: the child stays a zombie and its pid stays taken, so a signal
            // sent meanwhile reaches nobody else. Reaping it and marking it ended then happen under the lock
            // ``send(_:)`` takes: no signal goes out between the two, to a process that got the pid again.
            var info = siginfo_t()
            while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
            exit.finish {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 {
                    // Only EINTR can happen for a child of ours that nobody else waits for.
                    guard errno == EINTR else { status = 0x7f; break }
                }
                // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
        }.start()
    }

    /// Whether the child has not been reaped yet.
    public var isRunning: Bool { exit.status == nil }

    /// The exit status once it ended: its exit code, or 128 + the signal's number when a signal ended it.
    public var exitStatus: Int32? { exit.status }

    /// Sends `signal` (a paused child dies of SIGKILL only once it runs again: ``killAndWait()`` sends SIGCONT
    /// too).
    public func send(_ signal: Int32) {
        exit.whileRunning { _ = kill(pid, signal) }
    }

    /// Ends the child at once (SIGKILL, which it cannot block or ignore) and waits for it, blocking this thread
    /// for as long as the kernel takes to end it.
    public func killAndWait() {
        send(SIGKILL)
        send(SIGCONT)
        _ = waitBlocking()
    }

    /// Waits for the child's exit without holding a thread, and returns its status (see ``exitStatus``).
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in exit.whenFinished { continuation.resume(returning: $0) } }
    }

    /// Waits for the child's exit, blocking this thread.
    public func waitBlocking() -> Int32 {
        let semaphore = DispatchSemaphore(value: 0)
        exit.whenFinished { _ in semaphore.signal() }
        semaphore.wait()
        return exit.status ?? 0
    }
}

/// A child's exit status once the reaping thread has it, and who is waiting for it.
private final class ExitState: Sendable {
    private struct State {
        var status: Int32?
        var waiters: [@Sendable (Int32) -> Void] = []
    }

    private let state = ServerLock(State())

    var status: Int32? { state.withLock { $0.status } }

    /// Records the status `reap` returns, reaping under the lock, then tells the waiters.
    func finish(reaping reap: () -> Int32) {
        let (status, waiters) = state.withLock { state in
            let status = reap()
            state.status = status
            defer { state.waiters = [] }
            return (status, state.waiters)
        }
        waiters.forEach { $0(status) }
    }

    /// Runs `body` under the lock if the child has not been reaped.
    func whileRunning(_ body: () -> Void) {
        state.withLock { state in if state.status == nil { body() } }
    }

    /// Runs `body` with the status now if the child has ended, else when it does.
    func whenFinished(_ body: @escaping @Sendable (Int32) -> Void) {
        let ended: Int32? = state.withLock { state in
            if state.status == nil { state.waiters.append(body) }
            return state.status
        }
        if let ended { body(ended) }
    }
}

/// A command that could not be started or waited for.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    init(description: String) { self.description = description }

    init(errno code: Int32, doing what: String) {
        description = "\(what): \(String(cString: strerror(code)))"
    }
}
