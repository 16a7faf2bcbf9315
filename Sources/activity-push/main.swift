import Foundation

/// One subcommand: `run` returns the process exit status. Each command lives in its own file.
struct Command: Sendable {
    let name: String
    let summary: String
    let run: @Sendable ([String]) throws -> Int32
}

let commands: [Command] = [
    // Each command file defines one `Command` value; list it here.
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
    channelsCommand,
    activitiesCommand,
]

@MainActor func usage() -> String {
    var s = "usage: activity-push <command> [options]\n\ncommands:\n"
    for c in commands { s += "  " + c.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.summary + "\n" }
    s += "\nRun 'activity-push <command> --help' for a command's options."
    return s
}

// A peer or a pipe that closes mid-write is an error on that write, never the end of the process (SIGPIPE would
// kill `send`, `worker` or `serve` with exit 141 and lose what they hold).
signal(SIGPIPE, SIG_IGN)

let argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
    print(usage())
    exit(argv.isEmpty ? 2 : 0)
}
guard let command = commands.first(where: { $0.name == name }) else {
    printError("activity-push: unknown command '\(name)'; run 'activity-push --help' for the list of commands")
    exit(2)
}
do {
    exit(try command.run(Array(argv.dropFirst())))
} catch let e as UsageError {
    printError("activity-push \(name): \(e.description)")
    exit(2)
} catch {
    printError("activity-push \(name): \(error)")
    exit(2)
}
