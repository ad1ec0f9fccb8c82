import CChildProcess
import Foundation

/// Starts a child process with `posix_spawn` (a threaded process is never forked), with no signal blocked in the
/// child whatever the spawning thread blocks (NIO's event loops block some, and a child that inherits them cannot
/// be stopped by SIGTERM), and its descriptors set up as asked. The proxy's decode helpers and the servers the
/// tests run start this way.
///
/// The child gets the descriptors it is given and no other: every descriptor above them is closed in it, whether
/// or not this process marked it close-on-exec. A socket inherited by a long-lived child stays open after this
/// process closes it, and its peer sees no end: a connection the tests' clients had closed kept its place under
/// the server's connection limit for as long as another test's server process lived.
package enum ChildProcessSpawn {
    /// What one of the child's descriptors becomes.
    package enum Redirection: Sendable {
        /// The file at `path`, opened with `flags` (and `mode` when it is created).
        case open(path: String, flags: Int32, mode: mode_t = 0)
        /// A copy of this process's `descriptor` (as `dup2`); the copy is not close-on-exec.
        case duplicate(Int32)
    }

    /// The `errno` with which `posix_spawn` refused.
    package struct Failure: Error, Sendable {
        package let errno: Int32
    }

    /// Starts `executable` (a path) with `arguments` and `environment`, its descriptors redirected in the order
    /// given (a later redirection may copy a descriptor an earlier one set). Returns the child's pid.
    package static func spawn(_ executable: String, arguments: [String], environment: [String: String],
                              redirections: [(descriptor: Int32, to: Redirection)]) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, redirection) in redirections {
            switch redirection {
            case .open(let path, let flags, let mode):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, mode)
            case .duplicate(let source):
                posix_spawn_file_actions_adddup2(&actions, source, descriptor)
            }
        }
        // After the redirections, which may copy from a descriptor this closes.
        let firstNotGiven = max(3, (redirections.map(\.descriptor).max() ?? 2) + 1)
        webimage_spawn_close_from(&actions, firstNotGiven)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        let status = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else { throw Failure(errno: status) }
        return pid
    }

    /// `strings` as a null-terminated array of C strings, for as long as `body` runs.
    private static func withCStrings<T>(_ strings: [String],
                                        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
