import Foundation
import Testing
import WebImageServer

/// imgproxy's rules for a plain source URL's `@` and for the file name an answer is given.
@Suite struct ImgproxySourceURLTests {
    /// `…/a.jpg@png@webp` names two formats: imgproxy answers 404 (`Invalid URL`) and fetches nothing. An `@` in
    /// the source itself is written `%40`.
    @Test func twoFormatsAfterAnAtAreRefusedBeforeAnyFetch() async throws {
        try await ProxyHarness.with { harness in
            for ext in ["png@webp", "@webp"] {
                let answer = await harness.get(harness.plainPath(["w:10"], "photo.jpg", ext: ext))
                #expect(answer.status == 404)
            }
            #expect(harness.origin.log.requests.isEmpty)
            let one = await harness.get(harness.plainPath(["w:10"], "photo.jpg", ext: "png"))
            #expect(one.status == 200 && one.header("Content-Type") == "image/png")
        }
    }

    /// A source URL whose path ends in `/` has no last segment: its answer is named `image`, as imgproxy names it
    /// (the origin here serves `/files/photo.jpg/` as `/files/photo.jpg`, which is named `photo`).
    @Test func aSourceWithoutAFileNameIsNamedImage() async throws {
        try await ProxyHarness.with { harness in
            let unnamed = await harness.get(harness.plainPath(["w:10"], "photo.jpg/"))
            #expect(unnamed.status == 200)
            #expect(unnamed.header("Content-Disposition") == "inline; filename=\"image.jpg\"")
            let named = await harness.get(harness.plainPath(["w:10"], "photo.jpg", ext: "png"))
            #expect(named.header("Content-Disposition") == "inline; filename=\"photo.png\"")
        }
    }
}
