extension DecodeOptions {
    /// The box a filling thumbnail is cut from, when these options ask for one (``thumbnailFill`` with a
    /// thumbnail box and the aspect ratio kept).
    var fillBox: PixelSize? {
        guard thumbnailFill, preserveAspectRatio, let box = thumbnailPixelSize, box.width > 0, box.height > 0 else {
            return nil
        }
        return box
    }

    /// The options that decode a source shown at `displayedSize` just large enough to cover `box`: the smallest
    /// size whose both sides reach the box's (never above the source's), to fit inside, before the centre is cut.
    func covering(_ box: PixelSize, displayedSize: PixelSize) -> DecodeOptions {
        let width = Double(displayedSize.width), height = Double(displayedSize.height)
        let scale = min(1, max(Double(box.width) / width, Double(box.height) / height))
        var options = self
        options.thumbnailFill = false
        options.thumbnailPixelSize = PixelSize(width: min(displayedSize.width, Int((width * scale).rounded(.up))),
                                               height: min(displayedSize.height, Int((height * scale).rounded(.up))))
        return options
    }

    /// `image` with every frame cut to the centre of `box` (each side at most the frame's own).
    func cutToFill(_ image: Image, box: PixelSize) throws -> Image {
        let size = image.size
        let cut = PixelRect(x: max(0, (size.width - box.width) / 2), y: max(0, (size.height - box.height) / 2),
                            width: min(box.width, size.width), height: min(box.height, size.height))
        guard cut.width != size.width || cut.height != size.height else { return image }
        var result = image
        for index in result.frames.indices {
            let frame = result.frames[index]
            let deep = try frame.deepPixels?.cropped(to: cut)
            result.frames[index].pixels = try frame.pixels.cropped(to: cut)
            result.frames[index].deepPixels = deep
        }
        result.flags.insert(.thumbnail)
        return result
    }
}
