import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--render-cpu-seconds` and `--failure-ttl`: from the flag, else their `WEBIMAGE_*` variables, else the
/// proxy's defaults; refused when they cannot be a budget or a lifetime.
@Suite struct ServeRenderBudgetSettingsTests {
    func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ProxyConfiguration {
        try ServeSettings(command: try ServeCommand.parse(["--insecure"] + arguments), environment: environment)
            .configuration()
    }

    @Test func theCPUBudgetComesFromTheFlagOrTheVariable() throws {
        #expect(try configuration([]).renderCPUBudget == ProxyConfiguration().renderCPUBudget)
        #expect(try configuration(["--render-cpu-seconds", "0.25"]).renderCPUBudget == .milliseconds(250))
        #expect(try configuration([], ["WEBIMAGE_RENDER_CPU_SECONDS": "12"]).renderCPUBudget == .seconds(12))
        #expect(try configuration(["--render-cpu-seconds", "2"], ["WEBIMAGE_RENDER_CPU_SECONDS": "12"])
            .renderCPUBudget == .seconds(2))
        for given in ["0", "-1", "soon"] {
            #expect(throws: (any Error).self, "\(given)") {
                try configuration([], ["WEBIMAGE_RENDER_CPU_SECONDS": given])
            }
        }
    }

    @Test func theMemoryBudgetComesFromTheFlagOrTheVariable() throws {
        #expect(try configuration([]).renderMemoryBudget == 2048 << 20)
        #expect(try configuration(["--render-memory-mb", "512"]).renderMemoryBudget == 512 << 20)
        #expect(try configuration([], ["WEBIMAGE_RENDER_MEMORY_MB": "100"]).renderMemoryBudget == 100 << 20)
        #expect(throws: (any Error).self) { try configuration(["--render-memory-mb", "0"]) }
    }

    @Test func failuresAreRememberedForTheGivenSeconds() throws {
        #expect(try configuration([]).failureMemory == .seconds(10))
        #expect(try configuration(["--failure-ttl", "0"]).failureMemory == .zero)
        #expect(try configuration([], ["WEBIMAGE_FAILURE_TTL": "60"]).failureMemory == .seconds(60))
        #expect(throws: (any Error).self) { try configuration(["--failure-ttl=-5"]) }
    }

    @Test func helpNamesBothWithTheirDefaults() {
        let help = ServeCommand.helpMessage(columns: 400)
        #expect(help.contains("--render-cpu-seconds") && help.contains("a 422 (default 5)"))
        #expect(help.contains("--failure-ttl") && help.contains("0 remembers none (default 10)"))
        #expect(help.contains("--render-memory-mb") && help.contains("a 422 (default 2048)"))
    }
}
