import Testing
import WebImageServer

/// imgproxy's `IMGPROXY_URL_REPLACEMENTS` and `IMGPROXY_BASE_URL`, checked against imgproxy's own test cases
/// (options/parser/processing_options_test.go, env/types_test.go) and Go's template expansion.
@Suite struct SourceURLRewritingTests {
    /// Whether `pattern` matches the start of `url`: a replacement by a marker then changes it.
    func matches(_ pattern: String, _ url: String) -> Bool {
        SourceURLReplacement(pattern: pattern, replacement: "<>").applied(to: url) != url
    }

    @Test func aWildcardIsAnyCharactersButASlashAtTheStartOfTheURL() {
        #expect(matches("test.jpg", "test.jpg") && !matches("test.jpg", "test2.jpg"))
        #expect(matches("*.jpg", "image.jpg") && matches("*.jpg", "photo123.jpg") && !matches("*.jpg", "dir/image.jpg"))
        #expect(matches("*-*-*.jpg", "img-01-thumb.jpg") && !matches("*-*-*.jpg", "img-01.jpg"))
        #expect(matches("prefix*", "prefix123") && !matches("prefix*", "notprefix"))
        // Regular-expression characters in a pattern are themselves.
        #expect(!matches("a.c://", "abc://x") && matches("a.c://", "a.c://x"))
    }

    @Test func replacementsApplyInOrderEachToTheResultOfTheOneBefore() {
        let rewriting = SourceURLRewriting(replacements: [
            SourceURLReplacement(pattern: "test://*/", replacement: "test2://images.dev/${1}/dolor/"),
            SourceURLReplacement(pattern: "test2://", replacement: "http://"),
        ])
        #expect(rewriting.resolve("test://lorem/ipsum.jpg") == "http://images.dev/lorem/dolor/ipsum.jpg")
        #expect(rewriting.resolve("test://lorem/ipsum.jpg?param=value")
            == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        #expect(rewriting.resolve("https://other.example/a.jpg") == "https://other.example/a.jpg")
    }

    @Test func theDocumentedExamplesRewriteAsImgproxyDoes() {
        let plain = SourceURLReplacement(pattern: "mys3://", replacement: "s3://my_bucket/images/")
        #expect(plain.applied(to: "mys3://image01.jpg") == "s3://my_bucket/images/image01.jpg")
        // The documented example's replacement has no trailing slash: imgproxy's prefix regexp joins them.
        let wildcard = SourceURLReplacement(pattern: "mys3://*/", replacement: "s3://my_bucket/${1}/images/")
        #expect(wildcard.applied(to: "mys3://items/image01.jpg") == "s3://my_bucket/items/images/image01.jpg")
    }

    @Test func referencesExpandAsGoExpandsThem() {
        let url = "x://ab/cd/e.jpg"
        func expand(_ replacement: String, pattern: String = "x://*/*/") -> String {
            SourceURLReplacement(pattern: pattern, replacement: replacement).applied(to: url)
        }
        #expect(expand("[$1|$2]") == "[ab|cd]e.jpg")
        #expect(expand("[${2}${1}]") == "[cdab]e.jpg")
        #expect(expand("[$1x]") == "[]e.jpg")  // `$1x` names `1x`, which is no capture
        #expect(expand("[${1}x]") == "[abx]e.jpg")
        #expect(expand("[$3|$01|$name]") == "[||]e.jpg")  // beyond the captures, a leading zero, a name
        #expect(expand("[$$1|$|${1]") == "[$1|$|${1]e.jpg")  // `$$` and malformed references stay text
        #expect(expand("[$0]") == "[x://ab/cd/]e.jpg")  // the whole match
    }

    @Test func aWildcardTakesAsMuchAsStillLetsTheRestMatch() {
        // Greedy, then giving back: the first `*` takes `a-b`, leaving `c` to the second.
        let greedy = SourceURLReplacement(pattern: "x://*-*.", replacement: "$1|$2|")
        #expect(greedy.applied(to: "x://a-b-c.jpg") == "a-b|c|jpg")
        let unicode = SourceURLReplacement(pattern: "x://*é/", replacement: "[$1]")
        #expect(unicode.applied(to: "x://ßé/é/z") == "[ß]é/z")
    }

    @Test func theBaseURLGoesInFrontAfterTheReplacementsUnlessAlreadyThere() {
        let rewriting = SourceURLRewriting(baseURL: "http://images.dev/", replacements: [
            SourceURLReplacement(pattern: "cdn:", replacement: "http://images.dev/cdn/"),
        ])
        #expect(rewriting.resolve("lorem/ipsum.jpg?param=value") == "http://images.dev/lorem/ipsum.jpg?param=value")
        #expect(rewriting.resolve("http://images.dev/a.jpg") == "http://images.dev/a.jpg")
        #expect(rewriting.resolve("cdn:a.jpg") == "http://images.dev/cdn/a.jpg")  // replaced, then already based
        #expect(rewriting.resolve("https://elsewhere.example/a.jpg")
            == "http://images.dev/https://elsewhere.example/a.jpg")  // as imgproxy: any URL not starting with it
        #expect(SourceURLRewriting().resolve("a.jpg") == "a.jpg")
    }

    @Test func theVariableIsPairsDividedBySemicolonsEachSplitAtItsFirstEquals() throws {
        let list = try SourceURLReplacement.list("a://=b://;c://*/=d://${1}=x/")
        #expect(list == [SourceURLReplacement(pattern: "a://", replacement: "b://"),
                         SourceURLReplacement(pattern: "c://*/", replacement: "d://${1}=x/")])
        #expect(throws: ProxyConfigurationError.self) { try SourceURLReplacement.list("a://=b://;nothing") }
        #expect(throws: ProxyConfigurationError.self) { try SourceURLReplacement.list("a://=b://;") }
    }
}
