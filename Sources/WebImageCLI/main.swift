import ArgumentParser
import Foundation

// Temporary root command for the cache branch; the real root (info, convert, fetch, …) replaces this file.
await WebImageCommand.runReportingErrorsOnOneLine()

struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage", abstract: "Download, cache, decode and transform images.",
        subcommands: [CacheCommand.self])

    /// Usage errors print one line on stderr, not the whole help.
    static func runReportingErrorsOnOneLine() async {
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
                let message = message(for: error)
                if !message.isEmpty {
                    let line = message.split(separator: "\n").first.map(String.init) ?? message
                    FileHandle.standardError.write(Data("error: \(line.replacingOccurrences(of: "Error: ", with: ""))\n".utf8))
                }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
