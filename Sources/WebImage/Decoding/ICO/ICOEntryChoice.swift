/// Which entry of an ICO/CUR file a decode shows.
///
/// Without a thumbnail size: the largest entry, by area, then by bit depth, then the first in the directory.
/// With one: the smallest entry that is at least the asked size (one that the thumbnail step reduces or keeps,
/// never enlarges), ties going to the deeper entry, then the earlier one; when every entry is smaller than
/// asked, the largest. A favicon asked for at 32×32 thus decodes its 32×32 or 48×48 picture, not a 256×256
/// one scaled down, nor a 16×16 one.
enum ICOEntryChoice {
    static func entry(
        among entries: [ICODirectory.Entry], for options: DecodeOptions
    ) -> ICODirectory.Entry {
        let largest = best(entries, prefer: >)
        guard let box = options.thumbnailPixelSize, box.width > 0, box.height > 0 else { return largest }
        let bigEnough = entries.filter { entry in
            let wide = entry.size.width >= box.width, tall = entry.size.height >= box.height
            // With the aspect ratio kept, an entry is reduced (not enlarged) as soon as one side reaches the box.
            return options.preserveAspectRatio ? wide || tall : wide && tall
        }
        return bigEnough.isEmpty ? largest : best(bigEnough, prefer: <)
    }

    /// The entry whose area is preferred by `order` (`>` for largest, `<` for smallest), the deepest among
    /// equals, the first in the directory among those. `entries` is never empty.
    private static func best(
        _ entries: [ICODirectory.Entry], prefer order: (Int, Int) -> Bool
    ) -> ICODirectory.Entry {
        var chosen = entries[0]
        for entry in entries.dropFirst() {
            let area = entry.size.area, chosenArea = chosen.size.area
            if order(area, chosenArea) || (area == chosenArea && entry.bitDepth > chosen.bitDepth) {
                chosen = entry
            }
        }
        return chosen
    }
}
