import Testing

/// Every command's `--help` exits 0 and shows examples.
@Suite struct HelpTests {
    @Test(arguments: [[], ["info"], ["convert"], ["fetch"], ["prefetch"], ["cache"], ["demo"]])
    func helpHasExamples(command: [String]) async throws {
        let result = try await CommandLineTool.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        let examples = result.stdout.components(separatedBy: "Examples:").last ?? ""
        let name = command.first ?? ""
        #expect(examples.contains("webimage \(name)"))
    }

    @Test func rootHelpListsEveryCommand() async throws {
        let result = try await CommandLineTool.run(["--help"])
        for name in ["info", "convert", "fetch", "prefetch", "cache", "demo"] {
            #expect(result.stdout.contains("  \(name) "))
        }
    }
}
