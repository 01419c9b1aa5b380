"""The command-line layer: the root command and its error mapping (root), the argv before Click reads it (argv),
the per-invocation context (context), shared options (options), completion callbacks (completers) and the shell
protocol (shell), progress bars, stderr messages, and the generated docs. The nouns live in kafkactl.commands."""
