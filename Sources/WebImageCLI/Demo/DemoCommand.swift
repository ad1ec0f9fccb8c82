import ArgumentParser
import Foundation
import WebImage

/// `webimage demo`: the whole pipeline, offline. Generates images, serves them from a loopback server inside
/// this process, loads them cold (network), warm (memory) and with a fresh pipeline (disk), then writes
/// thumbnails and a contact sheet and prints what happened.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole pipeline offline against a loopback server and show what happened.",
        discussion: """
            Generates about 100 images (baseline and progressive JPEG, PNG, APNG, still and animated WebP, \
            animated GIF), serves them from 127.0.0.1 inside this process, and loads them three times: cold \
            (network), warm (memory) and through a fresh pipeline (disk). Writes OUT/thumbnails/*.png and \
            OUT/contact-sheet.png; the disk cache is OUT/cache, emptied at the start. With --json, one line per \
            stage and a last line with the files written.

            Examples:
              webimage demo
              webimage demo --out /tmp/demo --count 40
              webimage demo --json --quiet
            """)

    @Option(help: ArgumentHelp("Where to write the thumbnails, the contact sheet and the cache.", valueName: "DIR"))
    var out = "webimage-demo"

    @Option(help: ArgumentHelp("How many images to generate and serve.", valueName: "N"))
    var count = 100

    @Option(help: ArgumentHelp("Most downloads at once (default 6).", valueName: "N"))
    var concurrency: Int?

    @Flag(help: "Print JSON lines instead of the table.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress bar and no table (JSON is still printed with --json).")
    var quiet = false

    func validate() throws {
        if !(1...10_000).contains(count) { throw ValidationError("--count takes 1 to 10000") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency takes 1 or more") }
    }

    func run() async throws {
        do {
            try await demo()
        } catch let error as ImageError {
            Console.error(error.message)
            throw ExitCode.failure
        }
    }

    private func demo() async throws {
        let folder = try OutputFolder.prepare(out)
        let cacheFolder = folder.appendingPathComponent("cache", isDirectory: true)
        try? FileManager.default.removeItem(at: cacheFolder)
        let settings = LoadSettings(cacheFolder: cacheFolder, concurrency: concurrency)

        var clock = StageClock()
        let images = try DemoImageSet.make(count: count)
        let generation = clock.lap()
        let server = try await DemoServer.start(serving: images)
        say("Generated \(images.count) images in \(DemoReport.formatSeconds(generation)) (\(DemoReport.kinds(images))); "
            + "serving them at \(server.server.url("/files/"))")
        let outcome: Result<([DemoStage], URL), any Error>
        do {
            outcome = .success(try await stages(server: server, settings: settings, folder: folder))
        } catch {
            outcome = .failure(error)
        }
        await server.shutdown()
        let (stages, contactSheet) = try outcome.get()

        if json {
            for stage in stages { Console.line(stage.json.text) }
            Console.line(JSONValue.object([
                ("thumbnails", .string(folder.appendingPathComponent("thumbnails").path)),
                ("contactSheet", .string(contactSheet.path)), ("cache", .string(cacheFolder.path)),
            ]).text)
        } else if !quiet {
            Console.line("")
            Console.line(DemoReport.table(stages))
            Console.line("")
            Console.line("Contact sheet: \(contactSheet.path)")
        }
        if stages.contains(where: { $0.failed > 0 }) { throw ExitCode.failure }
    }

    /// The three loading stages, then the thumbnails and the contact sheet (returned).
    private func stages(server: DemoServer, settings: LoadSettings, folder: URL) async throws -> ([DemoStage], URL) {
        var stages: [DemoStage] = []
        let first = LoadingSession(settings: settings)
        let cold = await runStage("cold (network)", server: server, session: first, stages: &stages)
        _ = await runStage("warm (memory)", server: server, session: first, stages: &stages)
        await first.shutdown()
        let fresh = LoadingSession(settings: settings)
        let fromDisk = await runStage("fresh pipeline (disk)", server: server, session: fresh, stages: &stages)
        await fresh.shutdown()

        var clock = StageClock()
        let written = try writeThumbnails(fromDisk.count >= cold.count ? fromDisk : cold, into: folder)
        var output = DemoStage(name: "thumbnails + contact sheet")
        output.images = written.thumbnails
        output.bytes = written.bytes
        output.seconds = clock.lap()
        stages.append(output)
        return (stages, written.contactSheet)
    }

    /// Loads every URL once through `session`, in parallel, and records the stage.
    private func runStage(_ name: String, server: DemoServer, session: LoadingSession,
                          stages: inout [DemoStage]) async -> [LoadedImage] {
        let requestsBefore = server.requestCount
        var clock = StageClock()
        let results = await Self.loadAll(server.urls, session: session, showProgress: !quiet && !json)
        var stage = DemoStage(name: name)
        for result in results { stage.count(result) }
        for case .failure(let error) in results { Console.error("\(name): \(error)") }
        stage.seconds = clock.lap()
        stage.requests = server.requestCount - requestsBefore
        stages.append(stage)
        return results.compactMap { try? $0.get() }
    }

    /// Every URL through the session's manager, in parallel; results in the order of `urls`.
    static func loadAll(_ urls: [URL], session: LoadingSession,
                        showProgress: Bool) async -> [Result<LoadedImage, ImageError>] {
        let tracker = ProgressTracker(totalImages: urls.count, enabled: showProgress)
        var results = [Result<LoadedImage, ImageError>](
            repeating: .failure(ImageError(.cancelled, "not loaded")), count: urls.count)
        await withTaskGroup(of: (Int, Result<LoadedImage, ImageError>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    let result: Result<LoadedImage, ImageError>
                    do {
                        result = .success(try await session.load(url) { received, expected in
                            Task { await tracker.update(index, received: received, expected: expected) }
                        })
                    } catch {
                        result = .failure(Console.imageError(error))
                    }
                    await tracker.finish(index)
                    return (index, result)
                }
            }
            for await (index, result) in group { results[index] = result }
        }
        await tracker.end()
        return results
    }

    /// Writes a PNG thumbnail per image and the contact sheet of them all.
    private func writeThumbnails(_ loaded: [LoadedImage], into folder: URL) throws
        -> (thumbnails: Int, bytes: Int, contactSheet: URL) {
        let thumbnailFolder = try OutputFolder.prepare(folder.appendingPathComponent("thumbnails").path)
        let sheet = ContactSheet()
        var thumbnails: [PixelBuffer] = []
        var bytes = 0
        for item in loaded {
            let thumbnail = try sheet.thumbnail(of: item.image)
            thumbnails.append(thumbnail)
            let data = try ImageCoders.shared.encode(Image(pixels: thumbnail), as: .png)
            let name = (item.url.lastPathComponent as NSString).deletingPathExtension + ".png"
            _ = try OutputFolder.write(data, named: name, in: thumbnailFolder)
            bytes += data.count
        }
        let sheetData = try ImageCoders.shared.encode(Image(pixels: try sheet.render(thumbnails)), as: .png)
        let sheetURL = try OutputFolder.write(sheetData, named: "contact-sheet.png", in: folder)
        return (thumbnails.count, bytes + sheetData.count, sheetURL)
    }

    private func say(_ text: String) {
        if !quiet && !json { Console.line(text) }
    }
}

/// Wall-clock time between laps.
struct StageClock {
    private var start = ContinuousClock.now

    /// Seconds since the last lap (or since creation), and starts the next lap.
    mutating func lap() -> Double {
        let now = ContinuousClock.now
        let elapsed = now - start
        start = now
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
