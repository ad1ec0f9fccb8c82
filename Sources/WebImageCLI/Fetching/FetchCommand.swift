import ArgumentParser
import Foundation
import WebImage

/// `webimage fetch`: load images through the pipeline (one process, one manager), report each, optionally save.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the caches and the network, and report (or save) each one.",
        discussion: """
            One line per URL, in the order given. With --json: \
            {"url":…,"status":"ok","cacheType":"none"|"memory"|"disk","format":…,"width":…,"height":…,"bytes":…} \
            (plus "path" with --out), or {"url":…,"status":"error","error":{"code":…,"message":…}}. "bytes" is \
            the original's size; for a --thumbnail of a progressive JPEG whose download stopped once it had \
            enough, the bytes read. \
            --out DIR writes each image's original bytes (the encoded result when --thumbnail or transforms are \
            given) to DIR/<the URL's last path component>, a short hash of the URL when it has none, with -2, -3 … \
            before the extension for a repeated name. A progress bar is drawn when stderr is a terminal. \
            The exit status is 0 only when every URL loaded.

            Examples:
              webimage fetch https://example.com/a.jpg https://example.com/b.png
              webimage fetch --json --out ./images https://example.com/a.jpg
              webimage fetch --thumbnail 256 --resize 128x128 --fit aspectFill --out thumbs https://example.com/a.jpg
              webimage fetch --from-cache-only --cache-dir /tmp/cache https://example.com/a.jpg
            """)

    @Argument(help: "The URLs to load (http, https, file or data).")
    var urls: [String]

    @OptionGroup var load: LoadFlags

    @Option(help: ArgumentHelp("Save each image into this folder (created when missing).", valueName: "DIR"))
    var out: String?

    @Flag(help: "Ignore cached copies and load again.")
    var refresh = false

    @Flag(name: .customLong("refresh-if-stale"),
          help: "Ask the server about a cached copy only once its HTTP freshness (max-age, Expires) has run out.")
    var refreshIfStale = false

    @Flag(name: .customLong("retry-failed"), help: "Try URLs that failed before again.")
    var retryFailed = false

    @Flag(name: .customLong("memory-only"), help: "Neither read nor write the disk cache.")
    var memoryOnly = false

    @Flag(name: .customLong("from-cache-only"), help: "Never use the network: a URL not in the cache fails.")
    var fromCacheOnly = false

    @Option(help: ArgumentHelp("Decode to fit inside N×N pixels.", valueName: "N"))
    var thumbnail: Int?

    @Option(help: ArgumentHelp("Seconds allowed per request.", valueName: "SECONDS"))
    var timeout: Double?

    @OptionGroup(title: "Transforms (applied in the order given)")
    var transforms: TransformFlags

    func validate() throws {
        if let thumbnail, thumbnail <= 0 { throw ValidationError("--thumbnail takes a size above zero") }
        if let timeout, !(timeout > 0) || !timeout.isFinite { throw ValidationError("--timeout takes seconds above zero") }
        if refresh && fromCacheOnly { throw ValidationError("--refresh and --from-cache-only exclude each other") }
        if refreshIfStale && (fromCacheOnly || refresh) {
            throw ValidationError("--refresh-if-stale excludes --refresh and --from-cache-only")
        }
        _ = try TransformFlags.steps(in: CommandLine.arguments)
    }

    func run() async throws {
        var settings = load.settings
        settings.timeoutSeconds = timeout
        settings.refresh = refresh
        settings.refreshIfStale = refreshIfStale
        settings.retryFailed = retryFailed
        settings.memoryOnly = memoryOnly
        settings.fromCacheOnly = fromCacheOnly
        settings.thumbnail = thumbnail
        settings.transforms = try TransformFlags.steps(in: CommandLine.arguments)
        settings.wantsData = true
        let folder: URL?
        do {
            folder = try out.map(OutputFolder.prepare)
        } catch let error as ImageError {
            Console.error(error.message)
            throw ExitCode.failure
        }
        let session = LoadingSession(settings: settings)
        let tracker = ProgressTracker(totalImages: urls.count, enabled: !load.quiet)
        var writer = FetchReporter(json: load.json, quiet: load.quiet, folder: folder,
                                   encodesResult: thumbnail != nil || !settings.transforms.isEmpty)
        await withTaskGroup(of: (Int, Result<LoadedImage, ImageError>).self) { group in
            for (index, text) in urls.enumerated() {
                group.addTask {
                    let result = await Self.loadOne(text, index: index, session: session, tracker: tracker)
                    await tracker.finish(index)
                    return (index, result)
                }
            }
            // Results are printed in the order given: each waits for those before it.
            var pending: [Int: Result<LoadedImage, ImageError>] = [:]
            var next = 0
            for await (index, result) in group {
                pending[index] = result
                while let ready = pending.removeValue(forKey: next) {
                    await tracker.interrupt()
                    writer.report(urls[next], ready)
                    next += 1
                }
            }
        }
        await tracker.end()
        await session.shutdown()
        if writer.failures > 0 { throw ExitCode.failure }
    }

    /// Loads one URL through the session's manager, feeding the progress bar.
    static func loadOne(_ text: String, index: Int, session: LoadingSession,
                        tracker: ProgressTracker) async -> Result<LoadedImage, ImageError> {
        do {
            let url = try URLListReader.url(text)
            let loaded = try await session.load(url) { received, expected in
                Task { await tracker.update(index, received: received, expected: expected) }
            }
            return .success(loaded)
        } catch {
            return .failure(Console.imageError(error))
        }
    }
}
