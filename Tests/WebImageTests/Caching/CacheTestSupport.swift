import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let time: Locked<Double>

    init(_ start: Double = 1_000_000) { time = Locked(start) }

    var now: Double { time.withLock { $0 } }
    var cacheClock: CacheClock { CacheClock { self.now } }
    func advance(by seconds: Double) { time.withLock { $0 += seconds } }
}

/// A fresh folder under the system's temporary folder, deleted by `remove()`.
struct TemporaryFolder {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = TestScratch.root
            .appendingPathComponent("webimage-cache-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// The names in the folder (or a subfolder), sorted, without the disk cache's totals file (its own
    /// bookkeeping, present in every folder it has written to; see `DiskTotalsFile`).
    func names(in subpath: String? = nil) -> [String] {
        let folder = subpath.map { url.appendingPathComponent($0).path } ?? path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0 != DiskTotalsFile.name }.sorted()
    }
}

/// A tiny image format for tests, so caching is tested without the real codecs:
/// "TRAW", one byte naming the format it stands in for, width and height (UInt32 little-endian), a frame
/// count byte, then the RGBA bytes of every frame. Counts its decodes and encodes.
final class TestRawCoder: ImageCoder {
    static let magic = Array("TRAW".utf8)
    private let counters = Locked((decodes: 0, encodes: 0))

    var decodeCount: Int { counters.withLock { $0.decodes } }
    var encodeCount: Int { counters.withLock { $0.encodes } }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        counters.withLock { $0.decodes += 1 }
        let bytes = [UInt8](data)
        guard bytes.count >= 14, bytes.starts(with: Self.magic) else { throw ImageError(.badImageData, "not TRAW") }
        func word(_ offset: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) } }
        let width = word(5), height = word(9), frameCount = Int(bytes[13])
        let frameBytes = width * height * 4
        guard frameCount > 0, bytes.count == 14 + frameCount * frameBytes else {
            throw ImageError(.badImageData, "wrong TRAW length")
        }
        let frames = try (0..<frameCount).map { index in
            let start = 14 + index * frameBytes
            return ImageFrame(pixels: try PixelBuffer(width: width, height: height,
                                                      rgba: Array(bytes[start..<start + frameBytes])), duration: 0.1)
        }
        let format = ImageFormat.allCases[Int(bytes[4]) % ImageFormat.allCases.count]
        var image = Image(frames: frames, loopCount: 0, format: format, scale: options.resolvedScale)
        if frames[0].pixels.containsTransparency { image.flags.insert(.hasAlpha) }
        return image
    }

    func canEncode(to format: ImageFormat) -> Bool { [.jpeg, .png, .gif].contains(format) }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        counters.withLock { $0.encodes += 1 }
        return Self.encode(image.frames.map(\.pixels), as: format)
    }

    static func encode(_ frames: [PixelBuffer], as format: ImageFormat) -> Data {
        var bytes = magic
        bytes.append(UInt8(ImageFormat.allCases.firstIndex(of: format) ?? 0))
        for value in [frames[0].width, frames[0].height] {
            bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        bytes.append(UInt8(frames.count))
        for frame in frames { bytes += frame.bytes }
        return Data(bytes)
    }

    /// The format byte of encoded TRAW data.
    static func format(of data: Data) -> ImageFormat? {
        guard data.count > 4, data.starts(with: magic) else { return nil }
        return ImageFormat.allCases[Int(data[data.startIndex + 4]) % ImageFormat.allCases.count]
    }
}

/// Test images.
enum TestImages {
    /// A `width`×`height` image of one colour.
    static func solid(_ color: RGBA, width: Int = 2, height: Int = 2) throws -> Image {
        Image(pixels: try PixelBuffer(width: width, height: height, filledWith: color))
    }

    /// Encoded TRAW bytes of a solid image.
    static func solidData(_ color: RGBA, width: Int = 2, height: Int = 2) throws -> Data {
        TestRawCoder.encode([try PixelBuffer(width: width, height: height, filledWith: color)], as: .png)
    }

    /// Coders holding only a ``TestRawCoder`` (registered as a plugin would be).
    static func coders() -> (ImageCoders, TestRawCoder) {
        let coder = TestRawCoder()
        let coders = ImageCoders()
        coders.add(coder)
        return (coders, coder)
    }
}

/// Runs the `webimage` executable built beside the tests.
enum WebImageTool {
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static var executable: URL { CommandLineTool.executable }

    /// Starts `webimage arguments…` (in `environment`, else the tests' own) with its standard output in a pipe,
    /// ``SpawnedProcess/outputPipe``.
    static func start(_ arguments: [String], environment: [String: String]? = nil) throws -> SpawnedProcess {
        try #require(FileManager.default.isExecutableFile(atPath: executable.path),
                     "build the tool first: swift build --build-tests")
        return try SpawnedProcess(executable.path, arguments, environment: environment ?? CommandLineTool.environment,
                                  output: .pipe)
    }

    /// Runs `webimage arguments…` to completion.
    static func run(_ arguments: [String]) async throws -> Output {
        let result = try await CommandLineTool.run(arguments)
        return Output(status: result.status, standardOutput: result.stdout, standardError: result.stderr)
    }

    /// Reads lines from `handle` until `count` have arrived or the stream ends (on a Dispatch thread).
    static func readLines(from handle: FileHandle, count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var buffer = Data()
                var lines: [String] = []
                while lines.count < count {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    buffer += chunk
                    // A chunk may hold more lines than asked for: take only those, the caller counts on it.
                    while lines.count < count, let newline = buffer.firstIndex(of: 10) {
                        lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                        buffer = Data(buffer[(newline + 1)...])
                    }
                }
                continuation.resume(returning: lines)
            }
        }
    }

    /// The bytes `webimage cache _write` stores for `key` (the same function as the tool's).
    static func payload(forKey key: String, size: Int) -> Data {
        let seed = key.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        var data = Data(count: (size + 7) / 8 * 8)
        data.withUnsafeMutableBytes { raw in
            for index in 0..<raw.count / 8 {
                raw.storeBytes(of: (seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15).littleEndian,
                               toByteOffset: index * 8, as: UInt64.self)
            }
        }
        return Data(data.prefix(size))
    }
}
