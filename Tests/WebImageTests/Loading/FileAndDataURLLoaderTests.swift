import Foundation
import Testing
@testable import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `file:` and `data:` URLs: success, every failure's code, limits.
@Suite("File and data: loaders")
struct FileAndDataURLLoaderTests {
    let image = LoadingTest.bytes(3_000, seed: 2)

    private func temporaryFolder() throws -> URL {
        let folder = TestScratch.root.appendingPathComponent("loading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func load(_ loader: some ImageLoader, _ url: URL, maximumBodySize: Int = 1 << 20,
                      progress: ImageLoadProgressHandler? = nil) async throws -> ImageLoadResponse {
        try await loader.load(ImageLoadRequest(url: url, maximumBodySize: maximumBodySize), progress: progress)
    }

    @Test func readsAFileInChunksWithProgress() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.png")
        let bigger = LoadingTest.bytes(10_000, seed: 4)
        try bigger.write(to: file)
        let reports = Recorder<Int64>()
        let response = try await load(FileImageLoader(chunkSize: 4096), file) { reports.append($0.receivedBytes) }
        #expect(response.data == bigger)
        #expect(response.metadata.statusCode == 200)
        #expect(response.metadata.mimeType == "image/png")
        #expect(reports.all == [4096, 8192, 10_000])
    }

    @Test func fileFailuresAreTyped() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let loader = FileImageLoader()

        let missing = await LoadingTest.failure { try await load(loader, folder.appendingPathComponent("none.png")) }
        #expect(missing?.code == .io)
        #expect(missing?.message.contains("no such file") == true)

        let directory = await LoadingTest.failure { try await load(loader, folder) }
        #expect(directory?.code == .io)
        #expect(directory?.message.contains("directory") == true)

        let fifo = folder.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let special = await LoadingTest.failure { try await load(loader, fifo) }
        #expect(special?.code == .io)
        #expect(special?.message.contains("not a regular file") == true)

        let empty = folder.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        #expect(await LoadingTest.failure { try await load(loader, empty) }?.code == .badImageData)

