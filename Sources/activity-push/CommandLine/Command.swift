/// One `activity-push` command (or a subcommand of one): its name, the options it declares in groups, the help
/// written from them, and its run function. Each command lives in its own file (see `OptionSpec.swift` for
/// adding one).
struct Command: Sendable {
    /// `send`, `enqueue`.
    let name: String
    /// One line for the command list.
    let summary: String
    /// What follows `activity-push <name>` in the usage line: positionals and the shape of the options
    /// (`["[options] PAYLOAD.json"]`); more than one entry prints more than one line.
    let synopsis: [String]
    /// The options, in help order; the first group without a title holds the command's own options.
    let groups: [OptionGroup]
    /// Text after the options in help: inputs, exit statuses.
    let notes: String?
    /// `queue enqueue`, `queue status`: a command with subcommands has no `run` of its own.
    let subcommands: [Command]
    /// SIGINT / SIGTERM are caught by ``StopSignals`` from before the command starts — for the servers and the
    /// worker, which stop cleanly on them.
    let stopsOnSignals: Bool
    let run: (@Sendable (ParsedArguments) async throws -> Int32)?

    init(name: String, summary: String, synopsis: [String] = ["[options]"], groups: [OptionGroup] = [],
         notes: String? = nil, stopsOnSignals: Bool = false,
         run: @escaping @Sendable (ParsedArguments) async throws -> Int32) {
        self.name = name
        self.summary = summary
        self.synopsis = synopsis
        self.groups = groups
        self.notes = notes
        self.subcommands = []
        self.stopsOnSignals = stopsOnSignals
        self.run = run
    }

    /// A command made of subcommands (`queue enqueue|status|…`).
    init(name: String, summary: String, notes: String? = nil, subcommands: [Command]) {
        self.name = name
        self.summary = summary
        self.synopsis = ["<subcommand> [options]"]
        self.groups = []
        self.notes = notes
        self.subcommands = subcommands
        self.stopsOnSignals = false
        self.run = nil
    }

    /// Every option the command accepts.
    var options: [OptionSpec] { groups.flatMap(\.options) }

    /// The `--help` text, from the declarations. `path` is the name as typed (`queue enqueue`).
    func help(path: String) -> String {
        let prefix = "usage: activity-push \(path) "
        var lines: [String] = []
        for (index, line) in synopsis.enumerated() {
            lines.append((index == 0 ? prefix : String(repeating: " ", count: prefix.count)) + line)
        }
        if !subcommands.isEmpty {
            lines.append("subcommands:")
            let width = subcommands.map(\.name.count).max() ?? 0
            for subcommand in subcommands {
                lines.append("  " + subcommand.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + subcommand.summary)
            }
            lines.append("Run 'activity-push \(path) <subcommand> --help' for a subcommand's options.")
        }
        let visible = groups.map { group in (group.title, group.options.filter { !$0.isHidden }) }
        let leftWidth = min(26, (visible.flatMap(\.1).map(\.usageText.count).max() ?? 0) + 2)
        for (title, options) in visible where !options.isEmpty {
            if let title { lines.append("\n" + title + ":") }
            for option in options {
                var left = "  " + option.usageText
                left += left.count < leftWidth + 2 ? String(repeating: " ", count: leftWidth + 2 - left.count) : "  "
                let continuation = "\n" + String(repeating: " ", count: leftWidth + 2)
                lines.append(left + option.helpText.replacingOccurrences(of: "\n", with: continuation))
            }
        }
        if let notes { lines.append("\n" + notes) }
        return lines.joined(separator: "\n")
    }
}
