import Foundation

/// Reads `ActivityAttributes` types from the app's own Swift source files, without a compiler: a small
/// Swift lexer and declaration-level parser, then Swift's name lookup over every file given.
///
/// What it models is what the device's default `JSONDecoder` does with synthesized `Decodable`
/// (`deferredToDate` dates, `CodingKeys`, optionals by `decodeIfPresent`, `let` with an initial value not
/// decoded, `var` with an initial value still required, enums by raw value or in the keyed form).
/// A custom `init(from:)` of the single-value shape is read (the type it decodes; a `Date` built with
/// `timeIntervalSince1970` is UNIX seconds). Other custom decoders, a type declared in no file given, generics,
/// recursion and wrappers from elsewhere become ``ValueShape/unresolved(typeName:reason:)`` — their values are not
/// judged — unless `activity-push.units` next to the sources declares their shape (``UnitDeclarations``).
public enum SwiftSourceReader {
    /// The largest source file read (an `ActivityAttributes` file is a few KB); a larger one is refused from
    /// its size, unread.
    public static let maxFileBytes = 8 << 20

    /// Reads every `.swift` file given (folders: every `.swift` file below them, sorted; hidden folders
    /// such as `.build` are skipped).
    /// - Throws: ``SchemaReadError`` when a path is unreadable, a folder holds no `.swift` file, a file has a
    ///   syntax problem that prevents reading (unterminated string or comment, unbalanced braces, `#if`
    ///   without `#endif`; the error names file:line), a type or declaration nested deeper than the reader's
    ///   limit (48 levels, named in the message), a file over ``maxFileBytes``, or no file declares a type conforming to `ActivityAttributes`.
    public static func read(paths: [String]) throws(SchemaReadError) -> ActivitySchema {
        guard !paths.isEmpty else {
            throw SchemaReadError(.noSource, "no Swift source given",
                                  fix: "pass the .swift file (or folder) that declares your ActivityAttributes type")
        }
        var files: [String] = []
        var unitFiles: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw SchemaReadError(.notFound, file: path, "cannot read '\(path)': no such file or folder",
                                      fix: "pass an existing .swift file or a folder that contains them")
            }
            if isDirectory.boolValue {
                let found = swiftFiles(below: path)
                guard !found.isEmpty else {
                    throw SchemaReadError(.noSwiftFile, file: path, "'\(path)' contains no .swift file",
                                          fix: "pass the folder (or file) that declares your ActivityAttributes type, e.g. the widget extension's sources")
                }
                files += found
                unitFiles += unitsFiles(below: path)
            } else {
                files.append(path)
                let sibling = (path as NSString).deletingLastPathComponent
                let candidate = (sibling.isEmpty ? "." : sibling) + "/" + UnitDeclarations.fileName
                if fm.fileExists(atPath: candidate) { unitFiles.append(candidate) }
            }
        }
        var units = UnitDeclarations()
        for file in Set(unitFiles).sorted() {
            guard let data = fm.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw SchemaReadError(.badUnits, file: file, "cannot read '\(file)' (UTF-8 text expected)",
                                      fix: "check the file and its permissions")
            }
            try units.add(text: text, file: file)
        }
        var sources: [(file: String, text: String)] = []
        for file in files {
            if let size = (try? fm.attributesOfItem(atPath: file))?[.size] as? Int, size > maxFileBytes {
                throw SchemaReadError(.tooLarge, file: file, "'\(file)' is \(size >> 20) MB, over the \(maxFileBytes >> 20) MB limit for a Swift source file",
                                      fix: "pass the files that declare your ActivityAttributes types")
            }
            guard let data = fm.contents(atPath: file) else {
                throw SchemaReadError(.unreadable, file: file, "cannot read '\(file)': permission denied or not a regular file",
                                      fix: "check the path and its permissions")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw SchemaReadError(.notUTF8, file: file, "'\(file)' is not UTF-8 text", fix: "pass Swift source files (UTF-8)")
            }
            sources.append((file, text))
        }
        // A declaration naming nothing read is an error when whole folders were read (every type is there);
        // reading single files, the folder's units file may name types in files not given.
        let allFolders = paths.allSatisfy { path in
            var isDirectory: ObjCBool = false
            return fm.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        return try read(sources: sources, units: units, unknownUnitsAreErrors: allFolders)
    }

    /// Every `activity-push.units` file below `folder` (hidden folders skipped).
    static func unitsFiles(below folder: String) -> [String] {
        let base = URL(fileURLWithPath: folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker where url.lastPathComponent == UnitDeclarations.fileName {
            found.append(folder.hasSuffix("/") ? folder + relative(url, base) : folder + "/" + relative(url, base))
        }
        return found.sorted()
    }

    /// Reads source text given in memory (`file` is the name used in locations and errors).
    /// - Throws: ``SchemaReadError`` for a syntax problem that prevents reading (naming file:line) or when
    ///   no source declares a type conforming to `ActivityAttributes`.
    /// - Parameter units: shapes declared in `activity-push.units` files (see ``UnitDeclarations``); a
    ///   declaration naming no type or property read throws, naming its file:line.
    public static func read(sources: [(file: String, text: String)], units: UnitDeclarations = UnitDeclarations(),
                            unknownUnitsAreErrors: Bool = true) throws(SchemaReadError) -> ActivitySchema {
        var all = SwiftDeclarations()
        for source in sources {
            do {
                let decls = try SwiftDeclarationParser.parse(text: source.text, file: source.file)
                all.types += decls.types
                all.typealiases += decls.typealiases
                all.decodeOverloads.merge(decls.decodeOverloads) { first, _ in first }
            } catch {
                let fix = error.fix ?? "the file must compile as Swift; correct the syntax there (or pass only the files that declare your ActivityAttributes types and the types they use)"
                throw SchemaReadError(.syntax, file: source.file, line: error.line, error.message, fix: fix)
            }
        }
        var resolver = SwiftSchemaResolver(all, units: units)
        if unknownUnitsAreErrors, let unknown = resolver.unknownUnitNames().first {
            throw SchemaReadError(.badUnits, "\(unknown.location): \(unknown.name) names no type, and no property of a type, in the Swift files read",
                                  fix: "write the type's qualified Swift name (Outer.Inner) or Type.property, as declared")
        }
        let types = resolver.activityAttributesTypes()
        guard !types.isEmpty else {
            let names = sources.map { ($0.file as NSString).lastPathComponent }
            let list = names.count > 5 ? names.prefix(5).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
            throw SchemaReadError(.noActivityAttributes,
                                  "none of the \(sources.count) file(s) read (\(list)) declares a type conforming to ActivityAttributes",
                                  fix: "pass the file that declares `struct …: ActivityAttributes` (or `extension …: ActivityAttributes`) and the files of the types it uses")
        }
        return ActivitySchema(types: types, files: sources.map(\.file))
    }

    /// Every `.swift` file below `folder`, sorted, skipping hidden folders (`.build`, `.git`).
    static func swiftFiles(below folder: String) -> [String] {
        let base = URL(fileURLWithPath: folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(folder.hasSuffix("/") ? folder + relative(url, base) : folder + "/" + relative(url, base))
            }
        }
        return found.sorted()
    }

    private static func relative(_ url: URL, _ base: URL) -> String {
        let full = url.standardizedFileURL.path
        let root = base.standardizedFileURL.path
        if full.hasPrefix(root + "/") { return String(full.dropFirst(root.count + 1)) }
        return url.lastPathComponent
    }
}
