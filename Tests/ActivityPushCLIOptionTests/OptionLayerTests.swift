import Foundation
import ActivityPushCore
import Testing
@testable import activity_push

/// The option layer without a process: parsing, conversions, errors, help, and the declarations of every command.
@Suite struct OptionLayerTests {
    static let count = Option<Int>.integer("--count", help: "how many", default: 3)
    static let name = Option<String>("--name", valueName: "NAME", help: "who")
    static let tag = Option<String>("--tag", valueName: "TAG", help: "a tag", repeatable: true)
    static let verbose = Flag("--verbose", help: "say more")
    static let old = Option<Int>.integer("--old-count", help: "the old name of --count", hidden: true)
    static let keyPath = Option<String>("--key", valueName: "PATH", help: "a key", environment: "TEST_KEY")
    static let secretFile = Option<String>("--key-file", valueName: "PATH", help: "the key in a file")
    static let format = Option<OutputFormat>.format([.text, .json], default: .text)
    static let options: [OptionSpec] = OptionGroup(nil, [count, name, tag, verbose, old, keyPath, secretFile, format]).options

    func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> ParsedArguments {
        try ParsedArguments(arguments, options: Self.options, commandPath: "demo", environment: environment)
    }

    func usageError(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as UsageError { return error.description } catch { return "not a UsageError: \(error)" }
        return nil
    }

    /// The usage error `body` throws, nil when it throws none (or another error).
    func refusal(_ body: () throws -> Void) -> UsageError? {
        do { try body() } catch { return error as? UsageError }
        return nil
    }

    @Test func valuesFlagsRepeatsAndPositionals() throws {
        let parsed = try parse(["a.json", "--count", "7", "--name=ann", "--tag", "x", "--tag=y", "--verbose", "-", "--", "--count"])
        #expect(try parsed.value(Self.count) == 7)
        #expect(try parsed.value(Self.name) == "ann")
        #expect(try parsed.values(Self.tag) == ["x", "y"])
        #expect(parsed.isSet(Self.verbose))
        #expect(parsed.positionals == ["a.json", "-", "--count"])
        #expect(parsed.isGiven(Self.count) && !parsed.isGiven(Self.old))
    }

    @Test func theLastValueCountsAndFlagsCanBeTurnedOff() throws {
        let parsed = try parse(["--count", "1", "--count", "2", "--verbose=false"])
        #expect(try parsed.value(Self.count) == 2)
        #expect(!parsed.isSet(Self.verbose))
        #expect(try parse(["--verbose=yes"]).isSet(Self.verbose))
        #expect(try !parse([]).isSet(Self.verbose))
    }

    @Test func defaultsAndEnvironmentVariables() throws {
        let parsed = try parse([], environment: ["TEST_KEY": "/keys/AuthKey_X.p8"])
        #expect(try parsed.value(Self.count) == 3)
        #expect(try parsed.value(Self.name) == nil)
        #expect(try parsed.value(Self.keyPath) == "/keys/AuthKey_X.p8")
        #expect(try parse(["--key", "given.p8"], environment: ["TEST_KEY": "env.p8"]).value(Self.keyPath) == "given.p8")
        #expect(try parse([], environment: ["TEST_KEY": ""]).value(Self.keyPath) == nil)
        #expect(try parsed.value(Self.format) == .text)
        #expect(try parsed.defaultedValue(Self.count) == 3)
        #expect(try parse(["--count", "9"]).defaultedValue(Self.count) == 9)
    }

    @Test func unknownOptionsAreRefusedWithTheNearestSpelling() {
        let misspelt = refusal { _ = try parse(["--cuont", "3"]) }
        #expect(misspelt?.kind == .unknownOption && misspelt?.option == "--cuont")
        #expect(misspelt?.fix == "did you mean --count?")
        #expect(misspelt?.description == "unknown option --cuont; did you mean --count?")
        #expect(usageError { _ = try parse(["--verb"]) } == "unknown option --verb; did you mean --verbose?")
        #expect(usageError { _ = try parse(["--zzzzzzzz"]) } == "unknown option --zzzzzzzz; 'activity-push demo --help' lists the options")
    }

    @Test func badValuesNameTheOptionAndTheFix() throws {
        let noValue = refusal { _ = try parse(["--name"]) }
        #expect(noValue?.kind == .missingValue && noValue?.option == "--name")
        #expect(noValue?.description == "--name needs a value (--name NAME)")
        let notANumber = refusal { _ = try parse(["--count", "many"]).value(Self.count) }
        #expect(notANumber?.kind == .badValue && notANumber?.option == "--count")
        let notAChoice = refusal { _ = try parse(["--format", "yaml"]).value(Self.format) }
        #expect(notAChoice?.kind == .badValue && notAChoice?.option == "--format")
        #expect(notAChoice?.description == "--format must be text or json, got 'yaml'")
        #expect(refusal { try parse(["extra"]).expectNoPositionals() }?.kind == .badArguments)
        let seconds = Option<Double>.decimal("--lease", help: "lease")
        for text in ["0x10", "nan", "inf", "1e999", "ten"] {
            let parsed = try ParsedArguments(["--lease", text], options: [seconds.spec], commandPath: "demo", environment: [:])
            let refused = refusal { _ = try parsed.value(seconds) }
            #expect(refused?.kind == .badValue && refused?.option == "--lease", "\(text)")
        }
        let environment = APNsConnectionOptions.environment
        let parsed = try ParsedArguments(["--env", "prod"], options: [environment.spec], commandPath: "demo", environment: [:])
        #expect(usageError { _ = try parsed.value(environment) } == "--env must be sandbox or production, got 'prod'")
    }

