import Foundation
import TestImageServer
import WebImage

/// The demo's loopback HTTP server: a real server on 127.0.0.1 (port chosen by the system) inside this process,
/// serving the generated images at `/files/NAME`.
struct DemoServer {
    let server: TestImageServer
    /// The images' URLs, in the order of the images given.
    let urls: [URL]

    static func start(serving images: [DemoImage]) async throws -> DemoServer {
        let server = try await TestImageServer.start()
        for image in images {
            server.serve(image.name, data: image.data, contentType: image.kind.format.mimeType)
        }
        return DemoServer(server: server, urls: images.map { server.url("/files/\($0.name)") })
    }

    /// Requests the server has answered so far.
    var requestCount: Int { server.log.requests.count }

    func shutdown() async { await server.shutdown() }
}
