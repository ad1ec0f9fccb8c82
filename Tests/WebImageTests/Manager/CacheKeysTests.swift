import Foundation
import Testing
@testable import WebImage

@Suite("Cache keys")
struct CacheKeysTests {
    @Test("a suffix goes before the extension, keeping query and fragment")
    func suffixBeforeExtension() {
        #expect(CacheKeys.key("https://h/a/b.png", appending: "S") == "https://h/a/b-S.png")
        #expect(CacheKeys.key("https://h/a/b.png?x=1.2#f.g", appending: "S") == "https://h/a/b-S.png?x=1.2#f.g")
        #expect(CacheKeys.key("https://h/a.d/b", appending: "S") == "https://h/a.d/b-S")
        #expect(CacheKeys.key("https://h/a/b?x=1", appending: "S") == "https://h/a/b?x=1-S")
        #expect(CacheKeys.key("plain", appending: "S") == "plain-S")
        #expect(CacheKeys.key("/x/.hidden", appending: "S") == "/x/.hidden-S")
        #expect(CacheKeys.key("k", appending: "") == "k")
    }

    @Test("filter, then thumbnail, then transformer")
    func composition() throws {
        let filter = CacheKeyFilter { url in url.absoluteString.replacingOccurrences(of: "?sig=abc", with: "") }
        let manager = ImageManager(cache: ImageCache(memory: MemoryCache(), disk: DiskCache(folder: URL(fileURLWithPath: "/tmp/unused-\(UUID())"))),
                                   loader: ImageLoaders(), configuration: .init(cacheKeyFilter: filter))
        let url = try #require(URL(string: "https://h/p/cat.jpg?sig=abc"))
        #expect(manager.cacheKey(for: url) == "https://h/p/cat.jpg")
        let context = ImageContext(transformer: .use(.resize(to: PixelSize(width: 50, height: 40), fit: .aspectFill)),
                                   thumbnailPixelSize: PixelSize(width: 200, height: 100))
        #expect(manager.cacheKey(for: url, context: context)
                == "https://h/p/cat-Thumbnail({200,100},1)-Resizing({50,40},aspectFill).jpg")
        let noAspect = ImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8), preserveAspectRatio: false)
        #expect(manager.cacheKey(for: url, context: noAspect) == "https://h/p/cat-Thumbnail({8,8},0).jpg")
        #expect(CacheKeyFilter.droppingQuery.key(for: url) == "https://h/p/cat.jpg")
    }

    @Test("an explicit none switches the manager's default transformer off")
    func noneDisablesDefault() throws {
        let manager = ImageManager(cache: ImageCache(memory: MemoryCache(), disk: DiskCache(folder: URL(fileURLWithPath: "/tmp/unused-\(UUID())"))),
                                   loader: ImageLoaders(), configuration: .init(defaultTransformer: ImageTransformers.Blur(radius: 2)))
        let url = try #require(URL(string: "https://h/a.png"))
        #expect(manager.cacheKey(for: url) == "https://h/a-Blur(2).png")
        #expect(manager.cacheKey(for: url, context: ImageContext(transformer: .none)) == "https://h/a.png")
    }

    @Test("validators come from ETag, Last-Modified and max-age")
    func validatorsFromResponse() throws {
        let url = try #require(URL(string: "https://h/a.png"))
        let now = Date(timeIntervalSince1970: 1_000)
        let response = ImageResponseMetadata(url: url, headers: ["ETag": "\"v1\"", "Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT",
                                                                 "Cache-Control": "public, max-age=60"])
        let validators = HTTPValidators(response: response, receivedAt: now)
        #expect(validators.etag == "\"v1\"")
        #expect(validators.expires == 1_060)
        #expect(validators.conditionalHeaders["If-None-Match"] == "\"v1\"")
        #expect(validators.conditionalHeaders["If-Modified-Since"] == "Wed, 21 Oct 2015 07:28:00 GMT")
        let expires = HTTPValidators(response: ImageResponseMetadata(url: url, headers: ["Expires": "Thu, 01 Jan 1970 00:01:40 GMT"]))
        // An Expires in the past is stale on arrival: fresh until the moment it was received, no longer.
        #expect(expires.expires != nil)
        #expect(!expires.isFresh())
    }

    @Test("failed-URL policy: permanent failures block, transient ones do not")
    func blockingPolicy() {
        #expect(FailedURLs.blocks(after: ImageError(.badImageData, "")))
        #expect(FailedURLs.blocks(after: ImageError(.invalidURL, "")))
        #expect(FailedURLs.blocks(after: ImageError(.invalidDownloadStatusCode, "", statusCode: 404)))
        #expect(FailedURLs.blocks(after: ImageError(.invalidDownloadStatusCode, "", statusCode: 410)))
        #expect(!FailedURLs.blocks(after: ImageError(.invalidDownloadStatusCode, "", statusCode: 503)))
        #expect(!FailedURLs.blocks(after: ImageError(.invalidDownloadStatusCode, "", statusCode: 403)))
        for code in [ImageError.Code.cancelled, .timedOut, .connectionFailed, .io, .notFoundInCache] {
            #expect(!FailedURLs.blocks(after: ImageError(code, "")))
        }
    }
}
