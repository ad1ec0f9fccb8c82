import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a short command to its end (`nginx` starting itself as a daemon, a test binary in a network namespace)
/// with `posix_spawn` and `waitpid`, on a thread of its own.
///
/// Why not `Process`: its exit is noticed through a SIGCHLD handler, and in the test process a
/// `Process.waitUntilExit()` for a command that daemonises (nginx's foreground process) was seen never to return,
/// its child left a zombie, which held a test, and the others behind it, until the run was killed. Waiting for
/// the one pid cannot miss its exit; the thread keeps the wait off Swift's small cooperative pool.
public enum ChildProcess {
    /// Runs `executable` with `arguments` (and `environment`, else this process's), standard input empty and
    /// standard output and error together in the returned text; returns its exit status (128 + the signal's
    /// number when a signal ended it).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        async throws -> (status: Int32, output: String)
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try runBlocking(executable, arguments, environment: environment)
                })
            }.start()
        }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]?)
        throws -> (status: Int32, output: String)
    {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The child starts with no signal blocked, whatever this thread blocks (nginx is stopped by a signal).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let spawned = withCStrings([executable] + arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard spawned == 0 else { throw ChildProcessError(description: "\(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ChildProcessError(description: "waitpid: \(String(cString: strerror(errno)))") }
        }
        let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, text)
    }

    /// `strings` as a NULL-terminated array of C strings, valid during `body`.
    private static func withCStrings<T>(_ strings: [String],
                                        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// A command that could not be started or waited for.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}
