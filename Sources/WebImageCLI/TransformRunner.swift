import ArgumentParser
import WebImage

/// Applies command-line transform steps to an image.
enum TransformRunner {
    static func apply(_ steps: [TransformStep], to image: Image) throws -> Image {
        guard steps.isEmpty else {
            throw ValidationError("transform flags are not available in this build yet")
        }
        return image
    }
}
