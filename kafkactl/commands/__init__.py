"""Thin Typer adapters, one module per noun: parse, call one core function, render."""
