import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The tool with every plugin coder registered, run as a process on fixtures made by other encoders.
@Suite struct FormatsCommandTests {
    /// A fixture of one of the plugin coders' test targets (they are not in this bundle).
    static func plugin(_ target: String, _ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WebImage\(target)Tests/Fixtures/\(name)").path
    }

    @Test func infoDescribesEveryFormatFromItsHeaders() async throws {
        let inputs: [(path: String, format: String, frames: Int)] = [
            (Self.plugin("HEIF", "photo.heic"), "heic", 1),
            (Self.plugin("AVIF", "sequence.avif"), "avif", 3),
            (Self.plugin("JXL", "anim.jxl"), "jxl", 3),
            (Self.plugin("SVG", "gradient.svg"), "svg", 1),
            (Self.plugin("PDF", "two-pages.pdf"), "pdf", 2),
            (Self.plugin("TIFF", "multipage.tif"), "tiff", 3),
            (Fixtures.url("bmp/im-rgb24.bmp").path, "bmp", 1),
            (Fixtures.url("ico/mixed.ico").path, "ico", 1),
        ]
        let result = try await CommandLineTool.run(["info", "--json"] + inputs.map(\.path))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.jsonLines()
        try #require(objects.count == inputs.count)
        for (object, input) in zip(objects, inputs) {
            #expect(object["format"] as? String == input.format, "\(input.path)")
            #expect(object["frames"] as? Int == input.frames, "\(input.path)")
            if ["bmp", "ico"].contains(input.format) {  // built in, so readable in this process too
                let properties = try ImageCoders.shared.properties(of: Data(contentsOf: URL(fileURLWithPath: input.path)))
                #expect(object["width"] as? Int == properties.size.width)
                #expect(object["height"] as? Int == properties.size.height)
            }
        }
    }

    /// The same HEVC-coded file is `heic` under its `heic` major brand and `heif` under the generic `mif1`.
    @Test func infoNamesAGenericMajorBrandHEIF() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let heic = Self.plugin("HEIF", "photo.heic")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: heic)))
        bytes.replaceSubrange(8..<12, with: Array("mif1".utf8))  // the ftyp box's major brand
        let heif = folder.appendingPathComponent("photo.heif")
        try Data(bytes).write(to: heif)
        let result = try await CommandLineTool.run(["info", "--json", heic, heif.path])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.jsonLines()
        #expect(objects.map { $0["format"] as? String } == ["heic", "heif"])
        #expect(objects.map { $0["width"] as? Int } == [64, 64])
    }

    @Test func pagesAreChosenAndCheckedAgainstThePageCount() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("page2.png")
        let pdf = Self.plugin("PDF", "two-pages.pdf")
        let converted = try await CommandLineTool.run(["convert", pdf, page.path, "--frame", "1"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(ImageFormat.detect(try Data(contentsOf: page)) == .png)
        let past = try await CommandLineTool.run(["convert", pdf, folder.appendingPathComponent("x.png").path, "--frame", "2"])
        #expect(past.status == 1)
        #expect(past.stderr.contains("invalidParameter"))
    }

    @Test func convertsBetweenThePluginFormats() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = folder.appendingPathComponent("photo.avif"), jxl = folder.appendingPathComponent("photo.jxl")
        let heic = Self.plugin("HEIF", "photo.heic")
        #expect(try await CommandLineTool.run(["convert", heic, avif.path, "--quality", "60"]).status == 0)
        #expect(try await CommandLineTool.run(["convert", avif.path, jxl.path]).status == 0)
        #expect(ImageFormat.detect(try Data(contentsOf: avif)) == .avif)
        #expect(ImageFormat.detect(try Data(contentsOf: jxl)) == .jxl)
        let info = try await CommandLineTool.run(["info", "--json", heic, jxl.path])
        let sizes = try info.jsonLines().map { [$0["width"] as? Int, $0["height"] as? Int] }
        #expect(sizes.count == 2 && sizes[0] == sizes[1])
        // HEIC is written too (libheif's x265 encoder).
        let written = folder.appendingPathComponent("x.heic")
        #expect(try await CommandLineTool.run(["convert", jxl.path, written.path]).status == 0)
        #expect(ImageFormat.detect(try Data(contentsOf: written)) == .heic)
    }

    /// PDF and SVG are read, not written: such an output is refused before anything is read, and the list of
    /// formats offered instead leaves them out. TIFF is written, and a transformed TIFF fetched with --out stays TIFF.
    @Test func readOnlyFormatsAreNeverPickedAsOutputs() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tiff = Self.plugin("TIFF", "cmyk16.tif")
        let written = folder.appendingPathComponent("x.tif")
        #expect(try await CommandLineTool.run(["convert", tiff, written.path]).status == 0)
        #expect(ImageFormat.detect(try Data(contentsOf: written)) == .tiff)
        for name in ["x.pdf", "x.svg"] {
            let refused = try await CommandLineTool.run(["convert", tiff, folder.appendingPathComponent(name).path])
            #expect(refused.status == 64, "\(name): \(refused.stderr)")
            let offered = refused.stderr.split(separator: "(").last.map(String.init) ?? ""
            #expect(offered.contains("png") && offered.contains("tiff") && !offered.contains("pdf") && !offered.contains("svg"),
                    "\(refused.stderr)")
        }
        try await LoadingTest.withServer { server in
            server.serve("scan", data: try Data(contentsOf: URL(fileURLWithPath: tiff)), contentType: "image/tiff")
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--cache-dir", folder.appendingPathComponent("cache").path,
                 "--out", folder.appendingPathComponent("out").path, "--resize", "16x12", server.url("/files/scan").absoluteString])
            #expect(result.status == 0, "\(result.stderr)")
            let path = try #require(try result.jsonLines().first?["path"] as? String)
            #expect(ImageFormat.detect(try Data(contentsOf: URL(fileURLWithPath: path))) == .tiff)
        }
    }

    @Test func vectorsAreDrawnAtTheThumbnailSize() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("logo.png")
        let result = try await CommandLineTool.run(["convert", Self.plugin("SVG", "gradient.svg"), output.path, "--thumbnail", "300"])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try ImageCoders.shared.decode(try Data(contentsOf: output))
        #expect(max(image.size.width, image.size.height) == 300)
    }

    @Test func fetchAsksForAndReadsTheModernFormats() async throws {
        let avif = try Data(contentsOf: URL(fileURLWithPath: Self.plugin("AVIF", "rgb8-lossless.avif")))
        let work = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await LoadingTest.withServer { server in
            server.serve("photo", data: avif, contentType: "image/avif")
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--cache-dir", work.path, server.url("/files/photo").absoluteString])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try result.jsonLines().first?["format"] as? String == "avif")
            let accept = try #require(server.log.requests.first?.header("Accept"))
            for type in ["image/avif", "image/heic", "image/jxl", "image/webp", "image/svg+xml"] {
                #expect(accept.contains(type), "\(accept)")
            }
        }
    }
}
