import WebImage

/// Turns command-line transform steps into the library's transformers and applies them in order.
enum TransformRunner {
    static func transformer(for step: TransformStep) -> any ImageTransformer {
        switch step {
        case .resize(let size, let fit): .resize(to: size, fit: fit)
        case .crop(let rect): .crop(rect)
        case .round(let radius, let width, let color): .roundCorners(radius: radius, borderWidth: width, borderColor: color)
        case .flip(let horizontal, let vertical): .flip(horizontal: horizontal, vertical: vertical)
        case .rotate(let degrees, let fitSize): .rotate(degrees: degrees, fitSize: fitSize)
        case .tint(let color): .tint(color)
        case .blur(let radius): .blur(radius: radius)
        }
    }

    /// `image` after every step, or `image` itself when there are none.
    static func apply(_ steps: [TransformStep], to image: Image) throws -> Image {
        guard !steps.isEmpty else { return image }
        return try ImageTransformers.Pipeline(steps.map(transformer(for:))).transform(image)
    }
}
