import Foundation
import Testing
@testable import WebImage

/// How long a response stays fresh for a private cache (RFC 9111 §4.2), computed from its headers.
@Suite struct FreshnessTests {
    /// 2026-01-01 00:00:00 GMT.
    let now = Date(timeIntervalSince1970: 1_767_225_600)
    let nowText = "Thu, 01 Jan 2026 00:00:00 GMT"

    private func validators(_ headers: [String: String], at time: Date? = nil) -> HTTPValidators {
        let metadata = ImageResponseMetadata(url: URL(string: "https://example.com/a.png")!,
                                             headers: HTTPHeaderFields(headers.map { ($0.key, $0.value) }))
        return HTTPValidators(response: metadata, receivedAt: time ?? now)
    }

    /// Seconds of freshness left at `now`, or nil when the response says nothing.
    private func lifetime(_ headers: [String: String]) -> Double? {
        validators(headers).expires.map { $0 - now.timeIntervalSince1970 }
    }

    @Test func maxAgeWinsOverExpires() {
        #expect(lifetime(["Cache-Control": "public, max-age=600", "Expires": "Thu, 01 Jan 2026 01:00:00 GMT",
                          "Date": nowText]) == 600)
    }

    @Test func sharedCacheDirectivesAreIgnored() {
        #expect(lifetime(["Cache-Control": "s-maxage=9000, max-age=60"]) == 60)
        #expect(lifetime(["Cache-Control": "s-maxage=9000"]) == nil)
    }

    @Test func expiresCountsFromTheServersDate() {
        // Expires minus Date is the lifetime; our own clock does not enter it.
        #expect(lifetime(["Expires": "Thu, 01 Jan 2026 00:30:00 GMT", "Date": nowText]) == 1_800)
        #expect(lifetime(["Expires": "0"]) == 0)
        #expect(lifetime(["Expires": "Sunday, 06-Nov-94 08:49:37 GMT", "Date": nowText]) == 0)
    }

    @Test func aDateInThePastCountsAsAgeAlreadySpent() {
        // The response was generated half an hour before it arrived: half of its hour is gone.
        #expect(lifetime(["Expires": "Thu, 01 Jan 2026 00:30:00 GMT", "Date": "Wed, 31 Dec 2025 23:30:00 GMT"])
            == 1_800)
    }

    @Test func ageAlreadySpentIsSubtracted() {
        #expect(lifetime(["Cache-Control": "max-age=600", "Age": "100"]) == 500)
        #expect(lifetime(["Cache-Control": "max-age=600", "Date": "Wed, 31 Dec 2025 23:58:20 GMT"]) == 500)
        #expect(lifetime(["Cache-Control": "max-age=60", "Age": "300"]) == 0)
    }

    @Test func noCacheIsStaleFromTheStartButStillRevalidatable() {
        let stored = validators(["Cache-Control": "no-cache, max-age=600", "ETag": "\"v1\""])
        #expect(stored.expires == now.timeIntervalSince1970)
        #expect(!stored.isFresh(at: now))
        #expect(stored.canRevalidate)
    }

    @Test func lastModifiedAloneGivesATenthOfItsAgeUpToADay() {
        #expect(lifetime(["Last-Modified": "Wed, 31 Dec 2025 14:00:00 GMT", "Date": nowText]) == 3_600)
        #expect(lifetime(["Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT", "Date": nowText]) == 86_400)
    }

    @Test func silenceIsStale() {
        let stored = validators(["ETag": "\"v1\""])
        #expect(stored.expires == nil)
        #expect(!stored.isFresh(at: now))
    }

    @Test func freshUntilExpiry() {
        let stored = validators(["Cache-Control": "max-age=60"])
        #expect(stored.isFresh(at: now.addingTimeInterval(59)))
        #expect(!stored.isFresh(at: now.addingTimeInterval(60)))
    }

    @Test func malformedMaxAgeMeansStale() {
        #expect(lifetime(["Cache-Control": "max-age=soon"]) == 0)
        #expect(lifetime(["Cache-Control": "no-cache=\"Set-Cookie, X-A\", max-age=30"]) == 0)
        #expect(lifetime(["Cache-Control": "private=\"a, b\", max-age=30"]) == 30)
    }

    @Test func noStoreForbidsStorage() {
        let metadata = ImageResponseMetadata(url: URL(string: "https://example.com/a.png")!,
                                             headers: ["Cache-Control": "private, no-store"])
        #expect(metadata.forbidsStorage)
        #expect(!ImageResponseMetadata(url: metadata.url, headers: ["Cache-Control": "max-age=1"]).forbidsStorage)
    }

    @Test func aNotModifiedAnswerRefreshesValidatorsAndFreshness() {
        let stored = validators(["ETag": "\"v1\"", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
                                 "Cache-Control": "max-age=60"], at: now.addingTimeInterval(-3_600))
        #expect(!stored.isFresh(at: now))
        let answer = ImageResponseMetadata(url: URL(string: "https://example.com/a.png")!, statusCode: 304,
                                           headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=120"])
        let refreshed = stored.refreshed(by: answer, receivedAt: now)
        #expect(refreshed.etag == "\"v2\"")
        #expect(refreshed.lastModified == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(refreshed.expires == now.timeIntervalSince1970 + 120)
    }
}
