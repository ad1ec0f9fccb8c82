extension DecodeOptions {
    /// The size ``finish(_:sourceSize:orientation:)`` gives a bitmap stored at `storedSize` with `orientation`:
    /// reduced to the thumbnail or scale-down target, then turned upright. Lets a lazy decoder report its frame
    /// size before decoding any frame.
    func finishedSize(forStored storedSize: PixelSize, orientation: Orientation) -> PixelSize {
        let target = storedTargetSize(for: storedSize, orientation: orientation) ?? storedSize
        return effectiveOrientation(orientation).displayedSize(of: target)
    }
}