    @Test func choiceListsAreWrittenAsEnglish() {
        #expect(Option<Int>.list(["a"]) == "a")
        #expect(Option<Int>.list(["a", "b"]) == "a or b")
        #expect(Option<Int>.list(["a", "b", "c"]) == "a, b or c")
    }

    @Test func aSecretComesFromTheCommandLineOrItsFileNotBoth() throws {
        #expect(try parse(["--key", "s3cret"]).secret(Self.keyPath, file: Self.secretFile) == "s3cret")
        #expect(try parse([], environment: ["TEST_KEY": "fromenv"]).secret(Self.keyPath, file: Self.secretFile) == "fromenv")
        #expect(try parse([]).secret(Self.keyPath, file: Self.secretFile) == nil)
        let both = refusal { _ = try parse(["--key", "a", "--key-file", "/dev/null"]).secret(Self.keyPath, file: Self.secretFile) }
        #expect(both?.kind == .conflictingOptions && both?.option == "--key" && both?.fix == "keep --key-file")
        #expect(both?.description == "--key and --key-file exclude each other; keep --key-file")
        let emptyFile = FileManager.default.temporaryDirectory.appendingPathComponent("empty-secret-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: emptyFile, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: emptyFile) }
        let empty = refusal { _ = try parse(["--key-file", emptyFile]).secret(Self.keyPath, file: Self.secretFile) }
        #expect(empty?.kind == .badInput && empty?.option == "--key-file" && empty?.file == emptyFile)
    }

    @Test func helpIsWrittenFromTheDeclarations() {
        let command = Command(name: "demo", summary: "a demo", synopsis: ["FILE [options]"],
                              groups: [OptionGroup(Self.count, Self.verbose, Self.old), OptionGroup("more", [Self.tag, Self.keyPath, Self.format])],
                              notes: "exit: 0 fine") { _ in 0 }
        let help = command.help(path: "demo")
        let lines = help.split(separator: "\n").map(String.init)
        #expect(lines.first == "usage: activity-push demo FILE [options]")
        #expect(lines.contains { $0.hasPrefix("  --count N") && $0.hasSuffix("how many (default 3)") })
        #expect(lines.contains { $0.hasPrefix("  --verbose ") && $0.hasSuffix("say more") })
        #expect(lines.contains("more:"))
        #expect(lines.contains { $0.hasPrefix("  --tag TAG") && $0.hasSuffix("a tag (repeatable)") })
        #expect(lines.contains { $0.hasSuffix("a key (or env TEST_KEY)") })
        #expect(lines.contains { $0.hasPrefix("  --format text|json") && $0.hasSuffix("(default text)") })
        #expect(!help.contains("--old-count"))
        #expect(lines.last == "exit: 0 fine")
    }

    /// Every command's help shows every option it accepts (but the hidden old names), and no command declares
    /// one spelling twice with different meanings.
    @Test func everyCommandsHelpListsItsOptions() {
        func check(_ command: Command, path: String) {
            if !command.subcommands.isEmpty {
                let help = command.help(path: path)
                for subcommand in command.subcommands {
                    #expect(help.contains("  " + subcommand.name), "\(path) help lists \(subcommand.name)")
                    check(subcommand, path: path + " " + subcommand.name)
                }
                return
            }
            #expect(command.run != nil, "\(path) runs")
            let help = command.help(path: path)
            var seen: [String: OptionSpec] = [:]
            for option in command.options {
                if let earlier = seen[option.name] { #expect(earlier == option, "\(path) declares \(option.name) twice") }
                seen[option.name] = option
                if !option.isHidden { #expect(help.contains("  " + option.usageText + " "), "\(path) help shows \(option.name)") }
            }
        }
        for command in ActivityPushCLI.commands { check(command, path: command.name) }
    }

    @Test func commandsAndSubcommandsAreFoundByName() {
        let commands = ActivityPushCLI.commands
        guard case .run(let queue, let path, let arguments) = ActivityPushCLI.resolve(["queue", "status", "--format", "json"], commands: commands) else {
            Issue.record("queue status did not resolve")
            return
        }
        #expect(queue.name == "status" && path == "queue status" && arguments == ["--format", "json"])
        guard case .finished(let unknown) = ActivityPushCLI.resolve(["chekc"], commands: commands),
              case .finished(let unknownSubcommand) = ActivityPushCLI.resolve(["queue", "stats"], commands: commands) else {
            Issue.record("unknown names ran")
            return
        }
        #expect(unknown == 2 && unknownSubcommand == 2)
        guard case .finished(let version) = ActivityPushCLI.resolve(["--version"], commands: commands) else {
            Issue.record("--version ran a command")
            return
        }
        #expect(version == 0)
    }

    @Test func theAPNsConnectionGroupIsReadOneWay() throws {
        let options = APNsConnectionOptions.group.options
        func connection(_ arguments: [String]) throws -> APNsConnectionOptions {
            try APNsConnectionOptions(ParsedArguments(arguments, options: options, commandPath: "demo", environment: [:]))
        }
        let plain = try connection([])
        #expect(plain.environment == .sandbox && plain.namedEnvironment == .sandbox && plain.serverURL == nil)
        let production = try connection(["--env", "production", "--auth-key", "/keys/AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"])
        #expect(production.environment == .production)
        #expect(production.keyID == "ABC123DEFG")
        let credentials = try production.requireCredentials()
        #expect(credentials.keyID == "ABC123DEFG" && credentials.teamID == "TEAM123456")
        let mock = try connection(["--env", "production", "--url", "http://127.0.0.1:2197/"])
        #expect(mock.environment == .custom("http://127.0.0.1:2197") && mock.namedEnvironment == .production)
        let userInURL = refusal { _ = try connection(["--url", "https://user:pw@example.com"]) }
        #expect(userInURL?.kind == .badValue && userInURL?.option == "--url")
        let noKey = refusal { try connection([]).requireCredentials() }
        #expect(noKey?.kind == .missingOption && noKey?.option == "--auth-key")
        let noKeyID = refusal { try connection(["--auth-key", "key.p8"]).requireCredentials() }
        #expect(noKeyID?.kind == .missingOption && noKeyID?.option == "--key-id")
        let teamWithoutKey = refusal { _ = try connection(["--team-id", "T"]).optionalProviderToken() }
        #expect(teamWithoutKey?.kind == .conflictingOptions && teamWithoutKey?.option == "--auth-key")
        let missingKeyFile = refusal {
            _ = try connection(["--auth-key", "/nonexistent/AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"]).providerToken()
        }
        #expect(missingKeyFile?.kind == .refused && missingKeyFile?.cause == "unreadable-key-file")
        #expect(missingKeyFile?.file == "/nonexistent/AuthKey_ABC123DEFG.p8")
        #expect(try connection([]).optionalProviderToken() == nil)
    }

    @Test func theActivitiesBudgetsAreBadValuesOfTheirOption() throws {
        let options = ActivitiesOptions.common.options
        func budgets(_ arguments: [String]) throws {
            _ = try ActivitiesCommandSupport.budgets(ParsedArguments(arguments, options: options, commandPath: "demo", environment: [:]))
        }
        let noStarts = refusal { try budgets(["--push-to-start-budget", "0"]) }
        #expect(noStarts?.kind == .badValue && noStarts?.option == "--push-to-start-budget")
        let negative = refusal { try budgets(["--priority-10-budget", "-1"]) }
        #expect(negative?.kind == .badValue && negative?.option == "--priority-10-budget")
        #expect(refusal { try budgets([]) } == nil)
    }

    @Test func channelsCreateRefusalsHaveKindsAndOptions() async throws {
        let options = [OptionGroup(CommonOptions.database, CommonOptions.bundleID(), ChannelsCLI.storagePolicy,
                                   ChannelsCLI.activityID, ChannelsCLI.format),
                       APNsConnectionOptions.group].flatMap(\.options)
        func create(_ arguments: [String]) async -> UsageError? {
            do {
                _ = try await ChannelsCLI.run(.create, ParsedArguments(arguments, options: options, commandPath: "channels create",
                                                                       environment: [:]))
            } catch { return error as? UsageError }
            return nil
        }
        let noBundle = await create(["--storage-policy", "0"])
        #expect(noBundle?.kind == .missingOption && noBundle?.option == "--bundle-id")
        let noPolicy = await create(["--bundle-id", "com.example.app"])
        #expect(noPolicy?.kind == .missingOption && noPolicy?.option == "--storage-policy")
        let badPolicy = await create(["--bundle-id", "com.example.app", "--storage-policy", "2"])
        #expect(badPolicy?.kind == .badValue && badPolicy?.option == "--storage-policy")
        let extra = await create(["--bundle-id", "com.example.app", "--storage-policy", "0", "surplus"])
        #expect(extra?.kind == .badArguments && extra?.option == nil)
        let linked = await create(["--bundle-id", "com.example.app", "--storage-policy", "0", "--activity-id", "a1"])
        #expect(linked?.kind == .conflictingOptions && linked?.option == "--activity-id" && linked?.fix != nil)
    }

    @Test func editDistance() {
        #expect(EditDistance.between("", "abc") == 3)
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.between("same", "same") == 0)
    }
}
