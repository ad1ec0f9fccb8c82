import Foundation
import Testing
@testable import WebImage

@Suite struct InfoCommandTests {
    @Test func unreadableInputsGiveJSONErrorsAndAFailingStatus() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.txt")
        try Data("not an image".utf8).write(to: text)
        let empty = folder.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        let pdf = folder.appendingPathComponent("doc.pdf")
        try Data("%PDF-1.4\n".utf8).write(to: pdf)

        let result = try await CommandLineTool.run(["info", "--json", text.path, empty.path, pdf.path, "/no/such/file.jpg"])
        #expect(result.status == 1)
        let objects = try result.jsonLines()
        #expect(objects.count == 4)
        let codes = objects.map { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == ["badImageData", "badImageData", "badImageData", "io"])
        #expect(objects.map { $0["source"] as? String } == [text.path, empty.path, pdf.path, "/no/such/file.jpg"])
        // A file of a recognised format that cannot be read still says what it is.
        #expect(objects.map { Set($0.keys) } == [["source", "error"], ["source", "error"],
                                                 ["source", "format", "error"], ["source", "error"]])
        #expect(objects[2]["format"] as? String == "pdf")
        #expect(result.errorLines.count == 4)
    }

    @Test func urlsOtherThanFilesAreRefusedWithoutReading() async throws {
        let result = try await CommandLineTool.run(["info", "--json", "ftp://example.invalid/a.png"])
        #expect(result.status == 1)
        let object = try #require(try result.jsonLines().first)
        #expect((object["error"] as? [String: Any])?["code"] as? String == "invalidURL")
    }

    @Test func placeholdersHashesAndColoursAreAddedWhenAskedFor() async throws {
        let references = try PlaceholderReferences.load()
        let photo = Fixtures.url("placeholders/photo.png").path, alpha = Fixtures.url("placeholders/alpha.png").path
        let result = try await CommandLineTool.run(["info", "--json", "--blurhash", "4:3", "--thumbhash", "--average",
                                                    "--phash", "--palette", "8", "--dominant-colors", photo, alpha])
        #expect(result.status == 0)
        let objects = try result.jsonLines()
        #expect(objects.count == 2)
        for (object, name) in zip(objects, ["photo", "alpha"]) {
            #expect(object["blurHash"] as? String == references.blurhash[name]?["4x3"])
            let encoded = try #require(object["thumbHash"] as? String)
            let reference = try #require(references.thumbhash[name])
            #expect(Data(base64Encoded: encoded).map(Array.init) == PlaceholderReferences.bytes(hex: reference.hash))
            let average = try #require(try PlaceholderReferences.pixels("\(name).png").averageColor())
            #expect(object["averageColor"] as? String == average.hexString)
            let phashText = try #require(object["perceptualHash"] as? String)
            let referenceText = try #require(references.phash[name])
            let phash = try #require(UInt64(phashText, radix: 16))
            let referenceHash = try #require(UInt64(referenceText, radix: 16))
            #expect(PerceptualHash.distance(phash, referenceHash) <= 4)
            let palette = try #require(object["palette"] as? [String])
            #expect(palette == (try PlaceholderReferences.pixels("\(name).png").palette(maxColors: 8).map(\.hexString)))
            let dominant = try DominantColors(of: try PlaceholderReferences.pixels("\(name).png"))
            let roles = try #require(object["dominantColors"] as? [String: Any])
            #expect(roles.count == 6)
            #expect(roles["vibrant"] as? String == dominant.vibrant?.hexString)
            #expect(roles["darkMuted"] as? String == dominant.darkMuted?.hexString)
            #expect(object["width"] as? Int != nil)
        }
        // Without the flags, nothing is decoded and the fields are absent.
        let plain = try #require(try await CommandLineTool.run(["info", "--json", photo]).jsonLines().first)
        #expect(plain["blurHash"] == nil && plain["thumbHash"] == nil && plain["averageColor"] == nil)
        let text = try await CommandLineTool.run(["info", "--blurhash", "1:1", photo])
        let oneComponent = try #require(references.blurhash["photo"]?["1x1"])
        #expect(text.stdout.contains(", blurHash \(oneComponent), "))
        for bad in ["0:3", "10:1", "4", "4:x"] {
            #expect(try await CommandLineTool.run(["info", "--blurhash", bad, photo]).status != 0)
        }
        for bad in ["1", "257", "x"] {
            #expect(try await CommandLineTool.run(["info", "--palette", bad, photo]).status != 0)
        }
    }

    @Test func checksumsOfTheFilesBytesAreAddedByName() async throws {
        let photo = Fixtures.url("placeholders/photo.png")
        let result = try await CommandLineTool.run(["info", "--json", "--hashsums", "sha256,MD5,sha256", photo.path])
        #expect(result.status == 0)
        let object = try #require(try result.jsonLines().first)
        let sums = try #require(object["hashsums"] as? [String: String])
        let bytes = try Data(contentsOf: photo)
        #expect(sums == ["sha256": HashSum.sha256.hex(of: bytes), "md5": HashSum.md5.hex(of: bytes)])
        #expect(result.stdout.contains(#""hashsums":{"sha256":"#))
        #expect(try await CommandLineTool.run(["info", "--hashsums", "crc32", photo.path]).status != 0)
    }

    @Test func usageErrorsAreOneLineAndNonZero() async throws {
        let result = try await CommandLineTool.run(["convert", "in.jpg", "out.xyz"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("names no format"))
        #expect(try await CommandLineTool.run(["info", "--bogus"]).status != 0)
    }
}
