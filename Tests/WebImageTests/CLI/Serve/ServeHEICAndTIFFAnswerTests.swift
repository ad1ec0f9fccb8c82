import Foundation
import Testing
import TestImageServer
import WebImage

/// `f:heic` and `f:tiff` (or `@heic`, `@tiff`) answered by `webimage serve` as imgproxy answers them: a HEIC file
/// as `image/heif` and a TIFF file as `image/tiff`, named with the format's extension.
@Suite struct ServeHEICAndTIFFAnswerTests {
    @Test func heicAndTIFFAnswersCarryImgproxysTypes() async throws {
        let origin = try await TestImageServer.start()
        let pixels = try PixelBuffer(width: 80, height: 60, filledWith: RGBA(10, 200, 30))
        origin.serve("a.png", data: try ImageCoders.shared.encode(Image(pixels: pixels), as: .png),
                     contentType: "image/png")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(["--bind", "127.0.0.1:0", "--insecure", "--allow-loopback-sources",
                                                   "--cache-dir", folder.path])
        let source = origin.url("/files/a.png").absoluteString
        func header(_ answer: (status: Int, headers: [(String, String)], body: Data), _ name: String) -> String? {
            answer.headers.first { $0.0.lowercased() == name }?.1
        }
        let heic = try await server.get("/_/w:40/plain/" + source + "@heic")
        #expect(heic.status == 200 && header(heic, "content-type") == "image/heif")
        #expect(header(heic, "content-disposition") == "inline; filename=\"a.heic\"")
        #expect(String(decoding: heic.body.dropFirst(4).prefix(8), as: UTF8.self) == "ftypheic")
        let tiff = try await server.get("/_/w:40/f:tiff/plain/" + source)
        #expect(tiff.status == 200 && header(tiff, "content-type") == "image/tiff")
        #expect([Data("II*\0".utf8), Data("MM\0*".utf8)].contains(tiff.body.prefix(4)))
        #expect(await server.terminate() == 0)
        await origin.shutdown()
    }
}
