import ArgumentParser
import Foundation
import WebImage
import WebImageServer

/// `webimage _decode-helper`: not for people. `webimage serve` starts a few of these and sends them the formats
/// whose decoders it isolates; each decodes with every coder the tool has, in its own bounded process, until its
/// standard input closes.
struct DecodeHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_decode-helper",
        abstract: "Decode images sent on stdin for webimage serve (internal).",
        shouldDisplay: false)

    @Option(name: .customLong("memory-limit-mb"), help: "The address space this process may use, in MB.")
    var memoryLimitMB: Int?

    @Option(name: .customLong("test-hang-marker"), help: "Tests only: stop answering on a source containing this.")
    var testHangMarker: String?

    func run() throws {
        try DecodeHelper.serve(coders: .shared, memoryLimitBytes: memoryLimitMB.map { $0 * 1024 * 1024 },
                               hangMarker: testHangMarker.map { Data($0.utf8) })
    }
}
