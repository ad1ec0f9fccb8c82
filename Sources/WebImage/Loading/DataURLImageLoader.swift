import Foundation

/// Loads `data:` URLs (RFC 2397): `data:[<media type>][;base64],<data>`, base64 or percent-encoded.
///
/// The payload may hold at most ``ImageLoadRequest/maximumBodySize`` bytes once decoded (the downloader's
/// ``ImageDownloaderConfiguration/maximumBodySize``, 100 MB by default); a larger one is
/// `ImageError.Code.responseTooLarge`. The size is estimated from the URL's length and checked before anything
/// is decoded, then checked exactly after decoding. A URL without a comma or with a broken `%` escape is
/// `ImageError.Code.invalidURL`; undecodable base64 or an empty payload is `ImageError.Code.badImageData`.
package struct DataURLImageLoader: ImageLoader {
    /// Creates a `data:` URL loader.
    package init() {}

    /// `data` URLs.
    package func canLoad(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "data"
    }

    package func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
        -> ImageLoadResponse {
        try Task.checkCancellation()
        let decoded = try Self.decode(request.url.absoluteString, maximumSize: request.maximumBodySize)
        let length = Int64(decoded.data.count)
        progress?(ImageLoadProgress(receivedBytes: length, expectedBytes: length,
                                    partialData: request.wantsPartialData ? decoded.data : nil))
        let metadata = ImageResponseMetadata(url: request.url, statusCode: 200,
                                             headers: ["Content-Type": decoded.mediaType],
                                             mimeType: ImageResponseMetadata.mimeType(fromContentType: decoded.mediaType),
                                             expectedContentLength: length)
        return ImageLoadResponse(data: decoded.data, metadata: metadata)
    }

    /// Splits and decodes a `data:` URL string (also used by the SVG coder for the images a document embeds).
    package static func decode(_ string: String, maximumSize: Int) throws -> (mediaType: String, data: Data) {
        guard string.lowercased().hasPrefix("data:"), let comma = string.firstIndex(of: ",") else {
            throw ImageError(.invalidURL, "a data: URL needs a comma before its payload")
        }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let payload = string[string.index(after: comma)...]
        var parameters = header.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let isBase64 = parameters.last?.lowercased() == "base64"
        if isBase64 { parameters.removeLast() }
        let mediaType = parameters.first.map { $0.isEmpty ? "text/plain" : $0 } ?? "text/plain"

        // Refuse before decoding only what is surely too large: every `%XX` is one byte, whitespace in base64
        // decodes to nothing, four base64 characters are three bytes (the slack covers padding).
        var characters = 0, escapes = 0, spaces = 0
        for byte in payload.utf8 {
            characters += 1
            if byte == UInt8(ascii: "%") {
                escapes += 1
            } else if byte == 0x20 || (0x09...0x0D).contains(byte) {
                spaces += 1
            }
        }
        let unescaped = characters - 2 * escapes
        let estimate = isBase64 ? (unescaped - spaces) / 4 * 3 : unescaped
        guard estimate <= maximumSize + 3 else {
            throw ImageError(.responseTooLarge, "the data: URL holds about \(estimate) bytes, over \(maximumSize)")
        }
        guard let unescaped = PercentDecoding.bytes(of: payload) else {
            throw ImageError(.invalidURL, "the data: URL has a broken % escape")
        }
        var data = unescaped
        if isBase64 {
            var text = String(decoding: unescaped, as: UTF8.self).filter { !$0.isWhitespace }
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            guard let bytes = Data(base64Encoded: text) else {
                throw ImageError(.badImageData, "the data: URL's base64 payload is not valid base64")
            }
            data = bytes
        }
        guard data.count <= maximumSize else {
            throw ImageError(.responseTooLarge, "the data: URL holds \(data.count) bytes, over \(maximumSize)")
        }
        guard !data.isEmpty else { throw ImageError(.badImageData, "the data: URL is empty") }
        return (mediaType, data)
    }
}
