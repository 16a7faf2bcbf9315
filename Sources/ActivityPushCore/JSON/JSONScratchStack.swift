/// A growable stack of values in one manually managed buffer, for the reader's open containers: members and
/// elements are pushed while a container is read and *moved* out, exactly sized, when it closes — one allocation
/// per container instead of an array that regrows, and no retain/release for the move.
///
/// Not copyable: one owner; the buffer (and any elements still on it, after a syntax error) is freed with it.
struct JSONScratchStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        storage = .allocate(capacity: self.capacity)
    }

    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// The elements from `base` to the top, in order (valid until the next push or pop).
    func withElements<Result>(from base: Int, _ body: (UnsafeBufferPointer<Element>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage + base, count: count - base))
    }

    /// Moves the elements from `base` to the top into a new array, in order, and pops them.
    mutating func popArray(from base: Int) -> [Element] {
        let n = count - base
        guard n > 0 else { return [] }
        let source = storage + base
        let result = [Element](unsafeUninitializedCapacity: n) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: source, count: n)
            initialized = n
        }
        count = base
        return result
    }

    /// Pops the elements from `base` to the top.
    mutating func pop(to base: Int) {
        (storage + base).deinitialize(count: count - base)
        count = base
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity *= 2
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }
}
