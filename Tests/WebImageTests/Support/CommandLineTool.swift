import Foundation
import TestImageServer

/// Runs the built `webimage` executable as a separate process, the way users and scripts run it.
enum CommandLineTool {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Standard output split into non-empty lines.
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// Standard error split into non-empty lines.
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
        /// Each stdout line parsed as a JSON object.
        func jsonLines() throws -> [[String: Any]] {
            try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        }
    }

    /// The `webimage` binary SwiftPM built beside the test bundle.
    static var executable: URL {
        Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("webimage")
    }

    /// The environment the tool runs in: the tests' own, with LeakSanitizer off in the child.
    ///
    /// Why: a command-line process ends with `exit()`, and LeakSanitizer then reports whatever tasks still running
    /// at that moment hold (2 of 8 ASan runs of the CLI tests, before the tool waited for its cache writes; 0 of
    /// 51 runs since). That is memory the process gives back as it ends, not a leak, and a report turns the exit
    /// status to 1 and loses buffered output. AddressSanitizer stays on in the child; the library's code is
    /// leak-checked in the test process, which runs the same loads.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "detect_leaks=0"].compactMap { $0 }
            .joined(separator: ":")
        return environment
    }

    /// Runs `webimage` with `arguments` (standard input from `input`, if any) and waits for it to exit without
    /// holding a thread. Output goes through temporary files rather than pipes,
    /// so a chatty child can never block on a full pipe.
    static func run(_ arguments: [String], input: Data? = nil) async throws -> Result {
        let scratch = TestScratch.root
            .appendingPathComponent("webimage-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stdoutURL = scratch.appendingPathComponent("out"), stderrURL = scratch.appendingPathComponent("err")
        let stdinURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: stdinURL.path, contents: input ?? Data())
        let child = try SpawnedProcess(executable.path, arguments, environment: environment, input: stdinURL.path,
                                       output: .file(stdoutURL.path), errors: .file(stderrURL.path))
        let status = await child.waitForExit()
        return Result(status: status,
                      stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }

    /// A fresh empty folder for a test's output files.
    static func temporaryFolder() throws -> URL {
        let folder = TestScratch.root
            .appendingPathComponent("webimage-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
