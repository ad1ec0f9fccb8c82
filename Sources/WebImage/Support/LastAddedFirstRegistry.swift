/// A thread-safe list of plugins in which the one added last is asked first, so a plugin registered later
/// takes over from a built-in one (the rule SDWebImage's coders and loaders managers follow). ``ImageCoders``
/// and ``ImageLoaders`` keep their plugins in one of these.
struct LastAddedFirstRegistry<Element: Sendable>: Sendable {
    private let registered: Locked<[Element]>

    /// A registry holding `elements` in registration order (the last is asked first).
    init(_ elements: [Element]) {
        registered = Locked(elements)
    }

    /// The elements in the order they are asked: last added first.
    var inAskingOrder: [Element] { registered.withLock { Array($0.reversed()) } }

    /// Registers `element` ahead of everything already here.
    func add(_ element: Element) {
        registered.withLock { $0.append(element) }
    }

    /// Removes every element of the same dynamic type as `element`: registering a second instance of a
    /// plugin type and removing "that plugin" are about types, not instances.
    func removeAll(ofTypeOf element: Element) {
        let type = ObjectIdentifier(Swift.type(of: element as Any))
        registered.withLock { $0.removeAll { ObjectIdentifier(Swift.type(of: $0 as Any)) == type } }
    }

    /// The first element, in asking order, that `accepts`. `accepts` runs outside the lock, so a plugin may
    /// consult the registry it is in.
    func first(where accepts: (Element) -> Bool) -> Element? {
        registered.withLock { $0 }.last(where: accepts)
    }

    /// Folds over every element (order does not matter to the caller).
    func reduce<Result>(into initial: Result, _ update: (inout Result, Element) -> Void) -> Result {
        registered.withLock { $0 }.reduce(into: initial, update)
    }
}