        let big = folder.appendingPathComponent("big.png")
        try image.write(to: big)
        let tooLarge = await LoadingTest.failure { try await load(loader, big, maximumBodySize: 100) }
        #expect(tooLarge?.code == .responseTooLarge)
    }

    @Test func unreadableFileIsAnIOError() async throws {
        // Root reads files whatever their mode, so this case only means something for other users.
        guard geteuid() != 0 else { return }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("locked.png")
        try image.write(to: file)
        #expect(chmod(file.path, 0) == 0)
        let error = await LoadingTest.failure { try await load(FileImageLoader(), file) }
        #expect(error?.code == .io)
    }

    @Test func dataURLsDecodeBase64AndPercentEncoding() async throws {
        let loader = DataURLImageLoader()
        let base64 = try #require(URL(string: "data:image/png;base64," + image.base64EncodedString()))
        let decoded = try await load(loader, base64)
        #expect(decoded.data == image)
        #expect(decoded.metadata.mimeType == "image/png")

        let unpadded = try #require(URL(string: "data:;base64,AAEC"))
        #expect(try await load(loader, unpadded).data == Data([0, 1, 2]))
        let escapedBase64 = try #require(URL(string: "data:image/gif;base64,AP%2B%2F"))
        #expect(try await load(loader, escapedBase64).data == Data([0x00, 0xFF, 0xBF]))

        let percent = try #require(URL(string: "data:image/x-test,%89PNG%00%FFok"))
        let raw = try await load(loader, percent)
        #expect(raw.data == Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0x6F, 0x6B]))
        #expect(raw.metadata.mimeType == "image/x-test")

        let plain = try #require(URL(string: "data:,hello"))
        #expect(try await load(loader, plain).metadata.mimeType == "text/plain")
    }

    @Test func badDataURLsAreTyped() async throws {
        let loader = DataURLImageLoader()
        let cases: [(String, ImageError.Code)] = [
            ("data:image/png;base64", .invalidURL),
            ("data:image/png;base64,!!!!", .badImageData),
            ("data:image/png,", .badImageData),
            ("data:image/png;base64," + Data(count: 2_000).base64EncodedString(), .responseTooLarge),
            ("data:image/png," + String(repeating: "a", count: 2_000), .responseTooLarge),
        ]
        for (string, code) in cases {
            let url = try #require(URL(string: string))
            let error = await LoadingTest.failure { try await load(loader, url, maximumBodySize: 1_000) }
            #expect(error?.code == code, "\(string.prefix(40))")
        }
    }

    @Test func dataURLSizeLimitHoldsAtTheDecodedSize() async throws {
        let loader = DataURLImageLoader()
        let exact = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0) })
        func url(_ string: String) throws -> URL { try #require(URL(string: string)) }
        let base64 = try url("data:image/png;base64," + exact.base64EncodedString())
        #expect(try await load(loader, base64, maximumBodySize: 1_000).data == exact)
        let over = await LoadingTest.failure { try await load(loader, base64, maximumBodySize: 999) }
        #expect(over?.code == .responseTooLarge)
        // Percent-encoded: 3 000 characters that decode to 1 000 bytes fit a 1 000-byte limit.
        let escaped = try url("data:image/png," + String(repeating: "%41", count: 1_000))
        #expect(try await load(loader, escaped, maximumBodySize: 1_000).data == Data(repeating: 0x41, count: 1_000))
        let escapedOver = await LoadingTest.failure { try await load(loader, escaped, maximumBodySize: 999) }
        #expect(escapedOver?.code == .responseTooLarge)
        // A payload far over the limit is refused from its length, before anything is decoded.
        let huge = "data:;base64," + String(repeating: "!", count: 4_000_000)
        #expect(throws: ImageError(.responseTooLarge, "the data: URL holds about 3000000 bytes, over 1000")) {
            try DataURLImageLoader.decode(huge, maximumSize: 1_000)
        }
    }

    @Test func brokenPercentEscapesAreRefused() throws {
        // Foundation's URL(string:) re-escapes a stray "%", so the decoder is checked on strings directly.
        #expect(PercentDecoding.bytes(of: "a%G1") == nil)
        #expect(PercentDecoding.bytes(of: "a%4") == nil)
        #expect(PercentDecoding.bytes(of: "%41%62c%ff") == Data([0x41, 0x62, 0x63, 0xFF]))
        #expect(throws: ImageError.self) { try DataURLImageLoader.decode("data:,%zz", maximumSize: 100) }
    }

    @Test func loadersRefuseOtherSchemes() throws {
        let http = try #require(URL(string: "http://127.0.0.1/a.png"))
        let data = try #require(URL(string: "data:,x"))
        let file = URL(fileURLWithPath: "/tmp/a.png")
        #expect(!FileImageLoader().canLoad(http))
        #expect(!FileImageLoader().canLoad(data))
        #expect(FileImageLoader().canLoad(file))
        #expect(DataURLImageLoader().canLoad(data))
        #expect(!DataURLImageLoader().canLoad(file))
    }

    @Test func headerFieldsCompareCaseInsensitively() {
        var headers: HTTPHeaderFields = ["Accept": "a", "X-One": "1"]
        headers.add("x-one", "2")
        #expect(headers.values(for: "X-ONE") == ["1", "2"])
        headers["X-One"] = "3"
        #expect(headers.values(for: "x-one") == ["3"])
        #expect(headers.fields.map(\.name) == ["Accept", "X-One"])
        headers["accept"] = nil
        #expect(!headers.contains("Accept"))
        let left: HTTPHeaderFields = ["A": "1", "b": "2"]
        let right: HTTPHeaderFields = ["B": "2", "a": "1"]
        let other: HTTPHeaderFields = ["A": "2", "b": "2"]
        #expect(left == right)
        #expect(left != other)
    }
}
