"""`kafkactl completion bash|zsh|fish`: print a shell's completion script (kafkactl.cli.shell answers the requests)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Print the shell completion script.", no_args_is_help=True)


def _print(shell: str) -> None:
    from kafkactl.cli.shell import script

    typer.echo(script(shell), nl=False)


@app.command("bash")
def completion_bash() -> None:
    """Print the bash completion script.

    Example:  source <(kafkactl completion bash)     # or save it as ~/.local/share/bash-completion/completions/kafkactl
    """
    _print("bash")


@app.command("zsh")
def completion_zsh() -> None:
    """Print the zsh completion script.

    Example:  kafkactl completion zsh > "${fpath[1]}/_kafkactl"
    """
    _print("zsh")


@app.command("fish")
def completion_fish() -> None:
    """Print the fish completion script.

    Example:  kafkactl completion fish > ~/.config/fish/completions/kafkactl.fish
    """
    _print("fish")
