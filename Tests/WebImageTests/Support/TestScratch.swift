import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder the tests' temporary files go under: one a test process, removed when it exits. A test removes the
/// folders it makes, but a cache store still finishing after the test makes its folder again (the caches create
/// their folders on a write, as they must when a user deletes one); those late files go with this folder at exit.
/// Folders of test processes that have ended without removing theirs (a crash) are removed when the next starts.
enum TestScratch {
    static let root: URL = {
        let system = FileManager.default.temporaryDirectory
        removeFoldersOfEndedProcesses(in: system)
        let root = system.appendingPathComponent(prefix + String(getpid()), isDirectory: true)
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestScratch.root) }
        return root
    }()

    private static let prefix = "webimage-tests-"

    private static func removeFoldersOfEndedProcesses(in system: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: system.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: system.appendingPathComponent(name))
        }
    }
}
