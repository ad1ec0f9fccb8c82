import Testing
@testable import WebImage
@testable import WebImageCLI

@Suite struct TransformFlagsTests {
    @Test func keepsTheOrderGivenAndAttachesModifiers() throws {
        let steps = try TransformFlags.steps(in: [
            "webimage", "convert", "in.jpg", "out.png", "--blur", "2", "--resize", "40x30", "--fit", "aspectFill",
            "--rotate=-30", "--rotate-fit", "--crop", "1,2,3,4", "--flip", "hv", "--quality", "50",
            "--round", "8,2,#ff000080", "--tint", "#00ff00",
        ])
        #expect(steps == [
            .blur(radius: 2),
            .resize(PixelSize(width: 40, height: 30), fit: .aspectFill),
            .rotate(degrees: -30, fitSize: true),
            .crop(PixelRect(x: 1, y: 2, width: 3, height: 4)),
            .flip(horizontal: true, vertical: true),
            .round(radius: 8, borderWidth: 2, borderColor: RGBA(255, 0, 0, 128)),
            .tint(RGBA(0, 255, 0, 255)),
        ])
    }

    @Test func aFitBeforeItsResizeStillApplies() throws {
        let steps = try TransformFlags.steps(in: ["--fit", "aspectFit", "--resize", "10x10", "--resize", "5x5"])
        #expect(steps == [.resize(PixelSize(width: 10, height: 10), fit: .aspectFit),
                          .resize(PixelSize(width: 5, height: 5), fit: .fill)])
    }

    @Test(arguments: [
        ["--resize", "10"], ["--resize", "0x10"], ["--crop", "1,2,3"], ["--flip", "x"], ["--fit", "cover"],
        ["--rotate", "nan"], ["--blur", "-1"], ["--tint", "#12"], ["--round", "4,1"], ["--resize"],
    ])
    func refusesMalformedValues(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try TransformFlags.steps(in: arguments) }
    }

    @Test func jsonKeepsFieldOrderAndEscapes() {
        let value = JSONValue.object([("b", .int(1)), ("a", .string("q\"\\\n\u{1}")), ("c", .bool(false)), ("d", .null)])
        #expect(value.text == #"{"b":1,"a":"q\"\\\n\u0001","c":false,"d":null}"#)
    }
}
