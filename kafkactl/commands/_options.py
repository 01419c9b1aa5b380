"""Shared options, defined once."""

from __future__ import annotations

from typing import Annotated

import typer

Yes = Annotated[bool, typer.Option("--yes", "--force", "-y", help="Do not ask for confirmation (required when not on a terminal).")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show or validate what would be done; change nothing.")]
