import Foundation
import WebImageServer

// WebImageBenchmarks SUITE ARGUMENT… — prints one JSON line per measurement for Benchmarks/run.sh.
let usage = """
    usage: WebImageBenchmarks decode|color|placeholders|deep|formats|animated|transform|incremental|throughput|thumbnail-peak|cache|encode|encode-gif DATA_FOLDER
           WebImageBenchmarks loading BASE_URL
           WebImageBenchmarks redis REDIS_URL [event-loops]
           WebImageBenchmarks fetch-cpu URL COUNT
           WebImageBenchmarks manager DATA_FOLDER BASE_URL
           WebImageBenchmarks manager-cold BASE_URL
           WebImageBenchmarks animation eager|lazy FILE [FRAMES|auto]
           WebImageBenchmarks isolation DATA_FOLDER WEBIMAGE_EXECUTABLE
           WebImageBenchmarks first-decode FILE
           WebImageBenchmarks serve-floor FILE WIDTH
           WebImageBenchmarks thumbnail DATA_FOLDER | thumbnail-peak-way FILE streamed|full
           WebImageBenchmarks cache-scale fill FOLDER COUNT | first FOLDER LABEL | trim FOLDER
    """
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)
do {
    switch arguments[1] {
    case "decode": try DecodeSuite.run(data: folder)
    case "color": try ColorSuite.run(data: folder)
    case "placeholders": try PlaceholderSuite.run(data: folder)
    case "deep": try DeepSuite.run(data: folder)
    case "formats": try FormatsSuite.run(data: folder)
    case "animated": try AnimatedSuite.run(data: folder)
    case "transform": try TransformSuite.run(data: folder)
    case "throughput": try await DecodeSuite.throughput(data: folder)
    case "thumbnail-peak": try DecodeSuite.thumbnailPeak(data: folder)
    case "incremental": try IncrementalSuite.run(data: folder)
    case "cache": try CacheSuite.run(data: folder)
    case "encode": try EncodeSuite.run(data: folder)
    case "encode-gif": try EncodeSuite.gif(data: folder)
    case "cache-scale": try CacheScaleSuite.run(Array(arguments.dropFirst(2)))
    case "manager":
        guard arguments.count == 4, let base = URL(string: arguments[3]) else { throw CocoaError(.fileReadUnknown) }
        try await ManagerSuite.run(data: folder, base: base)
    case "manager-cold":
        guard arguments.count == 3, let base = URL(string: arguments[2]) else { throw CocoaError(.fileReadUnknown) }
        try await ManagerSuite.runCold(base: base)
    case "loading": try await LoadingSuite.run(base: arguments[2])
    case "redis":
        // `event-loops`: Swift's tasks on NIO's event loops, as `webimage serve` runs them.
        let onEventLoops = arguments.count == 4 && arguments[3] == "event-loops" && ProxyServer.runTasksOnEventLoops()
        try await RedisSuite.run(url: arguments[2], tasksOnEventLoops: onEventLoops)
    case "fetch-cpu":
        guard arguments.count == 4, let url = URL(string: arguments[2]), let count = Int(arguments[3]) else {
            throw CocoaError(.fileReadUnknown)
        }
        try await FetchCostSuite.run(url: url, count: count)
    case "isolation":
        guard arguments.count == 4 else { throw CocoaError(.fileNoSuchFile) }
        try IsolationSuite.run(data: folder, helper: URL(fileURLWithPath: arguments[3]))
    case "first-decode": try FirstDecodeSuite.run(file: folder)
    case "thumbnail": try StreamingThumbnailSuite.run(data: folder)
    case "serve-floor":
        guard arguments.count == 4, let width = Int(arguments[3]) else { throw CocoaError(.fileNoSuchFile) }
        try ServeFloorSuite.run(file: folder, width: width)
    case "thumbnail-peak-way":
        guard arguments.count == 4 else { throw CocoaError(.fileNoSuchFile) }
        try StreamingThumbnailSuite.peak(file: folder, way: arguments[3])
    case "animation":
        guard arguments.count >= 4 else { throw CocoaError(.fileNoSuchFile) }
        try PlaybackSuite.run(mode: arguments[2], file: URL(fileURLWithPath: arguments[3]),
                              frames: arguments.count > 4 ? arguments[4] : nil)
    default:
        FileHandle.standardError.write(Data("unknown suite \(arguments[1])\n\(usage)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
    exit(1)
}
