import Vapor
import WebImage

func routes(_ app: Application) throws {
    // An upload is untrusted: its header is checked against these limits before any pixel is allocated (a
    // 315 KB PNG can hold 81 megapixels), and a large JPEG is decoded at a fraction of its size, since only a
    // 256 px thumbnail is kept.
    let uploadOptions = {
        var options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 1024, height: 1024))
        options.limits = DecodeLimits(maxPixels: 50_000_000, maxFrames: 1_000, maxTotalPixels: 1 << 28)
        return options
    }()
    let square = ImageTransformers.Resize(to: PixelSize(width: 256, height: 256), fit: .aspectFill)

    // Vapor refuses a larger body itself (413), so the decoder never sees more than 20 MB.
    app.on(.POST, "thumbnails", body: .collect(maxSize: "20mb")) { request async throws -> Response in
        guard let body = request.body.data else { return plainText("no image in the request body", status: 400) }
        do {
            // `on: .shared`: the decode, resize and encode run on the library's threads, a bounded number at
            // once; this handler waits without holding a thread of Swift's pool, which other requests need.
            let image = try await ImageCoders.shared.decode(body, options: uploadOptions,
                                                            on: .shared)
            let thumbnail = try await square.transform(image, on: .shared)
            let webp = try await ImageCoders.shared.encode(thumbnail, as: .webp, on: .shared)
            return Response(status: .ok, headers: ["Content-Type": "image/webp"], body: .init(data: webp))
        } catch {
            return try failure(error, from: .upload)
        }
    }

    // The server preset, not `ImageManager.shared` (an app's loader): public http(s) addresses only, short
    // timeouts, bounded downloads, and a disk cache in a folder of its own.
    let avatars = ImageManager.forServer(cacheNamespace: "vapor-example")
    // A thumbnail that fills its box: decoded just large enough to cover 128×128, then its centre kept, in every
    // frame of an animated source too; delivered as PNG bytes too, encoded once and kept in the disk cache.
    let avatar = ImageContext(thumbnailPixelSize: PixelSize(width: 128, height: 128), thumbnailFill: true,
                              resultEncoding: ResultEncoding(format: .png))

    app.get("avatar") { request async throws -> Response in
        guard let url = request.query[String.self, at: "url"] else {
            return plainText("the url query parameter is missing", status: 400)
        }
        do {
            let result = try await avatars.loadImage(from: url, context: avatar)
            // The PNG was made once, with the thumbnail; a cache hit hands back the same bytes.
            guard let png = result.data else { throw Abort(.internalServerError) }
            return Response(status: .ok, headers: ["Content-Type": "image/png"], body: .init(data: png))
        } catch {
            return try failure(error, from: .remoteSource)
        }
    }
}

/// The answer to a failed image. The status depends on whose fault it was (a bad upload is the client's, a
/// failing origin a gateway's); the library's messages name no URL and no transport detail, so the client may
/// read them. Anything else is rethrown to Vapor's error middleware (500).
func failure(_ error: any Error, from input: ImageError.Input) throws -> Response {
    switch error {
    case let error as ImageError:
        return plainText(error.message, status: error.httpStatus(for: input))
    case is SlotQueueFull:
        // Every CPU slot busy and the line full: the server is overloaded, the request is not wrong.
        return plainText("the server is busy, try again later", status: 503)
    default:
        throw error
    }
}

func plainText(_ text: String, status: Int) -> Response {
    Response(status: HTTPResponseStatus(statusCode: status), headers: ["Content-Type": "text/plain; charset=utf-8"],
             body: .init(string: text))
}
