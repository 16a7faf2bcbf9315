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
        var offset = 2
        while offset + 1 < bytes.count {
            units.append(little ? UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 : UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))
            offset += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    /// `aps` / `APS` / `Aps` as a whole word (not `maps`, `perhaps`).
    static func containsApsWord(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = b.count
        var offset = 0
        while offset + 2 < count {
            let lowered = b[offset] | 0x20
            if lowered == 97, b[offset + 1] | 0x20 == 112, b[offset + 2] | 0x20 == 115 {
                let before = offset == 0 ? 32 : b[offset - 1]
                let after = offset + 3 < count ? b[offset + 3] : 32
                if !SourceTokenizer.isIdent(before), !SourceTokenizer.isIdent(after) { return true }
            }
            offset += 1
        }
        return false
    }

    /// Audits in-memory files (`path` relative, `text` its contents) — the same analysis as ``run(root:)``.
    public func run(files: [(path: String, text: String)]) -> PayloadSiteReport {
        var units: [FileUnit] = []
        for file in files {
            let name = String(file.path.split(separator: "/").last ?? "")
            guard let lang = SourceLanguage.of(fileName: name), !Self.isTestFile(name) else { continue }
            units.append(FileUnit(path: file.path, language: lang, tokens: SourceTokenizer(language: lang).tokenize(file.text)))
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
        for unit in units {
            let facts = Self.facts(unit.tokens, language: unit.language)
            aliases.merge(facts.aliases) { a, _ in a }
            consts.append(facts.consts)
            for (k, v) in facts.consts { globalConsts[k, default: []].insert(v) }
            declared.formUnion(facts.declared)
            typeLikeStrings.append(facts.typeLike)
        }
        // Pass 2: objects and sites.
        var candidates: [Candidate] = []
        for (fileIndex, unit) in units.enumerated() {
            if unit.language == .json || unit.language == .template {
                let kind: PayloadSiteKind = unit.language == .json ? .jsonFile : .template
                for var site in sites(in: unit.tokens, language: unit.language, kind: kind, aliases: aliases, file: unit.path, fileIndex: fileIndex) {
                    if kind == .jsonFile { site.line = 1 }
                    candidates.append(site)
                }
                continue
            }
            candidates += sites(in: unit.tokens, language: unit.language, kind: .literal, aliases: aliases, file: unit.path, fileIndex: fileIndex)
            // String templates
            for (tokenIndex, token) in unit.tokens.enumerated() where token.kind == .string && Self.looksLikePayloadTemplate(token.text) {
                if unit.language == .python, tokenIndex > 0, unit.tokens[tokenIndex - 1].text == ":", token.newlineBefore { continue } // docstring
                if tokenIndex == 0 || (token.newlineBefore && unit.language == .python && !(tokenIndex > 0 && ["=", "(", ","].contains(unit.tokens[tokenIndex - 1].text))) { continue }
                let inner = SourceTokenizer(language: .template).tokenize(token.text, firstLine: token.line)
                for var site in sites(in: inner, language: .template, kind: .template, aliases: aliases, file: unit.path, fileIndex: fileIndex) {
                    site.line = token.line
                    site.endLine = max(site.endLine, token.endLine)
                    candidates.append(site)
                }
            }
        }
        // Resolve attributes-type values, then judge names.
        for index in candidates.indices {
            if case .unresolved = candidates[index].typeValue, let ref = Self.typeReference(candidates[index]) {
                if let resolved = consts[candidates[index].fileIndex][ref] ?? globalConsts[ref].flatMap({ $0.count == 1 ? $0.first : nil }) {
                    candidates[index].typeValue = .literal(resolved)
                }
            }
        }
        let canonical = canonicalTypeNames(candidates: candidates, declared: declared)
        var sites: [PayloadSite] = []
        for candidate in candidates {
            var problems: [(FindingCode, String)] = []
            let event = Self.event(of: candidate)
            if candidate.outer !== candidate.aps, candidate.outer.has("attributes") || candidate.outer.has("attributes-type") {
                let keys = ["attributes-type", "attributes"].filter { candidate.outer.has($0) }.joined(separator: "` and `")
                problems.append(("attributes-outside-aps", "`\(keys)` built at the top level next to `aps`; the device only reads them inside `aps` (\"Incoming message does not contain usable attributes\"). Move them into the `aps` object."))
            }
            let typeName: String? = { if case .literal(let name) = candidate.typeValue { return name }; return nil }()
            if let attrs = candidate.aps.object("attributes") ?? candidate.outer.object("attributes") {
                // Judged on the normalised key; named as the source writes it (`alert_title`, `alertTitle`).
                let alertLike = attrs.entries.filter { Self.alertLikeKeys.contains($0.key) }
                var unknown = alertLike
                if let schema, let name = typeName, let type = schema.type(named: name), !attrs.hasSpread,
                   case .object(let shape) = type.attributes.unwrapped {
                    unknown += attrs.entries.filter { entry in
                        shape.property(forKey: entry.written.isEmpty ? entry.key : entry.written) == nil
                            && shape.property(forKey: entry.key) == nil && !unknown.contains(where: { $0.key == entry.key })
                    }
                }
                if !unknown.isEmpty {
                    problems.append(("unknown-attribute-key", "`attributes` holds \(unknown.map { "`\($0.written.isEmpty ? $0.key : $0.written)`" }.joined(separator: ", ")), which the attributes type does not store" + (alertLike.isEmpty ? "." : "; an alert belongs in `aps.alert` (title and body).")))
                }
            }
            switch candidate.typeValue {
            case .literal(let spelling):
                if let fix = mismatch(spelling, canonical: canonical) {
                    problems.append(("attributes-type-mismatch", "`attributes-type` is \"\(spelling)\"; \(fix)"))
                }
            case .unresolved:
                // A placeholder or variable: a wrong-case spelling of a known type in the same file (or a
                // flag / env default elsewhere) is what will be sent.
                let wrong = (typeLikeStrings[candidate.fileIndex].compactMap { s in mismatch(s, canonical: canonical, caseOnly: true).map { (s, $0) } }.first)
                    ?? typeLikeStrings.lazy.flatMap { $0 }.compactMap { s in self.mismatch(s, canonical: canonical, caseOnly: true).map { (s, $0) } }.first
                if let (s, fix) = wrong {
                    problems.append(("attributes-type-mismatch", "`attributes-type` comes from a value spelled \"\(s)\" in this codebase; \(fix)"))
                }
            case .none: break
            }
            if event == "start", !candidate.aps.hasSpread {
                let alert = candidate.aps.value("alert")
                var missing = alert == nil && !(candidate.aps.has("alert-title") && candidate.aps.has("alert-body"))
                if case .object(let alertObject)? = alert, !alertObject.hasSpread, alertObject.callee == nil || alertObject.callee!.contains("Alert") || alertObject.callee == "map",
                   !(alertObject.has("title") && alertObject.has("body")), !alertObject.entries.isEmpty || alertObject.callee == nil {
                    missing = true
                }
                if missing {
                    problems.append(("missing-alert-for-start", "a start without `aps.alert` holding both `title` and `body`: the device drops it (\"Received start without an alert configuration\")."))
                }
            }
            if !candidate.aps.has("content-state"), !candidate.aps.hasSpread {
                if candidate.outer !== candidate.aps, candidate.outer.has("content-state") {
                    problems.append(("content-state-outside-aps", "`content-state` built at the top level; it belongs inside `aps`."))
                } else {
                    problems.append(("missing-content-state", "no `aps.content-state`: every event needs it, `end` included (\"Incoming message does not contain a payload\")."))
                }
            }
            sites.append(PayloadSite(file: candidate.file, line: candidate.line, endLine: max(candidate.endLine, candidate.line), kind: candidate.kind, event: event,
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
        for object in objects {
            if case .reference(let name)? = object.value("aps"),
               let inner = objects.last(where: { $0.boundName == name && $0.start < object.start && Self.isApsLike($0) }) {
                outerFor[ObjectIdentifier(inner)] = object
                wrappers.insert(ObjectIdentifier(object))
            }
        }
        func isCovered(_ o: SourceObject) -> Bool { covered.contains { $0.contains(o.start) } }
        for object in objects where !isCovered(object) && !wrappers.contains(ObjectIdentifier(object)) {
            var outer = object, aps = object
            if let nested = object.object("aps"), Self.isApsLike(nested) || nested.entries.contains(where: { ["event", "content-state", "attributes-type"].contains($0.key) }) {
                aps = nested
            } else if Self.isApsLike(object) {
                if let wrapper = outerFor[ObjectIdentifier(object)] { outer = wrapper }
            } else {
                continue
            }
            if case .string? = aps.value("content-state"), kind != .template, kind != .jsonFile, !aps.has("event") { continue }
            var siteKind = kind
            if kind == .literal, object.kind == .builder || (object.callee.map(Self.isBuilderName) ?? false) { siteKind = .builder }
            var tv: TypeValue = .none
            switch aps.value("attributes-type") ?? outer.value("attributes-type") {
            case .string(let text)?: tv = Self.hasPlaceholder(text) ? .unresolved : .literal(text)
            case .reference?, .placeholder?, .other?: tv = .unresolved
            case .object?: tv = .unresolved
            case nil: tv = .none
            }
            let start = min(object.start, outer.start), end = max(object.end, outer.end, aps.end)
            covered.append(start...max(start, end))
            let line = outer === object ? object.line : min(object.line, outer.line)
            out.append(Candidate(file: file, outer: outer, aps: aps, kind: siteKind, line: object === aps && outer !== object ? object.line : line,
                                 endLine: max(object.endLine, outer.endLine), typeValue: tv, fileIndex: fileIndex))
        }
        return out
    }

    /// An object that is (or plays) the `aps` dictionary of a Live Activity push.
    static func isApsLike(_ object: SourceObject) -> Bool {
        let keys = Set(object.entries.map(\.key))
        guard !keys.isDisjoint(with: ["event", "content-state", "attributes-type"]) else { return false }
        let la = keys.intersection(laKeys)
        if object.kind == .builder, object.start >= 0, object.entries.count > 0, object.callee == nil || !isBuilderName(object.callee!) {
            // keys assigned one by one to a variable: needs an event (redaction / logging code touches content-state too)
            return keys.contains("event") && la.count >= 2
        }
        if let callee = object.callee, isBuilderName(callee), callee.contains("LiveActivity") { return true }
        // `{event: body.aps.event, "content-state": …}` reads a payload; a build names its event or stamps a time.
        if keys.contains("event"), !keys.contains("timestamp"), !keys.contains("attributes-type") {
            switch object.value("event") {
            case .string(let text)?: if classifyEvent(text) == "unknown", !hasPlaceholder(text) { return false }
            case .reference(let reference)?: if classifyEvent(reference) == "unknown" { return false }
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

    static func classifyEvent(_ value: String) -> String {
            let lowered = value.lowercased()
            if lowered == "start" || lowered.hasSuffix(".start") || lowered.hasSuffix("eventstart") || lowered.hasSuffix("_start") { return "start" }
            if lowered == "update" || lowered.hasSuffix(".update") || lowered.hasSuffix("eventupdate") || lowered.hasSuffix("_update") { return "update" }
            if lowered == "end" || lowered.hasSuffix(".end") || lowered.hasSuffix("eventend") || lowered.hasSuffix("_end") { return "end" }
            return "unknown"
    }

    static func event(of candidate: Candidate) -> String {
        switch candidate.aps.value("event") {
        case .string(let text)?: return classifyEvent(text)
        case .reference(let reference)?: return classifyEvent(reference)
        case nil:
            if let callee = candidate.aps.callee ?? candidate.outer.callee, callee.contains("Start") { return "start" }
            if candidate.aps.has("attributes-type") || candidate.outer.has("attributes-type") || candidate.aps.has("input-push-token") { return "start" }
            return "unknown"
        default: return "unknown"
        }
    }

    static func typeReference(_ candidate: Candidate) -> String? {
        if case .reference(let reference)? = candidate.aps.value("attributes-type") ?? candidate.outer.value("attributes-type") {
            return String(reference.split(separator: ".").last ?? Substring(reference))
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
        for candidate in candidates { if case .literal(let spelling) = candidate.typeValue { counts[spelling.lowercased(), default: [:]][spelling, default: 0] += 1 } }
        var out: [String: String] = [:]
        for (lower, spellings) in counts {
            if let name = declared.first(where: { $0.lowercased() == lower }) { out[lower] = name; continue }
            let best = spellings.max { a, b in
                a.value != b.value ? a.value < b.value : (a.key.first?.isUppercase ?? false) == false && (b.key.first?.isUppercase ?? false)
            }
            if let best { out[lower] = best.key }
        }
        for name in declared where out[name.lowercased()] == nil && name.hasSuffix("Attributes") { out[name.lowercased()] = name }
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

    static func facts(_ tokens: [SourceToken], language: SourceLanguage) -> Facts {
        var found = Facts()
        let tokenCount = tokens.count
        for index in 0..<tokenCount {
            let tok = tokens[index]
            switch tok.kind {
            case .identifier:
                if ["struct", "class", "interface", "enum", "record", "protocol"].contains(tok.text) || (tok.text == "type" && (language == .go || language == .javascript)),
                   index + 1 < tokenCount, tokens[index + 1].kind == .identifier {
                    found.declared.insert(tokens[index + 1].text)
                }
                // NAME = "value" / NAME := "value" / NAME: str = "value"
                if index + 2 < tokenCount, tokens[index + 1].kind == .punct, tokens[index + 1].text == "=" || tokens[index + 1].text == ":=", tokens[index + 2].kind == .string,
                   index == 0 || tokens[index - 1].text != "." {
                    found.consts[tok.text] = tokens[index + 2].text
                }
                // Swift CodingKeys: case name = "json-key"
                if tok.text == "case", index + 3 < tokenCount, tokens[index + 1].kind == .identifier, tokens[index + 2].text == "=", tokens[index + 3].kind == .string,
                   aliasTargets.contains(tokens[index + 3].text) {
                    found.aliases[tokens[index + 1].text] = tokens[index + 3].text
                }
                // Annotations: @SerialName("k") / @JsonProperty("k") / @SerializedName("k") / @Json(name = "k") then the field
                if ["SerialName", "JsonProperty", "SerializedName", "Json", "JsonKey"].contains(tok.text), index >= 1, tokens[index - 1].text == "@" {
                    var keyIndex = index + 1
                    var key: String?
                    while keyIndex < tokenCount, keyIndex < index + 8 { if tokens[keyIndex].kind == .string { key = tokens[keyIndex].text; break }; keyIndex += 1 }
                    if let key, aliasTargets.contains(key) {
                        var scan = keyIndex + 1
                        var last: String?
                        while scan < tokenCount, scan < keyIndex + 14 {
                            if ["val", "var"].contains(tokens[scan].text), scan + 1 < tokenCount { last = tokens[scan + 1].text; break }
                            if [";", "=", ",", ")"].contains(tokens[scan].text), tokens[scan].kind == .punct, last != nil, tokens[scan - 1].kind == .identifier { last = tokens[scan - 1].text; break }
                            if tokens[scan].kind == .identifier { last = tokens[scan].text }
                            scan += 1
                        }
                        if let last { found.aliases[last] = key }
                    }
                }
                // pydantic: name: T = Field(alias="k")
                if tok.text == "alias", index + 2 < tokenCount, tokens[index + 1].text == "=", tokens[index + 2].kind == .string, aliasTargets.contains(tokens[index + 2].text) {
                    var scan = index
                    while scan > 0, !tokens[scan].newlineBefore { scan -= 1 }
                    if tokens[scan].kind == .identifier { found.aliases[tokens[scan].text] = tokens[index + 2].text }
                }
            case .string:
                // Go struct tags: Field Type `json:"key,omitempty"`
                if tok.text.hasPrefix("json:\"") {
                    let rest = tok.text.dropFirst(6)
                    let key = String(rest.prefix(while: { $0 != "\"" && $0 != "," }))
                    var scan = index - 1
                    while scan > 0, !tokens[scan].newlineBefore { scan -= 1 }
                    if scan >= 0, tokens[scan].kind == .identifier, aliasTargets.contains(key) { found.aliases[tokens[scan].text] = key }
                }
                let text = tok.text
                if text.count >= 4, text.count <= 80, let first = text.unicodeScalars.first, CharacterSet.letters.contains(first),
                   text.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" }) {
                    found.typeLike.insert(text)
                }
            default: break
            }
        }
        return found
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
