import ActivityPushCore
import Foundation

/// `activity-push <command> [options]`: finds the command, parses its options against its declarations, runs
/// it, and exits with its status — 0 and 1 as each command defines them, 2 for a usage error (one line on
/// standard error, after `activity-push <command>:`).
@main
struct ActivityPushCLI {
    /// Every command, in the order the command list shows them; each is declared in its own file.
    static let commands: [Command] = [
        checkCommand,
        buildCommand,
        benchCommand,
        logsCommand,
        auditCommand,
        sendCommand,
        mockAPNsCommand,
        schemaCommand,
        serveCommand,
        queueCommand,
        workerCommand,
        activitiesCommand,
        channelsCommand,
    ]

    static func main() async {
        // A peer or a pipe that closes mid-write is an error on that write, never the end of the process (SIGPIPE
        // would kill `send`, `worker` or `serve` with exit 141 and lose what they hold).
        signal(SIGPIPE, SIG_IGN)
        switch resolve(Array(CommandLine.arguments.dropFirst()), commands: commands) {
        case .finished(let status):
            exit(status)
        case .run(let command, let path, let arguments):
            // Before the command does anything, so no signal goes uncaught once it has started (see StopSignals).
            if command.stopsOnSignals { StopSignals.install() }
            exit(await execute(command, path: path, arguments: arguments))
        }
    }

    /// The command list for `activity-push --help`.
    static func usage(_ commands: [Command]) -> String {
        var text = "usage: activity-push <command> [options]\n\ncommands:\n"
        for command in commands {
            text += "  " + command.name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        return text + "\nRun 'activity-push <command> --help' for a command's options; 'activity-push --version' prints the version."
    }

    /// What the command line asks for: a command to run, or an answer already given (help, an unknown name).
    enum Resolution {
        case finished(Int32)
        case run(Command, path: String, arguments: [String])
    }

    /// Finds the command (and subcommand) `arguments` name, printing help or the error when there is nothing to
    /// run.
    static func resolve(_ arguments: [String], commands: [Command]) -> Resolution {
        guard let name = arguments.first, name != "--help", name != "-h", name != "help" else {
            print(usage(commands))
            return .finished(arguments.isEmpty ? 2 : 0)
        }
        if name == "--version" || name == "version" {
            print("activity-push \(ActivityPushVersion.current)")
            return .finished(0)
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            let nearest = commands.map(\.name).min { EditDistance.between(name, $0) < EditDistance.between(name, $1) }
            let suggestion = nearest.flatMap { EditDistance.between(name, $0) <= 2 ? "did you mean '\($0)'? " : nil } ?? ""
            printError("activity-push: unknown command '\(name)'; \(suggestion)run 'activity-push --help' for the list of commands")
            return .finished(2)
        }
        return resolve(command, path: name, arguments: Array(arguments.dropFirst()))
    }

    private static func resolve(_ command: Command, path: String, arguments: [String]) -> Resolution {
        if !command.subcommands.isEmpty {
            guard let name = arguments.first, name != "--help", name != "-h" else {
                print(command.help(path: path))
                return .finished(arguments.isEmpty ? 2 : 0)
            }
            guard let subcommand = command.subcommands.first(where: { $0.name == name }) else {
                let known = command.subcommands.map(\.name).joined(separator: ", ")
                printError("activity-push \(path): unknown \(path) subcommand '\(name)' (\(known))")
                return .finished(2)
            }
            return resolve(subcommand, path: path + " " + name, arguments: Array(arguments.dropFirst()))
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(command.help(path: path))
            return .finished(0)
        }
        return .run(command, path: path, arguments: arguments)
    }

    /// Parses the command's options and runs it; a usage error (or any error it throws) is exit 2.
    static func execute(_ command: Command, path: String, arguments: [String]) async -> Int32 {
        guard let body = command.run else { return 2 }
        do {
            let parsed = try ParsedArguments(arguments, options: command.options, commandPath: path)
            return try await body(parsed)
        } catch {
            printError("activity-push \(path): \(error)")
            return 2
        }
    }
}
