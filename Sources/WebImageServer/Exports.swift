// The URL format is part of the proxy's API: code that imports the server sees it too.
@_exported import WebImageProxyURL
