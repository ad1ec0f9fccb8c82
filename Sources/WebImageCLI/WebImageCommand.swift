import ArgumentParser
import Foundation

/// `webimage`: the library's front door on the command line. See DESIGN.md for the contract.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, inspect, convert and transform images with swift-web-image.",
        discussion: "Errors go to stderr, one line each; the exit status is 0 only when everything asked for succeeded.",
        subcommands: [InfoCommand.self, ConvertCommand.self, CacheCommand.self]
    )

    /// Runs the command; a usage error prints one line on stderr (not the whole help) and exits non-zero.
    static func main() async {
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
