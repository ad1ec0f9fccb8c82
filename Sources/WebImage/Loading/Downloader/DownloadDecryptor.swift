import Foundation

/// Turns downloaded bytes into image bytes, for servers that encode or encrypt what they send (SDWebImage's
/// `SDWebImageDownloaderDecryptor`): a closure, or ``base64``. Applied per caller after the transfer, so callers
/// sharing one transfer may use different decryptors.
public struct DownloadDecryptor: Sendable {
    private let body: @Sendable (Data, ImageResponseMetadata) -> Data?

    /// A decryptor that asks `body` for the bytes of each download: `nil` when they cannot be decrypted.
    public init(_ body: @escaping @Sendable (_ data: Data, _ response: ImageResponseMetadata) -> Data?) {
        self.body = body
    }

    /// The decrypted bytes, or `nil` when `data` cannot be decrypted (the caller gets
    /// `ImageError.Code.badImageData`).
    public func decrypt(_ data: Data, response: ImageResponseMetadata) -> Data? {
        body(data, response)
    }

    /// Decodes a body that is base64 text (whitespace and line breaks ignored).
    public static let base64 = DownloadDecryptor { data, _ in Data(base64Encoded: data, options: .ignoreUnknownCharacters) }
}
