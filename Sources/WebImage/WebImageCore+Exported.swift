// The shared core (formats, errors, HTTP fields, digests, colours) is part of this module's API: a user imports
// `WebImage` alone.
@_exported import WebImageCore
