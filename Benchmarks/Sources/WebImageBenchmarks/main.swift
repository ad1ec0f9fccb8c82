import Foundation

// webimage-bench SUITE DATA_FOLDER — prints one JSON line per measurement for Benchmarks/run.sh.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data(("usage: webimage-bench decode|animated|transform|incremental|throughput|"
        + "thumbnail-peak DATA_FOLDER, or webimage-bench manager DATA_FOLDER BASE_URL\n").utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)
do {
    switch arguments[1] {
    case "decode": try DecodeSuite.run(data: folder)
    case "animated": try AnimatedSuite.run(data: folder)
    case "transform": try TransformSuite.run(data: folder)
    case "throughput": try await DecodeSuite.throughput(data: folder)
    case "thumbnail-peak": try DecodeSuite.thumbnailPeak(data: folder)
    case "incremental": try IncrementalSuite.run(data: folder)
    case "manager":
        guard arguments.count == 4, let base = URL(string: arguments[3]) else { throw CocoaError(.fileReadUnknown) }
        try await ManagerSuite.run(data: folder, base: base)
    default:
        FileHandle.standardError.write(Data("unknown suite \(arguments[1])\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
    exit(1)
}
