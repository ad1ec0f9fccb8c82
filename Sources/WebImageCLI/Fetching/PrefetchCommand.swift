import ArgumentParser
import Foundation
import WebImage

/// `webimage prefetch`: warm the cache with a list of URLs and report how many were loaded, skipped or failed.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load URLs into the cache ahead of use.",
        discussion: """
            URLs come from the arguments and from --input: a file (or - for standard input) with one URL per line; \
            blank lines and lines starting with # are skipped. Prints a summary, with --json \
            {"total":…,"finished":…,"skipped":…,"failed":…}: finished were loaded (from the cache or the \
            network), skipped were not attempted (cancelled). The exit status is 0 only when none failed.

            Examples:
              webimage prefetch https://example.com/a.jpg https://example.com/b.png
              webimage prefetch --input urls.txt --cache-dir /var/cache/images --concurrency 8
              cat urls.txt | webimage prefetch --input - --json
            """)

    @Option(help: ArgumentHelp("A file of URLs, one per line (- for standard input).", valueName: "FILE|-"))
    var input: String?

    @Argument(help: "More URLs to load.")
    var urls: [String] = []

    @OptionGroup var load: LoadFlags

    func validate() throws {
        if input == nil && urls.isEmpty { throw ValidationError("give URLs or --input FILE|-") }
    }

    func run() async throws {
        var texts: [String]
        do {
            texts = try input.map(URLListReader.read) ?? []
        } catch let error as ImageError {
            Console.error(error.message)
            throw ExitCode.failure
        }
        texts += urls
        var valid: [URL] = []
        var invalid = 0
        for text in texts {
            do {
                valid.append(try URLListReader.url(text))
            } catch let error as ImageError {
                invalid += 1
                Console.error("\(text): \(error)")
            }
        }
        let session = LoadingSession(settings: load.settings)
        var summary = await Self.prefetch(valid, session: session, showProgress: !load.quiet)
        await session.shutdown()
        summary.total += invalid
        summary.failed += invalid
        report(summary)
        if summary.failed > 0 { throw ExitCode.failure }
    }

    /// Prefetches through the session's `ImagePrefetcher`, counting finished URLs on the progress bar.
    static func prefetch(_ urls: [URL], session: LoadingSession, showProgress: Bool) async -> PrefetchSummary {
        let tracker = ProgressTracker(totalImages: urls.count, enabled: showProgress)
        let summary = await session.prefetch(urls) { done, _ in
            Task { await tracker.finish(done - 1) }
        }
        await tracker.end()
        return summary
    }

    private func report(_ summary: PrefetchSummary) {
        if load.json {
            Console.line(JSONValue.object([
                ("total", .int(summary.total)), ("finished", .int(summary.finished)),
                ("skipped", .int(summary.skipped)), ("failed", .int(summary.failed)),
            ]).text)
        } else if !load.quiet {
            Console.line("\(summary.total) URLs: \(summary.finished) loaded, \(summary.skipped) skipped, "
                         + "\(summary.failed) failed")
        }
    }
}
