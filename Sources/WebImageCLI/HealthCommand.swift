import ArgumentParser
import AsyncHTTPClient
import Foundation

/// `webimage health`: whether the `webimage serve` its settings describe is serving, for a container's health
/// check (no curl needed), as `imgproxy health` is imgproxy's. It reads the server's own settings, flags,
/// `WEBIMAGE_*` and `IMGPROXY_*` variables and `--env-file` alike, and asks `/health` under the path prefix,
/// which answers without the secret.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 when the webimage serve these settings describe answers 200 on /health, else 1.",
        // Spelled out: the usage ArgumentParser derives from the serve options group names `serve`.
        usage: "webimage health [--bind HOST:PORT|unix:PATH] [--path-prefix PATH] [--env-file PATH] [serve's other options]",
        discussion: """
            Give it what the server was given (flags, WEBIMAGE_* or IMGPROXY_* variables, --env-file): it asks \
            GET /health at --bind (127.0.0.1 for a server on every address; unix:PATH for a Unix socket), under \
            --path-prefix. A refused connection, no answer within \(Int(timeout.components.seconds)) seconds or \
            another status is a line on stderr and exit status 1.

            Example (a Dockerfile):
              HEALTHCHECK CMD ["webimage", "health"]
            """)

    /// How long the server has to answer: a server that cannot answer `/health` this fast is not serving.
    static let timeout = Duration.seconds(5)

    @OptionGroup(title: "The server's settings (as webimage serve reads them)")
    var serve: ServeCommand

    func run() async throws {
        let settings = ServeSettings(
            command: serve, environment: try ServeSettings.environment(command: serve,
                                                                       process: ProcessInfo.processInfo.environment))
        let url = try settings.healthURL()
        let status: UInt
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url),
                                                              timeout: .seconds(Self.timeout.components.seconds))
            status = response.status.code
        } catch {
            throw ServeError("health: no answer from \(url): \(error)")
        }
        guard status == 200 else { throw ServeError("health: \(url) answered \(status), not 200") }
    }
}
