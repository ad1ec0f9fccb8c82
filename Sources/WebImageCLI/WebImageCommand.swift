import ArgumentParser
import Foundation
import WebImage

/// `webimage`: the library's front door on the command line. See DESIGN.md for the contract.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Load, cache, decode, inspect, convert and transform images with swift-web-image.",
        discussion: """
            Errors go to stderr, one line each; the exit status is 0 only when everything asked for succeeded. \
            `webimage help COMMAND` (or `webimage COMMAND --help`) shows each command's flags and examples.

            Examples:
              webimage demo
              webimage info --json photo.jpg
              webimage convert photo.jpg thumb.webp --thumbnail 256
              webimage fetch --json --out ./images https://example.com/a.jpg
              webimage prefetch --input urls.txt
              webimage cache stats --json
              webimage serve --insecure --bind 127.0.0.1:9000
            """,
        version: LibraryVersion.current,
        subcommands: [InfoCommand.self, ConvertCommand.self, FetchCommand.self, PrefetchCommand.self,
                      CacheCommand.self, ServeCommand.self, HealthCommand.self, DemoCommand.self, DecodeHelperCommand.self]
    )

    /// Runs the command; a usage error prints one line on stderr (not the whole help) and exits non-zero.
    static func main() async {
        PluginCoders.register()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
            } else {
                let text = message(for: error)
                if let line = text.split(separator: "\n").first {
                    Console.error(line.replacingOccurrences(of: "Error: ", with: ""))
                }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
