import Foundation
import WebImage

/// Decoding through our coders beside the C libraries called directly (issue 2's targets).
enum DecodeSuite {
    static func run(data folder: URL) throws {
        func load(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        var scratch: [UInt8] = []
        let cases: [(name: String, file: String, direct: (Data, inout [UInt8]) -> Void)] = [
            ("12 MP JPEG", "photo-12mp.jpg", { DirectDecoders.turboJPEG($0, into: &$1) }),
            ("12 MP progressive JPEG", "photo-12mp-progressive.jpg", { DirectDecoders.turboJPEG($0, into: &$1) }),
            ("800x600 JPEG", "photo-800x600.jpg", { DirectDecoders.turboJPEG($0, into: &$1) }),
            ("1080p RGBA PNG", "rgba-1080p.png", { DirectDecoders.spng($0, into: &$1) }),
            ("1080p screenshot PNG", "ui-1080p.png", { DirectDecoders.spng($0, into: &$1) }),
            ("1080p lossy WebP", "photo-1080p.webp", { DirectDecoders.webp($0, into: &$1) }),
        ]
        for item in cases {
            let data = try load(item.file)
            let direct = Timing.median { item.direct(data, &scratch) }
            Measurement(suite: "decode", name: item.name, implementation: "C library", value: direct, unit: "ms").emit()
            // Each decoded image is released at once, as a server handling one request after another does.
            let ours = try Timing.median { _ = try ImageCoders.shared.decode(data) }
            Measurement(suite: "decode", name: item.name, implementation: "swift-web-image", value: ours, unit: "ms").emit()
        }

        let photo = try load("photo-12mp.jpg")
        let eighth = Timing.median { DirectDecoders.turboJPEG(photo, into: &scratch, denominator: 8) }
        Measurement(suite: "decode", name: "12 MP JPEG to 256 px", implementation: "C library (1/8 scale only)",
                    value: eighth, unit: "ms").emit()
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let thumbnail = try Timing.median { _ = try ImageCoders.shared.decode(photo, options: options) }
        Measurement(suite: "decode", name: "12 MP JPEG to 256 px", implementation: "swift-web-image",
                    value: thumbnail, unit: "ms").emit()
    }

    /// Images per second decoding the 800×600 JPEG on one task, then on one task per core.
    static func throughput(data folder: URL) async throws {
        let data = try Data(contentsOf: folder.appendingPathComponent("photo-800x600.jpg"))
        let count = 800
        func rate(workers: Int) async throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        for _ in 0..<(count / workers) { _ = try ImageCoders.shared.decode(data) }
                    }
                }
                try await group.waitForAll()
            }
            return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        _ = try await rate(workers: 1)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let one = try await rate(workers: 1), all = try await rate(workers: cores)
        Measurement(suite: "throughput", name: "800x600 JPEG decodes", implementation: "1 task",
                    value: one, unit: "images/s").emit()
        Measurement(suite: "throughput", name: "800x600 JPEG decodes", implementation: "\(cores) tasks",
                    value: all, unit: "images/s").emit()
    }

    /// Peak memory added by one 12 MP → 256 px thumbnail decode, in a process that did nothing else.
    static func thumbnailPeak(data folder: URL) throws {
        let photo = try Data(contentsOf: folder.appendingPathComponent("photo-12mp.jpg"))
        let before = peakResidentBytes()
        let image = try ImageCoders.shared.decode(photo, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
        let grown = peakResidentBytes() - before
        Measurement(suite: "memory", name: "12 MP JPEG to 256 px (\(image.size))", implementation: "swift-web-image",
                    value: Double(grown) / 1_048_576, unit: "MB above the loaded file").emit()
        Measurement(suite: "memory", name: "12 MP JPEG to 256 px (\(image.size))", implementation: "input file size",
                    value: Double(photo.count) / 1_048_576, unit: "MB").emit()
    }
}
