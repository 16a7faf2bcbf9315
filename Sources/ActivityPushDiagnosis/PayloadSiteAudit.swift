import ActivityPushCore
import Foundation
import Synchronization

/// Finds every place in a server codebase that builds a Live Activity payload — by what the code builds, not by
/// names: object/dict/map literals holding `aps` with `event` / `content-state` / `attributes-type`, setter and
/// builder calls (node-apn, pushy, apns2, APNSwift, aioapns, Firebase Admin custom data), string templates and
/// JSON files — and reports the mistakes visible at each site (`findings.md` codes).
///
/// Not sites: type declarations, transport wrappers that send a caller-built body, tests, docs and comments.
/// Dependency, build, VCS / tool (`.git`, `.build`, `.next`…) and test directories are pruned; other hidden
/// folders are scanned. Files over 2 MB are scanned in chunks for payload words only: when they hold some, they
/// are reported as skipped (too large to analyse), as are unreadable files and folders and binary files (a NUL
/// byte; UTF-16 files with a byte-order mark are decoded and scanned).
public struct PayloadSiteAudit: Sendable {
    /// The app's `ActivityAttributes` types (`--attributes`); without it type names are judged against the
    /// names the codebase itself declares and uses most.
    public var schema: ActivitySchema?

    /// An audit judging type names against `schema` when given.
    public init(schema: ActivitySchema? = nil) { self.schema = schema }

    static let prunedDirectories: Set<String> = [
        "node_modules", "vendor", "build", "dist", "out", "target", "Pods", "Carthage", "DerivedData", "__pycache__",
        "venv", "env", "site-packages", "coverage", "bower_components", "jspm_packages", "tmp", "log", "logs",
        "test", "tests", "__tests__", "__mocks__", "spec", "specs", "Tests", "testdata", "androidTest", "e2e",
        "docs", "doc", "fixtures-test", "third_party", "third-party", "external",
        // VCS and tool folders (hidden folders are otherwise scanned)
        ".git", ".hg", ".svn", ".build", ".swiftpm", ".next", ".nuxt", ".cache", ".venv", ".tox", ".idea",
        ".vscode", ".gradle", ".yarn", ".pnpm-store", ".terraform", ".serverless", ".expo", ".mypy_cache",
        ".pytest_cache", ".bundle", ".turbo", ".parcel-cache", ".angular", ".svelte-kit", ".docusaurus",
    ]

    /// Files larger than this are not tokenized; they are scanned in chunks for payload words only.
    public static let maxAnalysedFileBytes = 2_000_000

    /// True for test files by name (`*.test.ts`, `*_test.go`, `test_*.py`, `*Tests.swift`, `*Test.java`…).
    static func isTestFile(_ name: String) -> Bool {
        let lower = name.lowercased()
        let stem = lower.split(separator: ".").first.map(String.init) ?? lower
        if lower.contains(".test.") || lower.contains(".spec.") || lower.contains("_test.") || lower.contains("_spec.") { return true }
        if stem.hasPrefix("test_") || stem == "conftest" || stem.hasSuffix("tests") || stem.hasSuffix("test") && name.first!.isUppercase { return true }
        let bare = String(name.split(separator: ".").first ?? "")
        return bare.hasSuffix("Test") || bare.hasSuffix("Tests") || bare.hasSuffix("Spec")
    }

    /// JSON files that are project metadata, never bodies.
    static let metadataJSON: Set<String> = ["package.json", "package-lock.json", "tsconfig.json", "composer.json",
                                            "composer.lock", "jsconfig.json", ".eslintrc.json", "Package.resolved",
                                            "expected.json", "angular.json", "app.json", "manifest.json"]

    private struct FileUnit {
        var path: String
        var language: SourceLanguage
        var tokens: [SourceToken]
    }

