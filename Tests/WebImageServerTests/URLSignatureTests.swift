import Testing

@testable import WebImageServer

/// Signatures must be exactly imgproxy's, so that its signing code in any language works: expected values come from
/// Python's `hmac` and `base64.urlsafe_b64encode` on the same key, salt and path.
@Suite struct URLSignatureTests {
    let signer: URLSignature

    init() throws {
        signer = try URLSignature(
            keyHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
            saltHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")
    }

    @Test func signsAsImgproxyDoes() {
        let plain = "/rs:fill:300:400:0/g:sm/plain/http://example.com/images/curiosity.jpg@png"
        #expect(signer.signature(for: plain[...]) == "TLell5iz_DCxfoccCS2iXgZGElDq2fVTm3zPKeChaaA")
        let encoded = "/rs:fit:300:300/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(signer.signature(for: encoded[...]) == "WfSyCIyVqbmmxcnrsjmx1Wtwot7kwIq14aXV9DkRHgo")
    }

    @Test func keysLongerThanABlockAreHashedFirst() {
        let message = [UInt8]([1, 2]) + Array("/w:10/plain/http://a/b.png".utf8)
        let code = HMACSHA256.authenticationCode(key: Array(0..<100), message: message)
        #expect(Base64URL.encode(code) == "bEWOrcZL2fCnzjaneCEKg40yx-rNnRHndz_9wMiO1ls")
    }

    @Test func verifiesOnlyTheExactPath() {
        let path = "/w:300/plain/http://example.com/a.jpg"
        let signature = signer.signature(for: path[...])
        #expect(signer.isValid(signature[...], for: path[...]))
        #expect(!signer.isValid(signature[...], for: "/w:301/plain/http://example.com/a.jpg"))
        #expect(signer.isValid((signature + "=")[...], for: path[...]))  // padding is accepted
        #expect(!signer.isValid(String(signature.dropLast())[...], for: path[...]))
        #expect(!signer.isValid("not*base64", for: path[...]))
        #expect(!signer.isValid("", for: path[...]))
    }

    @Test func keyAndSaltMustBeHex() {
        #expect(throws: ProxyConfigurationError.self) { try URLSignature(keyHex: "abc", saltHex: "00") }
        #expect(throws: ProxyConfigurationError.self) { try URLSignature(keyHex: "zz", saltHex: "00") }
        #expect(throws: ProxyConfigurationError.self) { try URLSignature(keyHex: "00", saltHex: "") }
        #expect(URLSignature.bytes(fromHex: "00fFa0") == [0, 255, 160])
    }

    @Test func base64RoundTripsEveryLength() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + length) % 256) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text[...]) == bytes)
        }
        #expect(Base64URL.decode("aHR0cDovL2E=") == Array("http://a".utf8))
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("a b c d") == nil)
    }
}
