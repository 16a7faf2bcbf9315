/// A type as written in Swift source (`[String: Int]?`, `Foo.Bar<Baz>`), before resolution.
indirect enum SwiftTypeSyntax: Sendable, Equatable {
    struct Component: Sendable, Equatable {
        var name: String
        var arguments: [SwiftTypeSyntax]
    }
    /// `A.B<C>`: one or more dotted components, each with optional generic arguments.
    case named([Component])
    /// `T?` or `T!`.
    case optional(SwiftTypeSyntax)
    /// `[T]`.
    case array(SwiftTypeSyntax)
    /// `[K: V]`.
    case dictionary(SwiftTypeSyntax, SwiftTypeSyntax)
    /// Anything that cannot be decoded by synthesized `Decodable` as written (tuple, function, `some P`,
    /// `any P`, composition, metatype): the text for messages.
    case other(String)
}

/// The kind of a type declaration.
enum SwiftDeclKind: String, Sendable {
    case `struct`, `class`, `enum`, actor, `protocol`, `extension`
}

/// One `var`/`let` binding declared in a type body.
struct SwiftPropertyDecl: Sendable {
    var name: String
    var isLet: Bool
    var isStatic: Bool
    var isLazy: Bool
    /// `= value` was written.
    var hasInitializer: Bool
    /// `{ get … }` or a getter body: not stored. (`willSet`/`didSet` alone keep it stored.)
    var isComputed: Bool
    /// The type annotation, or one inferred from a simple initializer (`= 0`, `= UUID()`).
    var type: SwiftTypeSyntax?
    /// The type as written (or inferred), for messages.
    var typeText: String
    /// A custom attribute that is likely a property wrapper (`@Clamped`), without the `@`.
    var wrapper: String?
    /// Declared inside `#if` / `#elseif` / `#else` within the type body.
    var isConditional: Bool
    var line: Int
}

/// One case of an enum (`case a = "x"`, `case b(Int, label: String)`).
struct SwiftEnumCaseDecl: Sendable {
    enum RawLiteral: Sendable, Equatable {
        case string(String)
        case integer(String)   // digits, with a leading `-` when negative
        case floating(String)
    }
    var name: String
    var raw: RawLiteral?
    /// nil when the case has no parentheses; otherwise each associated value's label (nil = unlabeled).
    var associated: [(label: String?, type: SwiftTypeSyntax, text: String)]?
    var isConditional: Bool
    var line: Int
}

/// A struct, class, enum, actor, protocol or extension, with the members schema reading needs.
struct SwiftTypeDecl: Sendable {
    let kind: SwiftDeclKind
    /// Qualified path: `["Outer", "Inner"]`; for an extension, the extended type's written path.
    let path: [String]
    var file: String
    var line: Int
    var inherited: [SwiftTypeSyntax]
    /// The type declares generic parameters (`struct Box<T>`).
    var isGeneric: Bool
    var properties: [SwiftPropertyDecl] = []
    var cases: [SwiftEnumCaseDecl] = []
    /// `init(from decoder: Decoder)` is declared here (custom decoding).
    var hasDecoderInit = false
    /// What that `init(from:)` reads when it is the common single-value shape (one `decode(T.self)` from
    /// `singleValueContainer()`); nil otherwise.
    var singleValueDecoding: SingleValueDecoding?
    /// Why a single-value `init(from:)` is not modelled (a fallback, arithmetic, a conversion); nil otherwise.
    var customDecoderNote: String?
    /// `path` joined with dots, computed once.
    let qualifiedName: String
    var name: String { path.last ?? "" }

    init(kind: SwiftDeclKind, path: [String], file: String, line: Int, inherited: [SwiftTypeSyntax], isGeneric: Bool) {
        self.kind = kind
        self.path = path
        self.file = file
        self.line = line
        self.inherited = inherited
        self.isGeneric = isGeneric
        self.qualifiedName = path.joined(separator: ".")
    }
}

/// `typealias Name = Type` at some scope.
struct SwiftTypealiasDecl: Sendable {
    var path: [String]
    var target: SwiftTypeSyntax
    var isGeneric: Bool
    var file: String
    var line: Int
}

/// Everything read from one or more files.
struct SwiftDeclarations: Sendable {
    var types: [SwiftTypeDecl] = []
    var typealiases: [SwiftTypealiasDecl] = []
    /// Types given their own `KeyedDecodingContainer.decode(_:forKey:)` overload, with where it is declared.
    var decodeOverloads: [String: SwiftSourceLocation] = [:]
}

/// A custom `init(from:)` that decodes one value from a single-value container, and what it makes of it.
struct SingleValueDecoding: Sendable {
    /// The type given to `decode(_:)` (`Double`, `String`, `Int64`…).
    var decoded: SwiftTypeSyntax
    /// How the value becomes a `Date`, when the body builds one (`Date(timeIntervalSince1970:)`, an ISO 8601
    /// formatter, `/ 1000`); nil when the value is stored as decoded.
    var dateEncoding: DateEncoding?
    /// ISO 8601: the formatter's `formatOptions` include `.withFractionalSeconds`.
    var fractionalSeconds = false
}

/// What the reader makes of a custom `init(from:)` body.
enum SingleValueReading: Sendable {
    /// One value from a single-value container, with a meaning that is certain.
    case decoding(SingleValueDecoding)
    /// A single-value body whose meaning is not modelled, with the reason (never guessed).
    case unmodelled(String)
    /// Not the single-value shape at all (keyed, unkeyed, nested containers).
    case notSingleValue
}
