import Foundation
import Testing

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

    @Test func usageErrorsAreOneLineAndNonZero() async throws {
        let result = try await CommandLineTool.run(["convert", "in.jpg", "out.xyz"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("names no format"))
        #expect(try await CommandLineTool.run(["info", "--bogus"]).status != 0)
    }
}
