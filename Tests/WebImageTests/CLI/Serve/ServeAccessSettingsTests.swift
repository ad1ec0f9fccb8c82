import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--secret`, `--allow-origin` and `--path-prefix`, read from their flags, `WEBIMAGE_*` or imgproxy's
/// `IMGPROXY_SECRET`, `IMGPROXY_ALLOW_ORIGIN` and `IMGPROXY_PATH_PREFIX`, in that order.
@Suite struct ServeAccessSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments),
                      environment: Self.pair.merging(variables) { $1 })
    }

    func configuration(_ arguments: [String] = [], _ variables: [String: String]) throws -> ProxyConfiguration {
        try settings(arguments, variables).configuration()
    }

    @Test func imgproxysVariablesSetTheSecretTheOriginAndThePrefixWithoutWarnings() throws {
        let settings = try settings([], [
            "IMGPROXY_SECRET": "bearer-token", "IMGPROXY_ALLOW_ORIGIN": "https://app.example",
            "IMGPROXY_PATH_PREFIX": "/img/v1/",
        ])
        let configuration = try settings.configuration()
        #expect(configuration.secret == "bearer-token")
        #expect(configuration.allowedOrigin == "https://app.example")
        #expect(configuration.pathPrefix == "/img/v1")  // the trailing slash is the routes' own
        #expect(settings.warnings.isEmpty)
    }

    @Test func aFlagBeatsOurVariableWhichBeatsImgproxys() throws {
        let all = ["IMGPROXY_SECRET": "c", "WEBIMAGE_SECRET": "b", "IMGPROXY_ALLOW_ORIGIN": "https://c.example",
                   "WEBIMAGE_ALLOW_ORIGIN": "https://b.example", "IMGPROXY_PATH_PREFIX": "/c",
                   "WEBIMAGE_PATH_PREFIX": "/b"]
        let flags = try configuration(["--secret", "a", "--allow-origin", "*", "--path-prefix", "/a"], all)
        #expect(flags.secret == "a" && flags.allowedOrigin == "*" && flags.pathPrefix == "/a")
        let ours = try configuration([], all)
        #expect(ours.secret == "b" && ours.allowedOrigin == "https://b.example" && ours.pathPrefix == "/b")
        let theirs = try configuration([], all.filter { $0.key.hasPrefix("IMGPROXY_") })
        #expect(theirs.secret == "c" && theirs.allowedOrigin == "https://c.example" && theirs.pathPrefix == "/c")
    }

    @Test func emptyValuesAreNoneAsInImgproxy() throws {
        let configuration = try configuration([], [
            "IMGPROXY_SECRET": "", "IMGPROXY_ALLOW_ORIGIN": " ", "IMGPROXY_PATH_PREFIX": "", "WEBIMAGE_SECRET": "",
        ])
        #expect(configuration.secret == nil && configuration.allowedOrigin == nil && configuration.pathPrefix == "")
        #expect(try self.configuration([], ["IMGPROXY_PATH_PREFIX": "/"]).pathPrefix == "")
    }

    @Test func aPrefixThatCannotMatchOrAValueThatWouldSplitAHeaderStopsTheStart() throws {
        let refused: [[String: String]] = [
            ["IMGPROXY_PATH_PREFIX": "img"], ["IMGPROXY_PATH_PREFIX": "/img?x"],
            ["IMGPROXY_SECRET": "abc\r\nX-Injected: 1"], ["IMGPROXY_ALLOW_ORIGIN": "https://a.example\nSet-Cookie: x"],
        ]
        for variables in refused {
            let name = variables.keys.first!
            #expect(throws: ServeError.self, "\(variables)") { try configuration([], variables) }
            do {
                _ = try configuration([], variables)
            } catch {
                #expect("\(error)".contains(name))
            }
        }
    }
}
