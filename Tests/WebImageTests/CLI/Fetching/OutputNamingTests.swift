import Foundation
import Testing
@testable import WebImageCLI

@Suite struct OutputNamingTests {
    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func lastPathComponentThenNumberedRepeats() throws {
        var naming = OutputNaming()
        #expect(naming.name(for: try url("https://example.com/a/photo.jpg")) == "photo.jpg")
        #expect(naming.name(for: try url("https://other.example/b/photo.jpg?size=2")) == "photo-2.jpg")
        #expect(naming.name(for: try url("https://example.com/a/photo.jpg")) == "photo-3.jpg")
        #expect(naming.name(for: try url("https://example.com/photo")) == "photo")
        #expect(naming.name(for: try url("https://example.com/x/photo")) == "photo-2")
    }

    @Test func aNumberedNameAlreadyTakenIsSkipped() throws {
        var naming = OutputNaming()
        #expect(naming.name(for: try url("https://h/b-2.png")) == "b-2.png")
        #expect(naming.name(for: try url("https://h/b.png")) == "b.png")
        #expect(naming.name(for: try url("https://h/c/b.png")) == "b-3.png")
    }

    @Test func urlsWithoutAPathComponentGetTheirHash() throws {
        var naming = OutputNaming()
        let root = try url("https://example.com/")
        let hash = OutputNaming.shortHash("https://example.com/")
        #expect(naming.name(for: root, hashExtension: "png") == hash + ".png")
        #expect(naming.name(for: root, hashExtension: "png") == hash + "-2.png")
        #expect(naming.name(for: try url("https://example.com"), hashExtension: nil)
                == OutputNaming.shortHash("https://example.com"))
        let data = try url("data:image/png;base64,iVBORw0KGgo=")
        #expect(naming.name(for: data, hashExtension: "png") == OutputNaming.shortHash(data.absoluteString) + ".png")
    }

    @Test func shortHashIsSixteenHexDigitsOfFNV1a() {
        // FNV-1a 64 of "" is the offset basis; of "a", the published test vector.
        #expect(OutputNaming.shortHash("") == "cbf29ce484222325")
        #expect(OutputNaming.shortHash("a") == "af63dc4c8601ec8c")
    }

    @Test func componentsThatAreNoFileNameAreMadeSafe() throws {
        #expect(OutputNaming.baseName(for: try url("https://h/a%2Fb.jpg"), hashExtension: nil) == "a_b.jpg")
        #expect(OutputNaming.baseName(for: try url("https://h/dir/"), hashExtension: nil) == "dir")
        #expect(OutputNaming.baseName(for: try url("https://h/%2E%2E"), hashExtension: "gif")
                == OutputNaming.shortHash("https://h/%2E%2E") + ".gif")
    }

    @Test(arguments: [("a.jpg", "a-2.jpg"), ("archive.tar.gz", "archive.tar-2.gz"), ("noext", "noext-2"),
                      (".hidden", ".hidden-2")])
    func numberGoesBeforeTheExtension(name: String, numbered: String) {
        #expect(OutputNaming.numbered(name, 2) == numbered)
    }

    @Test func urlListsSkipBlanksAndComments() {
        let text = "  https://h/a.png  \n\n# a comment\r\nhttps://h/b.png\n   \n#https://h/c.png\n"
        #expect(URLListReader.parse(text) == ["https://h/a.png", "https://h/b.png"])
    }

    @Test func textWithoutASchemeIsNoURL() {
        #expect(throws: (any Error).self) { try URLListReader.url("example.com/a.png") }
        #expect(throws: (any Error).self) { try URLListReader.url("") }
        #expect((try? URLListReader.url("https://h/a.png"))?.host == "h")
    }
}