    /// Audits every source file below `root`.
    /// - Throws: ``DeviceLogError`` when `root` is not a readable directory.
    public func run(root: String) throws -> PayloadSiteReport {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw DeviceLogError(.notADirectory, input: root, "\(root): not a directory")
        }
        let rootURL = URL(fileURLWithPath: root).standardizedFileURL
        let rootPath = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        func relative(_ url: URL) -> String {
            let full = url.standardizedFileURL.path
            return full.hasPrefix(rootPath) ? String(full.dropFirst(rootPath.count)) : url.path
        }
        // Folders the walker cannot open are reported through the error handler (collected, walk goes on).
        let unreadable = UnreadableCollector()
        guard let walker = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: [.isDirectoryKey, .fileSizeKey],
                                                          options: [.skipsPackageDescendants],
                                                          errorHandler: { url, error in
                                                              unreadable.add(url, error)
                                                              return true
                                                          }) else {
            throw DeviceLogError(.unreadable, input: root, "\(root): cannot be read")
        }
        var units: [FileUnit] = []
        var skipped: [SkippedSourceFile] = []
        var scanned = 0
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .fileSizeKey])
            let name = url.lastPathComponent
            if values?.isDirectory == true {
                if Self.prunedDirectories.contains(name) || name.hasSuffix(".xcodeproj") || name.hasSuffix(".logarchive") {
                    walker.skipDescendants()
                } else if !FileManager.default.isReadableFile(atPath: url.path)
                            || !FileManager.default.isExecutableFile(atPath: url.path) {
                    skipped.append(SkippedSourceFile(file: relative(url) + "/", reason: "folder cannot be read (permission denied); its files were not scanned"))
                    walker.skipDescendants()
                }
                continue
            }
            guard let language = SourceLanguage.of(fileName: name), !Self.isTestFile(name),
                  !(language == .json && Self.metadataJSON.contains(name)) else { continue }
            let rel = relative(url)
            if let size = values?.fileSize, size > Self.maxAnalysedFileBytes {
                switch Self.largeFileMentionsPayload(path: url.path, language: language) {
                case .none: scanned += 1
                case .some(true):
                    skipped.append(SkippedSourceFile(file: rel, reason: "larger than 2 MB (\(size) bytes; minified bundle?) and mentions aps / content-state: too large to analyse. Audit the unminified source instead"))
                case .some(false):
                    skipped.append(SkippedSourceFile(file: rel, reason: "cannot be read (permission denied?); not scanned"))
                }
                continue
            }
            if let type = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType,
               type != .typeRegular, type != .typeSymbolicLink, type != .typeDirectory {
                skipped.append(SkippedSourceFile(file: rel, reason: "not a regular file (FIFO, socket or device); not scanned"))
                continue
            }
            guard let data = FileManager.default.contents(atPath: url.path) else {
                let denied = !FileManager.default.isReadableFile(atPath: url.path)
                skipped.append(SkippedSourceFile(file: rel, reason: denied ? "cannot be read (permission denied); not scanned" : "cannot be read; not scanned"))
                continue
            }
            var bytes = [UInt8](data)
            if let utf8 = Self.utf16ToUTF8(bytes) { bytes = utf8 }
            if let nul = bytes.firstIndex(of: 0) {
                skipped.append(SkippedSourceFile(file: rel, reason: "binary data (NUL byte at offset \(nul)); not scanned. A UTF-16 source needs a byte-order mark, or convert it to UTF-8"))
                continue
            }
            scanned += 1
            let hit = bytes.withUnsafeBufferPointer { Self.mentionsPayload($0, language: language) }
            guard hit else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            units.append(FileUnit(path: rel, language: language, tokens: SourceTokenizer(language: language).tokenize(text)))
        }
        for (url, reason) in unreadable.items {
            let rel = relative(url)
            guard !skipped.contains(where: { $0.file == rel || $0.file == rel + "/" }) else { continue }
            skipped.append(SkippedSourceFile(file: rel, reason: reason))
        }
        units.sort(by: { $0.path < $1.path })
        var report = analyse(units, filesScanned: scanned)
        report.skipped = skipped.sorted(by: { $0.file < $1.file })
        return report
    }

    private static let needles = ["ContentState", "contentState", "content-state", "content_state", "LiveActivity",
                                  "liveActivity", "live_activity", "liveactivity"].map { Array($0.utf8) }
    private static let swiftNeedles = needles + [Array("Attributes".utf8)]

    /// The cheap pre-filter: a file without these words builds no payload.
    static func mentionsPayload(_ buf: UnsafeBufferPointer<UInt8>, language: SourceLanguage) -> Bool {
        containsApsWord(buf) || (language == .swift ? swiftNeedles : needles).contains { DeviceLogReader.contains(buf, $0) }
    }

    /// Reads a large file in 1 MiB chunks (bounded memory) and applies the pre-filter across chunk
    /// boundaries. nil when it holds no payload word, false when it cannot be read.
    static func largeFileMentionsPayload(path: String, language: SourceLanguage) -> Bool? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        var carry: [UInt8] = []
        while true {
            let read: Data?
            do { read = try handle.read(upToCount: 1 << 20) } catch { return false }
            guard let data = read, !data.isEmpty else { return nil }  // nil: end of file
            let window = carry + [UInt8](data)
            if window.withUnsafeBufferPointer({ mentionsPayload($0, language: language) }) { return true }
            carry = Array(window.suffix(16))  // longer than the longest needle: a word cut by the chunk is seen
        }
    }

    /// UTF-16 text with a byte-order mark, as UTF-8; nil for anything else.
    static func utf16ToUTF8(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) else { return nil }
        let little = bytes[0] == 0xFF
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = 2
        while i + 1 < bytes.count {
            units.append(little ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
            i += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    /// `aps` / `APS` / `Aps` as a whole word (not `maps`, `perhaps`).
    static func containsApsWord(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        var i = 0
        while i + 2 < n {
            let c = b[i] | 0x20
            if c == 97, b[i + 1] | 0x20 == 112, b[i + 2] | 0x20 == 115 {
                let before = i == 0 ? 32 : b[i - 1]
                let after = i + 3 < n ? b[i + 3] : 32
                if !SourceTokenizer.isIdent(before), !SourceTokenizer.isIdent(after) { return true }
            }
            i += 1
        }
        return false
    }

    /// Audits in-memory files (`path` relative, `text` its contents) — the same analysis as ``run(root:)``.
    public func run(files: [(path: String, text: String)]) -> PayloadSiteReport {
        var units: [FileUnit] = []
        for f in files {
            let name = String(f.path.split(separator: "/").last ?? "")
            guard let lang = SourceLanguage.of(fileName: name), !Self.isTestFile(name) else { continue }
            units.append(FileUnit(path: f.path, language: lang, tokens: SourceTokenizer(language: lang).tokenize(f.text)))
        }
        return analyse(units, filesScanned: files.count)
    }

    // MARK: - Analysis

    struct Candidate {
        var file: String
        var outer: SourceObject
        var aps: SourceObject
        var kind: PayloadSiteKind
        var line: Int
        var endLine: Int
        var typeValue: TypeValue
        var fileIndex: Int
    }

    enum TypeValue { case none, literal(String), unresolved }

    private func analyse(_ units: [FileUnit], filesScanned: Int) -> PayloadSiteReport {
        // Pass 1: codebase facts — field aliases, constants, declared type names, type-name-like strings.
        var aliases: [String: String] = [:]
        var consts: [[String: String]] = []
        var globalConsts: [String: Set<String>] = [:]
        var declared: Set<String> = []
        var typeLikeStrings: [Set<String>] = []
        for u in units {
            let facts = Self.facts(u.tokens, language: u.language)
            aliases.merge(facts.aliases) { a, _ in a }
            consts.append(facts.consts)
            for (k, v) in facts.consts { globalConsts[k, default: []].insert(v) }
            declared.formUnion(facts.declared)
            typeLikeStrings.append(facts.typeLike)
        }
        // Pass 2: objects and sites.
        var candidates: [Candidate] = []
        for (fi, u) in units.enumerated() {
            if u.language == .json || u.language == .template {
                let kind: PayloadSiteKind = u.language == .json ? .jsonFile : .template
                for var c in sites(in: u.tokens, language: u.language, kind: kind, aliases: aliases, file: u.path, fileIndex: fi) {
                    if kind == .jsonFile { c.line = 1 }
                    candidates.append(c)
                }
                continue
            }
            candidates += sites(in: u.tokens, language: u.language, kind: .literal, aliases: aliases, file: u.path, fileIndex: fi)
            // String templates
            for (ti, t) in u.tokens.enumerated() where t.kind == .string && Self.looksLikePayloadTemplate(t.text) {
                if u.language == .python, ti > 0, u.tokens[ti - 1].text == ":", t.newlineBefore { continue } // docstring
                if ti == 0 || (t.newlineBefore && u.language == .python && !(ti > 0 && ["=", "(", ","].contains(u.tokens[ti - 1].text))) { continue }
                let inner = SourceTokenizer(language: .template).tokenize(t.text, firstLine: t.line)
                for var c in sites(in: inner, language: .template, kind: .template, aliases: aliases, file: u.path, fileIndex: fi) {
                    c.line = t.line
                    c.endLine = max(c.endLine, t.endLine)
                    candidates.append(c)
                }
            }
        }
        // Resolve attributes-type values, then judge names.
        for i in candidates.indices {
            if case .unresolved = candidates[i].typeValue, let ref = Self.typeReference(candidates[i]) {
                if let v = consts[candidates[i].fileIndex][ref] ?? globalConsts[ref].flatMap({ $0.count == 1 ? $0.first : nil }) {
                    candidates[i].typeValue = .literal(v)
                }
            }
        }
        let canonical = canonicalTypeNames(candidates: candidates, declared: declared)
        var sites: [PayloadSite] = []
        for c in candidates {
            var problems: [(FindingCode, String)] = []
            let event = Self.event(of: c)
            if c.outer !== c.aps, c.outer.has("attributes") || c.outer.has("attributes-type") {
                let keys = ["attributes-type", "attributes"].filter { c.outer.has($0) }.joined(separator: "` and `")
                problems.append(("attributes-outside-aps", "`\(keys)` built at the top level next to `aps`; the device only reads them inside `aps` (\"Incoming message does not contain usable attributes\"). Move them into the `aps` object."))
            }
            let typeName: String? = { if case .literal(let v) = c.typeValue { return v }; return nil }()
            if let attrs = c.aps.object("attributes") ?? c.outer.object("attributes") {
                // Judged on the normalised key; named as the source writes it (`alert_title`, `alertTitle`).
                let alertLike = attrs.entries.filter { Self.alertLikeKeys.contains($0.key) }
                var unknown = alertLike
                if let schema, let name = typeName, let type = schema.type(named: name), !attrs.hasSpread,
                   case .object(let shape) = type.attributes.unwrapped {
                    unknown += attrs.entries.filter { e in
                        shape.property(forKey: e.written.isEmpty ? e.key : e.written) == nil
                            && shape.property(forKey: e.key) == nil && !unknown.contains(where: { $0.key == e.key })
                    }
                }
                if !unknown.isEmpty {
                    problems.append(("unknown-attribute-key", "`attributes` holds \(unknown.map { "`\($0.written.isEmpty ? $0.key : $0.written)`" }.joined(separator: ", ")), which the attributes type does not store" + (alertLike.isEmpty ? "." : "; an alert belongs in `aps.alert` (title and body).")))
                }
            }
            switch c.typeValue {
            case .literal(let v):
                if let fix = mismatch(v, canonical: canonical) {
                    problems.append(("attributes-type-mismatch", "`attributes-type` is \"\(v)\"; \(fix)"))
                }
            case .unresolved:
                // A placeholder or variable: a wrong-case spelling of a known type in the same file (or a
                // flag / env default elsewhere) is what will be sent.
                let wrong = (typeLikeStrings[c.fileIndex].compactMap { s in mismatch(s, canonical: canonical, caseOnly: true).map { (s, $0) } }.first)
                    ?? typeLikeStrings.lazy.flatMap { $0 }.compactMap { s in self.mismatch(s, canonical: canonical, caseOnly: true).map { (s, $0) } }.first
                if let (s, fix) = wrong {
                    problems.append(("attributes-type-mismatch", "`attributes-type` comes from a value spelled \"\(s)\" in this codebase; \(fix)"))
                }
            case .none: break
            }
            if event == "start", !c.aps.hasSpread {
                let alert = c.aps.value("alert")
                var missing = alert == nil && !(c.aps.has("alert-title") && c.aps.has("alert-body"))
                if case .object(let a)? = alert, !a.hasSpread, a.callee == nil || a.callee!.contains("Alert") || a.callee == "map",
                   !(a.has("title") && a.has("body")), !a.entries.isEmpty || a.callee == nil {
                    missing = true
                }
                if missing {
                    problems.append(("missing-alert-for-start", "a start without `aps.alert` holding both `title` and `body`: the device drops it (\"Received start without an alert configuration\")."))
                }
            }
            if !c.aps.has("content-state"), !c.aps.hasSpread {
                if c.outer !== c.aps, c.outer.has("content-state") {
                    problems.append(("content-state-outside-aps", "`content-state` built at the top level; it belongs inside `aps`."))
                } else {
                    problems.append(("missing-content-state", "no `aps.content-state`: every event needs it, `end` included (\"Incoming message does not contain a payload\")."))
                }
            }
            sites.append(PayloadSite(file: c.file, line: c.line, endLine: max(c.endLine, c.line), kind: c.kind, event: event,
                                     problems: problems.map { (code: $0.0, message: $0.1) }, attributesType: typeName))
        }
        sites.sort(by: { ($0.file, $0.line) < ($1.file, $1.line) })
        return PayloadSiteReport(sites: sites, filesScanned: filesScanned)
    }

    static let alertLikeKeys: Set<String> = ["alert", "alert-title", "alert-body", "alert-subtitle", "alerttitle",
                                             "alertbody", "sound", "badge", "alert-sound"]
    static let laKeys: Set<String> = ["event", "content-state", "attributes-type", "attributes", "timestamp",
                                      "dismissal-date", "stale-date", "alert", "relevance-score", "input-push-token",
                                      "input-push-channel"]

    /// Site candidates among the objects of one token stream.
    private func sites(in tokens: [SourceToken], language: SourceLanguage, kind: PayloadSiteKind,
                       aliases: [String: String], file: String, fileIndex: Int) -> [Candidate] {
        var ex = PayloadObjectExtractor(language: language, tokens: tokens, kind: kind, aliases: aliases)
        let objects = ex.objects().filter { !$0.isDeclaration }
        var out: [Candidate] = []
        var covered: [ClosedRange<Int>] = []
        // `{"aps": aps}` where `aps` was built just before: the inner object is the site, the outer its wrapper.
        var outerFor: [ObjectIdentifier: SourceObject] = [:]
        var wrappers: Set<ObjectIdentifier> = []
        for o in objects {
            if case .reference(let name)? = o.value("aps"),
               let inner = objects.last(where: { $0.boundName == name && $0.start < o.start && Self.isApsLike($0) }) {
                outerFor[ObjectIdentifier(inner)] = o
                wrappers.insert(ObjectIdentifier(o))
            }
        }
        func isCovered(_ o: SourceObject) -> Bool { covered.contains { $0.contains(o.start) } }
        for o in objects where !isCovered(o) && !wrappers.contains(ObjectIdentifier(o)) {
            var outer = o, aps = o
            if let a = o.object("aps"), Self.isApsLike(a) || a.entries.contains(where: { ["event", "content-state", "attributes-type"].contains($0.key) }) {
                aps = a
            } else if Self.isApsLike(o) {
                if let w = outerFor[ObjectIdentifier(o)] { outer = w }
            } else {
                continue
            }
            if case .string? = aps.value("content-state"), kind != .template, kind != .jsonFile, !aps.has("event") { continue }
            var siteKind = kind
            if kind == .literal, o.kind == .builder || (o.callee.map(Self.isBuilderName) ?? false) { siteKind = .builder }
            var tv: TypeValue = .none
            switch aps.value("attributes-type") ?? outer.value("attributes-type") {
            case .string(let s)?: tv = Self.hasPlaceholder(s) ? .unresolved : .literal(s)
            case .reference?, .placeholder?, .other?: tv = .unresolved
            case .object?: tv = .unresolved
            case nil: tv = .none
            }
            let start = min(o.start, outer.start), end = max(o.end, outer.end, aps.end)
            covered.append(start...max(start, end))
            let line = outer === o ? o.line : min(o.line, outer.line)
            out.append(Candidate(file: file, outer: outer, aps: aps, kind: siteKind, line: o === aps && outer !== o ? o.line : line,
                                 endLine: max(o.endLine, outer.endLine), typeValue: tv, fileIndex: fileIndex))
        }
        return out
    }

    /// An object that is (or plays) the `aps` dictionary of a Live Activity push.
    static func isApsLike(_ o: SourceObject) -> Bool {
        let keys = Set(o.entries.map(\.key))
        guard !keys.isDisjoint(with: ["event", "content-state", "attributes-type"]) else { return false }
        let la = keys.intersection(laKeys)
        if o.kind == .builder, o.start >= 0, o.entries.count > 0, o.callee == nil || !isBuilderName(o.callee!) {
            // keys assigned one by one to a variable: needs an event (redaction / logging code touches content-state too)
            return keys.contains("event") && la.count >= 2
        }
        if let c = o.callee, isBuilderName(c), c.contains("LiveActivity") { return true }
        // `{event: body.aps.event, "content-state": …}` reads a payload; a build names its event or stamps a time.
        if keys.contains("event"), !keys.contains("timestamp"), !keys.contains("attributes-type") {
            switch o.value("event") {
            case .string(let s)?: if classifyEvent(s) == "unknown", !hasPlaceholder(s) { return false }
            case .reference(let r)?: if classifyEvent(r) == "unknown" { return false }
            case .placeholder?: break
            default: return false
            }
        }
        return la.count >= 2 && (keys.contains("event") || keys.contains("attributes-type")
                                 || keys.contains("content-state") && keys.contains("timestamp"))
    }

    static func isBuilderName(_ name: String) -> Bool {
        name.contains("Notification") || name.contains("Builder") || name.hasSuffix("Payload") || name == "NewPayload"
    }

    static func hasPlaceholder(_ s: String) -> Bool {
        s.contains("{{") || s.contains("${") || s.contains("\\(") || s.contains("#{") || s.contains("%s")
            || s.contains("%v") || s.hasPrefix("$")
    }

    static func classifyEvent(_ s: String) -> String {
            let l = s.lowercased()
            if l == "start" || l.hasSuffix(".start") || l.hasSuffix("eventstart") || l.hasSuffix("_start") { return "start" }
            if l == "update" || l.hasSuffix(".update") || l.hasSuffix("eventupdate") || l.hasSuffix("_update") { return "update" }
            if l == "end" || l.hasSuffix(".end") || l.hasSuffix("eventend") || l.hasSuffix("_end") { return "end" }
            return "unknown"
    }

    static func event(of c: Candidate) -> String {
        switch c.aps.value("event") {
        case .string(let s)?: return classifyEvent(s)
        case .reference(let r)?: return classifyEvent(r)
        case nil:
            if let callee = c.aps.callee ?? c.outer.callee, callee.contains("Start") { return "start" }
            if c.aps.has("attributes-type") || c.outer.has("attributes-type") || c.aps.has("input-push-token") { return "start" }
            return "unknown"
        default: return "unknown"
        }
    }

    static func typeReference(_ c: Candidate) -> String? {
        if case .reference(let r)? = c.aps.value("attributes-type") ?? c.outer.value("attributes-type") {
            return String(r.split(separator: ".").last ?? Substring(r))
        }
        return nil
    }

    /// A string literal that holds a JSON payload (keys quoted as JSON writes them).
    static func looksLikePayloadTemplate(_ s: String) -> Bool {
        guard s.count >= 20, s.contains("aps") || s.contains("content-state") else { return false }
        return s.contains("\"event\"") || s.contains("\"content-state\"") || s.contains("\"attributes-type\"")
            || s.contains("\\\"event\\\"") || s.contains("\\\"content-state\\\"")
    }

    // MARK: - Type names

    private func canonicalTypeNames(candidates: [Candidate], declared: Set<String>) -> [String: String] {
        // lowercase → canonical spelling
        if let schema { return Dictionary(schema.types.map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { a, _ in a }) }
        var counts: [String: [String: Int]] = [:]
        for c in candidates { if case .literal(let v) = c.typeValue { counts[v.lowercased(), default: [:]][v, default: 0] += 1 } }
        var out: [String: String] = [:]
        for (lower, spellings) in counts {
            if let d = declared.first(where: { $0.lowercased() == lower }) { out[lower] = d; continue }
            let best = spellings.max { a, b in
                a.value != b.value ? a.value < b.value : (a.key.first?.isUppercase ?? false) == false && (b.key.first?.isUppercase ?? false)
            }
            if let best { out[lower] = best.key }
        }
        for d in declared where out[d.lowercased()] == nil && d.hasSuffix("Attributes") { out[d.lowercased()] = d }
        return out
    }

    /// Why `value` is not a known type name, or nil when it is fine (or cannot be judged).
    private func mismatch(_ value: String, canonical: [String: String], caseOnly: Bool = false) -> String? {
        if let right = canonical[value.lowercased()] {
            return right == value ? nil : "the type is `\(right)` (the device compares names case-sensitively)."
        }
        guard !caseOnly, let schema else { return nil }
        let names = schema.types.map(\.name)
        return "no ActivityAttributes type of that name in --attributes (known: \(names.joined(separator: ", ")))."
    }

    // MARK: - Codebase facts

    struct Facts {
        var aliases: [String: String] = [:]
        var consts: [String: String] = [:]
        var declared: Set<String> = []
        var typeLike: Set<String> = []
    }

    static let aliasTargets: Set<String> = ["aps", "event", "content-state", "attributes-type", "attributes",
                                            "timestamp", "alert", "dismissal-date", "stale-date", "relevance-score",
                                            "input-push-token", "input-push-channel", "title", "body"]

    static func facts(_ t: [SourceToken], language: SourceLanguage) -> Facts {
        var f = Facts()
        let n = t.count
        for i in 0..<n {
            let tok = t[i]
            switch tok.kind {
            case .identifier:
                if ["struct", "class", "interface", "enum", "record", "protocol"].contains(tok.text) || (tok.text == "type" && (language == .go || language == .javascript)),
                   i + 1 < n, t[i + 1].kind == .identifier {
                    f.declared.insert(t[i + 1].text)
                }
                // NAME = "value" / NAME := "value" / NAME: str = "value"
                if i + 2 < n, t[i + 1].kind == .punct, t[i + 1].text == "=" || t[i + 1].text == ":=", t[i + 2].kind == .string,
                   i == 0 || t[i - 1].text != "." {
                    f.consts[tok.text] = t[i + 2].text
                }
                // Swift CodingKeys: case name = "json-key"
                if tok.text == "case", i + 3 < n, t[i + 1].kind == .identifier, t[i + 2].text == "=", t[i + 3].kind == .string,
                   aliasTargets.contains(t[i + 3].text) {
                    f.aliases[t[i + 1].text] = t[i + 3].text
                }
                // Annotations: @SerialName("k") / @JsonProperty("k") / @SerializedName("k") / @Json(name = "k") then the field
                if ["SerialName", "JsonProperty", "SerializedName", "Json", "JsonKey"].contains(tok.text), i >= 1, t[i - 1].text == "@" {
                    var k = i + 1
                    var key: String?
                    while k < n, k < i + 8 { if t[k].kind == .string { key = t[k].text; break }; k += 1 }
                    if let key, aliasTargets.contains(key) {
                        var j = k + 1
                        var last: String?
                        while j < n, j < k + 14 {
                            if ["val", "var"].contains(t[j].text), j + 1 < n { last = t[j + 1].text; break }
                            if [";", "=", ",", ")"].contains(t[j].text), t[j].kind == .punct, last != nil, t[j - 1].kind == .identifier { last = t[j - 1].text; break }
                            if t[j].kind == .identifier { last = t[j].text }
                            j += 1
                        }
                        if let last { f.aliases[last] = key }
                    }
                }
                // pydantic: name: T = Field(alias="k")
                if tok.text == "alias", i + 2 < n, t[i + 1].text == "=", t[i + 2].kind == .string, aliasTargets.contains(t[i + 2].text) {
                    var j = i
                    while j > 0, !t[j].newlineBefore { j -= 1 }
                    if t[j].kind == .identifier { f.aliases[t[j].text] = t[i + 2].text }
                }
            case .string:
                // Go struct tags: Field Type `json:"key,omitempty"`
                if tok.text.hasPrefix("json:\"") {
                    let rest = tok.text.dropFirst(6)
                    let key = String(rest.prefix(while: { $0 != "\"" && $0 != "," }))
                    var j = i - 1
                    while j > 0, !t[j].newlineBefore { j -= 1 }
                    if j >= 0, t[j].kind == .identifier, aliasTargets.contains(key) { f.aliases[t[j].text] = key }
                }
                let s = tok.text
                if s.count >= 4, s.count <= 80, let first = s.unicodeScalars.first, CharacterSet.letters.contains(first),
                   s.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" }) {
                    f.typeLike.insert(s)
                }
            default: break
            }
        }
        return f
    }
}

/// Collects the paths the directory walker could not open (its error handler runs synchronously).
private final class UnreadableCollector: Sendable {
    private let collected = Mutex<[(URL, String)]>([])

    /// The paths and why each was not scanned, in the order the walker met them.
    var items: [(URL, String)] { collected.withLock { $0 } }

    func add(_ url: URL, _ error: Error) {
        let cause = error as NSError
        let denied = cause.code == NSFileReadNoPermissionError || (cause.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 13
        let reason = denied ? "cannot be read (permission denied); not scanned" : "cannot be read (\(cause.localizedDescription)); not scanned"
        collected.withLock { $0.append((url, reason)) }
    }
}
