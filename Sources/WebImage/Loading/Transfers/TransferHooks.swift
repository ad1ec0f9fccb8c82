import Foundation

/// What one caller does to a response once the transfer it shared is done: its response modifier, then its
/// decryptor. Applied per caller, so callers with different hooks (or none) still share one transfer.
struct TransferHooks: Sendable {
    var responseModifier: DownloadResponseModifier?
    var decryptor: DownloadDecryptor?

    /// `response` as this caller receives it: refused by the modifier with
    /// `ImageError.Code.invalidDownloadResponse`, undecryptable bytes with `ImageError.Code.badImageData`.
    func apply(to response: ImageLoadResponse) -> Result<ImageLoadResponse, ImageError> {
        var response = response
        if let responseModifier {
            guard let metadata = responseModifier(response.metadata) else {
                return .failure(ImageError(.invalidDownloadResponse, "the response modifier rejected the response"))
            }
            response.metadata = metadata
        }
        if let decryptor {
            guard let data = decryptor.decrypt(response.data, response: response.metadata), !data.isEmpty else {
                return .failure(ImageError(.badImageData, "the downloaded data could not be decrypted"))
            }
            response.data = data
        }
        return .success(response)
    }
}
