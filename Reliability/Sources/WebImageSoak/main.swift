import Foundation
import TestImageServer
import WebImage

// webimage-soak [LOADS] [CONCURRENCY] — loads through ImageManager against a loopback server that answers 5% of
// requests with a fault (reset, truncation, stall, 5xx, garbage), with a 32 MB memory cache. Checks that every
// load ends with the right image or a typed error, that memory is flat over the second half, that no file
// descriptor or task is left, and that everything in the disk cache afterwards decodes to the right pixels.
// Prints a JSON summary; exits 1 when a check fails.

let arguments = CommandLine.arguments
let loads = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 64 : 64
let distinctImages = 600

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("webimage-soak: \(message)\n".utf8))
    exit(1)
}

let server = try await TestImageServer.start()
for index in 0..<distinctImages { server.serve("img\(index).png", data: try SoakImages.png(index), contentType: "image/png") }
server.serve("garbage.png", data: Data(repeating: 0x5A, count: 5000), contentType: "image/png")

/// Load `n`'s URL: every 20th is a fault, cycling through the kinds.
func target(_ n: Int) -> (url: URL, index: Int?) {
    let index = (n * 7919) % distinctImages
    guard n % 20 == 19 else { return (server.url("/files/img\(index).png"), index) }
    switch (n / 20) % 5 {
    case 0: return (server.url("/reset/img\(index).png?after=100&n=\(n)"), nil)
    case 1: return (server.url("/short/img\(index).png?n=\(n)"), nil)
    case 2: return (server.url("/stall/img\(index).png?after=50&n=\(n)"), nil)
    case 3: return (server.url("/status/503?n=\(n)"), nil)
    default: return (server.url("/files/garbage.png?n=\(n)"), nil)
    }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-soak-\(UUID())")
defer { try? FileManager.default.removeItem(at: folder) }
var downloaderConfiguration = ImageDownloaderConfiguration()
downloaderConfiguration.timeout = .seconds(2)
downloaderConfiguration.readTimeout = .seconds(2)
downloaderConfiguration.maxConcurrentDownloads = 16
let descriptorsBefore = ProcessProbe.openFileDescriptors()
let downloader = ImageDownloader(configuration: downloaderConfiguration)
let cache = ImageCache(folder: folder, memoryLimits: .init(costLimit: 32 * 1024 * 1024))
let manager = ImageManager(cache: cache, loader: downloader)

var outcomes: [String: Int] = [:]
var wrong = 0
var memorySamples: [Int] = []
let started = ContinuousClock.now
/// What one load ended with: "ok", an error code, or "wrong" (a wrong image, or a clean URL that failed).
await withTaskGroup(of: String.self) { group in
    var next = 0
    func add() {
        guard next < loads else { return }
        let n = next
        next += 1
        group.addTask {
            let (url, index) = target(n)
            do {
                let result = try await manager.loadImage(from: url, options: [.retryFailed])
                guard let index, SoakImages.matches(result.image, index: index) else { return "wrong" }
                return "ok"
            } catch let error as ImageError {
                return index == nil ? error.code.rawValue : "wrong"  // a clean URL must never fail
            } catch {
                return "wrong"  // not a typed error
            }
        }
    }
    for _ in 0..<concurrency { add() }
    var finished = 0
    while let outcome = await group.next() {
        if outcome == "wrong" { wrong += 1 } else { outcomes[outcome, default: 0] += 1 }
        finished += 1
        if finished % 250 == 0 { memorySamples.append(ProcessProbe.residentBytes()) }
        add()
    }
}
let elapsed = started.duration(to: .now)
while manager.isRunning { try await Task.sleep(for: .milliseconds(10)) }
try await downloader.shutdown()
await server.shutdown()
let descriptorsAfter = ProcessProbe.openFileDescriptors()

// Everything cached must be a right image.
var cachedEntries = 0, corrupt = 0
let reader = ImageManager(cache: ImageCache(folder: folder), loader: ImageLoaders())
for index in 0..<distinctImages {
    let url = URL(string: "http://\(server.host):\(server.port)/files/img\(index).png")!
    guard let result = try? await reader.loadImage(from: url, options: [.fromCacheOnly]) else { continue }
    cachedEntries += 1
    if !SoakImages.matches(result.image, index: index) { corrupt += 1 }
}
let usage = await ImageCache(folder: folder).diskUsage()

let half = memorySamples.count / 2
let secondHalf = Array(memorySamples[half...])
let quarter = max(1, secondHalf.count / 4)
let early = secondHalf.prefix(quarter).reduce(0, +) / quarter
let late = secondHalf.suffix(quarter).reduce(0, +) / quarter
let growth = early > 0 ? Double(late - early) / Double(early) : 0
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

var summary: [String: Any] = [
    "loads": loads, "concurrency": concurrency, "seconds": (seconds * 10).rounded() / 10,
    "outcomes": outcomes, "wrongResults": wrong,
    "rssEarlySecondHalfMB": early / 1_048_576, "rssLateSecondHalfMB": late / 1_048_576,
    "rssGrowthSecondHalf": (growth * 1000).rounded() / 1000,
    "fdsBefore": descriptorsBefore, "fdsAfter": descriptorsAfter,
    "cachedImages": cachedEntries, "diskEntries": usage.entries, "corruptCached": corrupt,
]
summary["managerIdle"] = !manager.isRunning
let json = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))

if wrong > 0 { fail("\(wrong) loads gave a wrong image or failed on a clean URL") }
if corrupt > 0 || usage.entries != cachedEntries { fail("the cache holds \(corrupt) corrupt and \(usage.entries - cachedEntries) unexpected entries") }
if descriptorsAfter > descriptorsBefore { fail("file descriptors: \(descriptorsBefore) before, \(descriptorsAfter) after") }
if growth > 0.10 { fail("resident memory grew \(Int(growth * 100))% over the second half") }
