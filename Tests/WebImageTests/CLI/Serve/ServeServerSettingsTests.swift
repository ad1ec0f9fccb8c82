import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--max-clients` (`IMGPROXY_MAX_CLIENTS`), `--graceful-stop-timeout` (`IMGPROXY_GRACEFUL_STOP_TIMEOUT`) and a
/// Unix socket to listen on (`--bind unix:PATH`, imgproxy's `IMGPROXY_NETWORK=unix` with `IMGPROXY_BIND=PATH`).
@Suite struct ServeServerSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]

    func settings(_ arguments: [String] = [], _ variables: [String: String] = [:]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments), environment: Self.pair.merging(variables) { $1 })
    }

    func configuration(_ arguments: [String] = [], _ variables: [String: String] = [:]) throws -> ProxyConfiguration {
        try settings(arguments, variables).configuration()
    }

    @Test func theDefaultsAreImgproxysLimitAndTwiceTheRequestTimeout() throws {
        let defaults = try configuration()
        #expect(defaults.maximumClients == 2048)
        #expect(defaults.gracefulStopTimeout == nil)  // twice the request timeout, worked out by the server
        #expect(defaults.unixSocketPath == nil && defaults.host == "127.0.0.1" && defaults.port == 8080)
    }

    @Test func imgproxysVariablesSetTheLimitAndTheStopTimeoutWithoutWarnings() throws {
        let settings = try settings([], ["IMGPROXY_MAX_CLIENTS": "64", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "7"])
        let configuration = try settings.configuration()
        #expect(configuration.maximumClients == 64 && configuration.gracefulStopTimeout == .seconds(7))
        #expect(settings.warnings.isEmpty)
        // imgproxy's 0: no connection limit; a stop that does not wait.
        let zero = try self.configuration([], ["IMGPROXY_MAX_CLIENTS": "0", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "0"])
        #expect(zero.maximumClients == nil && zero.gracefulStopTimeout == .zero)
        #expect(try self.configuration(["--max-clients", "0"]).maximumClients == nil)
    }

    @Test func aFlagBeatsOurVariableWhichBeatsImgproxys() throws {
        let all = ["IMGPROXY_MAX_CLIENTS": "30", "WEBIMAGE_MAX_CLIENTS": "20", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "3",
                   "WEBIMAGE_GRACEFUL_STOP_TIMEOUT": "2"]
        let flags = try configuration(["--max-clients", "10", "--graceful-stop-timeout", "1"], all)
        #expect(flags.maximumClients == 10 && flags.gracefulStopTimeout == .seconds(1))
        let ours = try configuration([], all)
        #expect(ours.maximumClients == 20 && ours.gracefulStopTimeout == .seconds(2))
    }

    @Test func negativeOrUnreadableValuesStopTheStart() throws {
        for (name, value) in [("IMGPROXY_MAX_CLIENTS", "-1"), ("IMGPROXY_MAX_CLIENTS", "many"),
                              ("IMGPROXY_GRACEFUL_STOP_TIMEOUT", "-5"), ("IMGPROXY_GRACEFUL_STOP_TIMEOUT", "5s")] {
            #expect(throws: ServeError.self, "\(name)=\(value)") { try configuration([], [name: value]) }
        }
        #expect(throws: ServeError.self) { try configuration(["--max-clients=-2"]) }
    }

    @Test func aUnixSocketComesFromTheBindFlagOrImgproxysNetwork() throws {
        #expect(try configuration(["--bind", "unix:/run/webimage.sock"]).unixSocketPath == "/run/webimage.sock")
        #expect(try configuration([], ["WEBIMAGE_BIND": "unix:/run/ours.sock"]).unixSocketPath == "/run/ours.sock")
        let imgproxy = try settings([], ["IMGPROXY_NETWORK": "unix", "IMGPROXY_BIND": "/run/imgproxy.sock"])
        #expect(try imgproxy.configuration().unixSocketPath == "/run/imgproxy.sock")
        #expect(imgproxy.warnings.isEmpty)
        // Our own bind wins over imgproxy's network: an address is TCP.
        let tcp = try configuration(["--bind", "127.0.0.1:9000"], ["IMGPROXY_NETWORK": "unix",
                                                                   "IMGPROXY_BIND": "/run/imgproxy.sock"])
        #expect(tcp.unixSocketPath == nil && tcp.host == "127.0.0.1" && tcp.port == 9000)
        let tcpNetwork = try settings([], ["IMGPROXY_NETWORK": "tcp4", "IMGPROXY_BIND": ":9001"])
        #expect(try tcpNetwork.configuration().port == 9001 && tcpNetwork.warnings.isEmpty)
    }

    @Test func aUnixNetworkWithoutAPathOrAnotherNetworkStopsTheStart() throws {
        let pathless = #expect(throws: ServeError.self) { try configuration([], ["IMGPROXY_NETWORK": "unix"]) }
        #expect(pathless?.description == "IMGPROXY_NETWORK=unix needs IMGPROXY_BIND=/path/to.sock")
        let packets = #expect(throws: ServeError.self) {
            try configuration([], ["IMGPROXY_NETWORK": "unixpacket", "IMGPROXY_BIND": "/run/x.sock"])
        }
        #expect(packets?.description == "IMGPROXY_NETWORK=unixpacket: expected tcp, tcp4, tcp6 or unix")
        #expect(throws: ServeError.self) { try configuration(["--bind", "unix:"]) }
    }
}
