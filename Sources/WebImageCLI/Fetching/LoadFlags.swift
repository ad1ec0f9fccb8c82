import ArgumentParser
import Foundation

/// Flags `fetch`, `prefetch` and `demo` share: where the cache lives, how many downloads run at once, output.
struct LoadFlags: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The disk cache folder (default: `webimage cache path`).",
                                                               valueName: "DIR"))
    var cacheDirectory: String?

    @Option(help: ArgumentHelp("Most downloads at once (default 6).", valueName: "N"))
    var concurrency: Int?

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress bar and no text lines; errors still go to stderr.")
    var quiet = false

    func validate() throws {
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency takes 1 or more") }
    }

    /// The settings these flags give, before command-specific ones are added.
    var settings: LoadSettings {
        LoadSettings(cacheFolder: cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) },
                     concurrency: concurrency)
    }
}
