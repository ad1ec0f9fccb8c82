import Foundation
import Testing
@testable import WebImage
@testable import WebImageCLI

/// `webimage demo` run as a process, and its parts.
@Suite struct DemoCommandTests {
    @Test func demoLoadsColdThenFromMemoryThenFromDiskAndWritesItsFiles() async throws {
        let work = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("demo").path
        let result = try await CommandLineTool.run(["demo", "--json", "--count", "12", "--out", out])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = try result.jsonLines()
        try #require(lines.count == 5)
        // Counts only: "seconds" may also read as a whole number.
        let stages = lines.prefix(4).map { $0.filter { $0.key != "seconds" }.compactMapValues { $0 as? Int } }
        #expect(stages[0] == ["images": 12, "bytes": stages[0]["bytes"] ?? -1, "network": 12, "memory": 0, "disk": 0,
                              "failed": 0, "requests": 12])
        #expect(stages[1]["memory"] == 12 && stages[1]["requests"] == 0 && stages[1]["network"] == 0)
        #expect(stages[2]["disk"] == 12 && stages[2]["requests"] == 0 && stages[2]["network"] == 0)
        #expect(stages[3]["images"] == 12)
        let thumbnails = try FileManager.default.contentsOfDirectory(atPath: out + "/thumbnails").sorted()
        #expect(thumbnails.count == 12 && thumbnails.first == "img-000.png" && thumbnails.last == "img-011.png")
        let sheet = try ImageCoders.shared.decode(try Data(contentsOf: URL(fileURLWithPath: out + "/contact-sheet.png")))
        #expect(sheet.size == ContactSheet().canvasSize(count: 12))
        #expect(lines[4]["contactSheet"] as? String == out + "/contact-sheet.png")
    }

    @Test func generatedImagesHaveTheAdvertisedKinds() throws {
        let images = try DemoImageSet.make(count: 10)
        #expect(Set(images.map(\.kind)) == Set(DemoImage.Kind.allCases))
        for image in images {
            let decoded = try ImageCoders.shared.decode(image.data)
            #expect(decoded.format == image.kind.format)
            #expect(decoded.isAnimated == image.kind.isAnimated, "\(image.name)")
            if image.kind.isAnimated { #expect(decoded.frames.count == 6 && decoded.loopCount == 0) }
            if image.kind.format == .jpeg {
                let marker = try image.data.withUnsafeBytes { try JPEGMarkerScanner.scan($0).frameMarker }
                #expect(marker == (image.kind == .progressiveJPEG ? 0xC2 : 0xC0))
            }
        }
        // The same index gives the same bytes: the demo serves identical files every run.
        #expect(try DemoImageSet.make(index: 3).data == images[3].data)
    }

    @Test func tableColumnsLineUp() {
        var cold = DemoStage(name: "cold (network)")
        cold.images = 100
        cold.bytes = 1_234_567
        cold.network = 100
        cold.requests = 100
        cold.seconds = 1.5
        var warm = DemoStage(name: "warm (memory)")
        warm.images = 100
        warm.memory = 100
        warm.seconds = 0.0123
        let lines = DemoReport.table([cold, warm]).split(separator: "\n").map(String.init)
        #expect(lines == [
            "stage           images   bytes  network  memory  disk  failed  requests     time",
            "--------------------------------------------------------------------------------",
            "cold (network)     100  1.2 MB      100       0     0       0       100  1.500 s",
            "warm (memory)      100     0 B        0     100     0       0         0  0.012 s",
        ])
    }
}
