import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--health-check-path`, `--prometheus-bind`, `--prometheus-namespace`, `--log-format` and `--log-level`, read
/// from their flags, `WEBIMAGE_*` or imgproxy's variables, and the URL `webimage health` asks.
@Suite struct ServeOperationsSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments), environment: Self.pair.merging(variables) { $1 })
    }

    func configuration(_ arguments: [String] = [], _ variables: [String: String]) throws -> ProxyConfiguration {
        try settings(arguments, variables).configuration()
    }

    /// The URL `webimage health ARGUMENTS` asks, with `variables` for the environment.
    func healthURL(_ arguments: [String] = [], _ variables: [String: String] = [:]) throws -> String {
        let command = try HealthCommand.parse(arguments)
        return try ServeSettings(command: command.serve, environment: variables).healthURL()
    }

    @Test func imgproxysVariablesAreReadWithoutWarnings() throws {
        let settings = try settings([], [
            "IMGPROXY_HEALTH_CHECK_PATH": "/healthz", "IMGPROXY_PROMETHEUS_BIND": ":9464",
            "IMGPROXY_PROMETHEUS_NAMESPACE": "imgproxy", "IMGPROXY_LOG_FORMAT": "json", "IMGPROXY_LOG_LEVEL": "warn",
        ])
        let configuration = try settings.configuration()
        let logging = try settings.logging()
        #expect(configuration.operations.healthCheckPath == "/healthz")
        #expect(configuration.operations.prometheusBind?.host == "0.0.0.0")  // imgproxy's empty host: every address
        #expect(configuration.operations.prometheusBind?.port == 9464)
        #expect(configuration.operations.prometheusNamespace == "imgproxy")
        #expect(logging.format == .json && logging.level == .warning)
        #expect(settings.warnings.isEmpty)
    }

    @Test func aFlagBeatsOurVariableWhichBeatsImgproxys() throws {
        let all = ["IMGPROXY_HEALTH_CHECK_PATH": "/c", "WEBIMAGE_HEALTH_CHECK_PATH": "/b",
                   "IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:3", "WEBIMAGE_PROMETHEUS_BIND": "127.0.0.1:2",
                   "IMGPROXY_LOG_FORMAT": "gcp", "WEBIMAGE_LOG_FORMAT": "structured",
                   "IMGPROXY_LOG_LEVEL": "error", "WEBIMAGE_LOG_LEVEL": "debug"]
        let flags = ["--health-check-path", "/a", "--prometheus-bind", "127.0.0.1:1", "--log-format", "json",
                     "--log-level", "warn"]
        let first = try settings(flags, all)
        #expect(try first.configuration().operations.healthCheckPath == "/a")
        #expect(try first.configuration().operations.prometheusBind?.port == 1)
        #expect(try first.logging().format == .json && first.logging().level == .warning)
        let ours = try settings([], all)
        #expect(try ours.configuration().operations.healthCheckPath == "/b")
        #expect(try ours.configuration().operations.prometheusBind?.port == 2)
        #expect(try ours.logging().format == .structured && ours.logging().level == .debug)
        let theirs = try settings([], all.filter { $0.key.hasPrefix("IMGPROXY_") })
        #expect(try theirs.configuration().operations.healthCheckPath == "/c")
        #expect(try theirs.configuration().operations.prometheusBind?.port == 3)
        #expect(try theirs.logging().format == .gcp && theirs.logging().level == .error)
    }

    @Test func nothingSetIsNoExtraPathNoListenerAndThePrettyLogAtInfo() throws {
        let settings = try settings([], ["IMGPROXY_HEALTH_CHECK_PATH": "", "IMGPROXY_PROMETHEUS_BIND": " "])
        let configuration = try settings.configuration()
        #expect(configuration.operations.healthCheckPath == nil && configuration.operations.prometheusBind == nil)
        #expect(configuration.operations.prometheusNamespace == "")
        #expect(try settings.logging().format == .pretty && settings.logging().level == .info)
    }

    @Test func mistakesStopTheStartWithOneLineNamingTheSetting() throws {
        let cases: [([String], [String: String], String)] = [
            ([], ["IMGPROXY_LOG_FORMAT": "xml"], "IMGPROXY_LOG_FORMAT"),
            (["--log-level", "verbose"], [:], "--log-level"),
            ([], ["IMGPROXY_HEALTH_CHECK_PATH": "healthz"], "IMGPROXY_HEALTH_CHECK_PATH"),
            (["--prometheus-bind", "nowhere"], [:], "--prometheus-bind"),
            // The image server's own address: imgproxy refuses it too.
            (["--bind", "127.0.0.1:9000", "--prometheus-bind", "127.0.0.1:9000"], [:], "--prometheus-bind"),
            ([], ["IMGPROXY_PROMETHEUS_BIND": ":1", "IMGPROXY_PROMETHEUS_NAMESPACE": "my-proxy"],
             "IMGPROXY_PROMETHEUS_NAMESPACE"),
        ]
        for (arguments, variables, origin) in cases {
            let settings = try settings(arguments, variables)
            #expect {
                _ = try settings.logging()
                _ = try settings.configuration()
            } throws: { error in
                "\(error)".contains(origin) && !"\(error)".contains("\n")
            }
        }
    }

    @Test func healthAsksTheServersAddressUnderItsPrefix() throws {
        #expect(try healthURL() == "http://127.0.0.1:8080/health")
        #expect(try healthURL(["--bind", "10.1.2.3:9000", "--path-prefix", "/img/"]) == "http://10.1.2.3:9000/img/health")
        // A server on every address is asked on loopback, as imgproxy's `health` dials its bind.
        #expect(try healthURL([], ["IMGPROXY_BIND": ":9000"]) == "http://127.0.0.1:9000/health")
        #expect(try healthURL(["--bind", "[::]:9000"]) == "http://[::1]:9000/health")
        #expect(try healthURL([], ["WEBIMAGE_BIND": "[::1]:80", "IMGPROXY_PATH_PREFIX": "/p"]) == "http://[::1]:80/p/health")
        // The secret does not matter: /health answers without it.
        #expect(try healthURL(["--secret", "s"], ["IMGPROXY_BIND": "127.0.0.1:1"]) == "http://127.0.0.1:1/health")
        let socket = try healthURL([], ["IMGPROXY_NETWORK": "unix", "IMGPROXY_BIND": "/run/webimage.sock"])
        #expect(socket.hasPrefix("http+unix://") && socket.hasSuffix("/health"))
        #expect(socket.contains("%2Frun%2Fwebimage.sock"))
        #expect(throws: (any Error).self) { try healthURL(["--bind", "127.0.0.1:0"]) }
    }
}
