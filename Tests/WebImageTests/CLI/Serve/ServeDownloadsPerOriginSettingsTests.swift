import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--max-downloads-per-origin`: from the flag, else `WEBIMAGE_MAX_DOWNLOADS_PER_ORIGIN`, else unset (the proxy
/// then takes a quarter of `--max-downloads`); at least 1; its default said in `--help`.
@Suite struct ServeDownloadsPerOriginSettingsTests {
    func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ProxyConfiguration {
        try ServeSettings(command: try ServeCommand.parse(["--insecure"] + arguments), environment: environment)
            .configuration()
    }

    @Test func theFlagBeatsTheVariableWhichBeatsTheDefault() throws {
        #expect(try configuration([]).maximumDownloadsPerOrigin == nil)
        #expect(try configuration([], ["WEBIMAGE_MAX_DOWNLOADS_PER_ORIGIN": "3"]).maximumDownloadsPerOrigin == 3)
        #expect(try configuration(["--max-downloads-per-origin", "5"], ["WEBIMAGE_MAX_DOWNLOADS_PER_ORIGIN": "3"])
            .maximumDownloadsPerOrigin == 5)
    }

    @Test func lessThanOneIsRefused() {
        for given in ["0", "-2"] {
            #expect(throws: (any Error).self, "\(given)") {
                try configuration(["--max-downloads-per-origin=" + given])
            }
        }
        #expect(throws: (any Error).self) {
            try configuration([], ["WEBIMAGE_MAX_DOWNLOADS_PER_ORIGIN": "many"])
        }
    }

    @Test func helpNamesTheFlagAndItsDefault() {
        let help = ServeCommand.helpMessage(columns: 400)
        #expect(help.contains("--max-downloads-per-origin"))
        #expect(help.contains("default a quarter of --max-downloads, at least 1"))
    }
}
