import Foundation
import FuzzSupport
import WebImage

/// The ICO/CUR decoder (directory, entry choice, bitmap entries with AND masks, PNG entries through the PNG
/// coder) and its properties reader on any bytes. The first byte picks the decode options (a thumbnail size
/// changes which entry is chosen). A default decode that succeeds must agree with the properties.
func fuzzICO(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    let data = input.payload
    let properties = try? ICOCoder().properties(of: data)
    if let image = try? ICOCoder().decode(data, options: DecodeOptions(limits: FuzzLimits.decode)) {
        precondition(properties?.size == image.size, "ICO properties disagree with the decode on the size")
    }
    _ = try? ICOCoder().decode(data, options: options)
    return 0
}
