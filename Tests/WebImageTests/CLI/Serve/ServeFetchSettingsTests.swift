import Foundation
import Testing
import WebImage
import WebImageServer

@testable import WebImageCLI

/// The three source address switches, `--user-agent`, `--max-redirects`, `--cache-control-passthrough` and
/// `--set-canonical-header`, read from their flags, `WEBIMAGE_*` or imgproxy's variables, in that order.
@Suite struct ServeFetchSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]
    static let loopback = "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"
    static let privateAddresses = "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES"
    static let linkLocal = "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES"

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments),
                      environment: Self.pair.merging(variables) { $1 })
    }

    func configuration(_ arguments: [String] = [], _ variables: [String: String]) throws -> ProxyConfiguration {
        try settings(arguments, variables).configuration()
    }

    /// Loopback, private and link-local, as one string of the switches that are on.
    func switches(_ configuration: ProxyConfiguration) -> String {
        [configuration.allowsLoopbackSources ? "loopback" : nil, configuration.allowsPrivateSources ? "private" : nil,
         configuration.allowsLinkLocalSources ? "link-local" : nil].compactMap { $0 }.joined(separator: ",")
    }

    @Test func eachAddressSwitchIsReadAlone() throws {
        // Private addresses stay refused unless asked for, unlike imgproxy's default.
        #expect(switches(try configuration([], [:])) == "")
        #expect(switches(try configuration([], [Self.loopback: "true"])) == "loopback")
        #expect(switches(try configuration([], [Self.privateAddresses: "true"])) == "private")
        #expect(switches(try configuration([], [Self.linkLocal: "1"])) == "link-local")
        #expect(switches(try configuration([], [Self.loopback: "true", Self.privateAddresses: "false"]))
                == "loopback")
        #expect(switches(try configuration(["--allow-loopback-sources"], [:])) == "loopback")
        #expect(switches(try configuration(["--allow-private-sources"], [:])) == "private")
        #expect(switches(try configuration(["--allow-link-local-sources"], [:])) == "link-local")
        #expect(switches(try configuration([], ["WEBIMAGE_ALLOW_PRIVATE_SOURCES": "yes",
                                                "WEBIMAGE_ALLOW_LINK_LOCAL_SOURCES": "on"])) == "private,link-local")
        // Our variable beats imgproxy's.
        #expect(switches(try configuration([], [Self.loopback: "false", "WEBIMAGE_ALLOW_LOOPBACK_SOURCES": "1"]))
                == "loopback")
        let settings = try settings([], [Self.loopback: "true", Self.privateAddresses: "false", Self.linkLocal: "1"])
        _ = try settings.configuration()
        #expect(settings.warnings.isEmpty)
        #expect(throws: ServeError.self) { try configuration([], [Self.privateAddresses: "yes"]) }
    }

    @Test func theUserAgentIsReadWithImgproxysVersionVariable() throws {
        #expect(try configuration([], [:]).userAgent == nil)
        #expect(try configuration(["--user-agent", "thumbs/2"], ["IMGPROXY_USER_AGENT": "x"]).userAgent == "thumbs/2")
        #expect(try configuration([], ["IMGPROXY_USER_AGENT": "imgproxy/%current_version (thumbs)"]).userAgent
                == "imgproxy/\(ServeSettings.version) (thumbs)")
        #expect("swift-web-image/\(ServeSettings.version)" == ImageLoadRequest.defaultUserAgent)
        #expect(try configuration([], ["IMGPROXY_USER_AGENT": ""]).userAgent == nil)
        #expect(throws: ServeError.self) { try configuration([], ["IMGPROXY_USER_AGENT": "a\r\nX-Injected: 1"]) }
    }

    @Test func theRedirectLimitIsAWholeNumberFromZero() throws {
        #expect(try configuration([], [:]).maximumRedirects == 10)
        #expect(try configuration([], ["IMGPROXY_MAX_REDIRECTS": "0"]).maximumRedirects == 0)
        #expect(try configuration(["--max-redirects", "3"], ["WEBIMAGE_MAX_REDIRECTS": "5"]).maximumRedirects == 3)
        #expect(try configuration([], ["WEBIMAGE_MAX_REDIRECTS": "5"]).maximumRedirects == 5)
        #expect(throws: ServeError.self) { try configuration([], ["IMGPROXY_MAX_REDIRECTS": "-1"]) }
        #expect(throws: ServeError.self) { try configuration([], ["IMGPROXY_MAX_REDIRECTS": "ten"]) }
    }

    @Test func passthroughAndTheCanonicalHeaderAreReadAndNoLongerWarned() throws {
        let off = try configuration([], [:])
        #expect(!off.passesSourceCacheControl && !off.setsCanonicalHeader)
        let settings = try settings([], ["IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true",
                                         "IMGPROXY_SET_CANONICAL_HEADER": "true"])
        let on = try settings.configuration()
        #expect(on.passesSourceCacheControl && on.setsCanonicalHeader)
        #expect(settings.warnings.isEmpty)
        let flags = try configuration(["--cache-control-passthrough", "--set-canonical-header"], [:])
        #expect(flags.passesSourceCacheControl && flags.setsCanonicalHeader)
        #expect(!UnsupportedImgproxyVariables.alreadySo.keys.contains("IMGPROXY_CACHE_CONTROL_PASSTHROUGH"))
        #expect(!UnsupportedImgproxyVariables.alreadySo.keys.contains("IMGPROXY_SET_CANONICAL_HEADER"))
    }
}
