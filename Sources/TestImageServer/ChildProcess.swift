import Foundation

/// Runs a short command to its end (`nginx` starting itself as a daemon, a test binary in a network namespace, a
/// Python script) as a ``SpawnedProcess``, and returns what it printed.
public enum ChildProcess {
    /// Runs `executable` with `arguments` (and `environment`, else this process's), standard input empty and
    /// standard output and error together in the returned text; returns its exit status (128 + the signal's
    /// number when a signal ended it).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        async throws -> (status: Int32, output: String)
    {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try SpawnedProcess(executable, arguments, environment: environment,
                                       output: .file(output.path), errors: .standardOutput)
        let status = await child.waitForExit()
        return (status, String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self))
    }
}
