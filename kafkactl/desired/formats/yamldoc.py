"""The compact desired-state document: YAML (or JSON) whose mappings know their lines, and the JSON Schema that
checks it and, through its one scope definition, every other way a scope is written."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast

from kafkactl.acl.model import shown
from kafkactl.desired.formats.text import MAX_DEPTH, decode, first_line, read_bytes
from kafkactl.errors import StateFileError

if TYPE_CHECKING:  # PyYAML is imported when a document is read, never by `kafkactl --help`
    from jsonschema import ValidationError
    from yaml import SafeLoader
    from yaml.nodes import MappingNode, Node

# libyaml's own composer recurses in C and overflows the stack (a segfault) near 30,000 levels: see _yaml_loader
# aliases may repeat a node, but not multiply the document (`a: &a [*b, *b, ...]`, nine levels: 10**9 nodes)
MAX_ALIAS_GROWTH = 100_000


class Map(dict[str, Any]):
    """A YAML mapping that knows its line, and each key's."""

    __slots__ = ("key_lines", "line")
    line: int
    key_lines: dict[str, int]


def key_where(where: str, mapping: Any, key: str) -> str:
    """`file:line` of a key of a mapping read from YAML (the mapping's own `where` when its lines are unknown: JSON,
    a mapping made in code)."""
    line = getattr(mapping, "key_lines", {}).get(key)
    return where if line is None else f"{where.rsplit(':', 1)[0]}:{line}"


class _Document(Protocol):
    """What is used of the loader classes below (made when PyYAML is imported, so unnamed outside): one
    document..."""

    yaml_constructors: ClassVar[dict[str | None, Any]]

    def __init__(self, stream: str) -> None: ...

    def get_single_data(self) -> Any: ...

    def dispose(self) -> None: ...


class _Documents(_Document, Protocol):
    """...or every document of a stream."""

    def check_node(self) -> bool: ...

    def get_single_node_of_many(self) -> Node | None: ...

    def construct_document(self, node: Node | None) -> Any: ...


def _yaml_loader() -> type[_Documents]:
    import yaml

    if TYPE_CHECKING:  # the type checker's view of either parser below
        from yaml import SafeLoader as Parser
    elif hasattr(yaml, "CSafeLoader"):
        # libyaml parses (fast, iteratively); composing in Python bounds the nesting depth, which libyaml's own
        # recursive composer does not
        class Parser(yaml.composer.Composer, yaml.CSafeLoader):
            def __init__(self, stream):
                yaml.CSafeLoader.__init__(self, stream)
                yaml.composer.Composer.__init__(self)
    else:  # PyYAML without libyaml: its SafeLoader composes in Python already (Composer, then it, has no MRO)
        Parser = yaml.SafeLoader

    class Loader(Parser):
        def __init__(self, stream: str) -> None:
            Parser.__init__(self, stream)
            self.depth, self.aliased = 0, False

        def compose_node(self, parent: Node | None, index: int) -> Node | None:
            self.aliased = self.aliased or self.check_event(yaml.AliasEvent)
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels",
                                                      self.peek_event().start_mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def get_single_node(self) -> Node | None:
            node = super().get_single_node()
            if node is not None and self.aliased:
                _check_alias_growth(node)
                _check_expanded_depth(node)
            return node

        def get_single_node_of_many(self) -> Node | None:
            """The next document of a stream, its aliases bounded as get_single_node bounds one document's."""
            self.aliased = False
            node = self.get_node()
            if node is not None and self.aliased:
                _check_alias_growth(node)
                _check_expanded_depth(node)
            return node

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    return Loader


def _construct_mapping(loader: SafeLoader, node: MappingNode, deep: bool = False) -> Map:
    """A mapping as a Map that knows its line; a key that is not a string, or twice in it, is refused."""
    import yaml

    seen = set()
    lines = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(None, None, f"a key is not a string ({key!r})",
                                                    key_node.start_mark)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
        lines[key] = key_node.start_mark.line + 1
    pairs = yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=deep)
    mapping = Map(cast("dict[str, Any]", pairs))  # every key is a string (checked above)
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = lines
    return mapping


def _fast_yaml_loader() -> type[_Document] | None:
    """libyaml's own composer (several times faster than composing in Python) when the libyaml in use stops at
    a nesting depth its recursion survives (0.2.6 stops at 1,000 levels); then an iterative walk of the nodes
    bounds the depth at MAX_DEPTH and, when a node is reached twice (an alias), checks the aliases. None when
    this libyaml does not bound nesting."""
    import yaml

    if not _libyaml_bounds_nesting():
        return None
    slow = _yaml_loader()

    class FastLoader(yaml.CSafeLoader):
        def get_single_node(self) -> Node | None:
            node = super().get_single_node()
            if node is not None:
                _check_depth_and_aliases(node)
            return node

    FastLoader.yaml_constructors = slow.yaml_constructors
    return FastLoader


_PROBE: dict[str, bool] = {}


def _libyaml_bounds_nesting() -> bool:
    if "bounded" not in _PROBE:
        import yaml

        bounded = False
        if hasattr(yaml, "CSafeLoader"):
            try:
                yaml.load("[" * 1200, Loader=yaml.CSafeLoader)
            except yaml.YAMLError as exc:
                bounded = getattr(exc, "problem", None) == "exceeded maximum nesting depth"
        _PROBE["bounded"] = bounded
    return _PROBE["bounded"]


def _check_depth_and_aliases(root: Node) -> None:
    """The Python composer's bounds, on a composed graph: no node deeper than MAX_DEPTH (the root is at 1, a
    mapping's keys and values one below it), in document order; aliases as _check_alias_growth bounds them."""
    import yaml

    seen: set[int] = set()
    aliased = False
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            aliased = True
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            stack.extend((child, depth + 1) for pair in reversed(node.value) for child in reversed(pair))
    if aliased:
        _check_alias_growth(root)
        _check_expanded_depth(root)


def _check_expanded_depth(root: Node) -> None:
    """The depth the document has once its aliases are expanded (an alias adds its node's own depth where it
    stands: 20 anchors of 58 levels, each holding the last, nest 1,200 deep): refused past MAX_DEPTH, at the
    first node of a deepest path that lies past it. Called after _check_alias_growth, so the graph has no cycle."""
    import yaml

    def children(node: Node) -> list[Node]:
        return (list(node.value) if isinstance(node, yaml.SequenceNode) else
                [x for kv in node.value for x in kv] if isinstance(node, yaml.MappingNode) else [])

    height: dict[int, int] = {}
    stack = [(root, False)]
    while stack:  # post-order, iteratively: each node's height once its children's are known
        node, ready = stack.pop()
        if id(node) in height:
            continue
        kids = children(node)
        if ready:
            height[id(node)] = 1 + max((height[id(k)] for k in kids), default=0)
        else:
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in height)
    if height[id(root)] <= MAX_DEPTH:
        return
    node, depth = root, 1
    while depth <= MAX_DEPTH:  # down a deepest path to the first node past the bound
        node = max(children(node), key=lambda k: height[id(k)])
        depth += 1
    raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels (with its aliases "
                                      "expanded)", node.start_mark)


def _check_alias_growth(root: Node) -> None:
    """Aliases make a graph of the nodes: refuse a cycle, or a document that would expand past the bound."""
    import yaml

    sizes: dict[int, int | None] = {}

    def size(node: Node) -> int:
        if id(node) in sizes:
            known = sizes[id(node)]
            if known is None:
                raise yaml.composer.ComposerError(None, None, "an alias refers to a node that contains it",
                                                  node.start_mark)
            return known
        sizes[id(node)] = None
        children = (node.value if isinstance(node, yaml.SequenceNode) else
                    [x for kv in node.value for x in kv] if isinstance(node, yaml.MappingNode) else [])
        sizes[id(node)] = total = 1 + sum(size(c) for c in children)
        return total

    if size(root) > len(sizes) + MAX_ALIAS_GROWTH:
        raise yaml.composer.ComposerError(None, None, f"aliases expand it to more than {MAX_ALIAS_GROWTH:,} "
                                          "extra nodes", root.start_mark)


def yaml_document(path: Path) -> Any:
    """The document, each mapping a Map with its line."""
    docs = yaml_documents(path, single=True)
    return docs[0] if docs else None


def yaml_documents(path: Path, single: bool = False) -> list[Any]:
    """Every document of a stream (`---` between them), each checked as yaml_document checks one."""
    import yaml

    text = decode(read_bytes(path), path)
    try:
        if single:
            one = (_fast_yaml_loader() or _yaml_loader())(text)
            try:  # what yaml.load does
                return [one.get_single_data()]
            finally:
                one.dispose()
        loader = _yaml_loader()(text)
        try:
            docs = []
            while loader.check_node():
                docs.append(loader.construct_document(loader.get_single_node_of_many()))
            return docs
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            line = mark.line + 1
        else:  # a ReaderError (a control character in the text) has only an offset
            line = text.count("\n", 0, getattr(exc, "position", 0) or 0) + 1
        what = getattr(exc, "problem", None) or getattr(exc, "reason", None) or "syntax error"
        if what == "exceeded maximum nesting depth":  # libyaml >= 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000
            what = f"nested deeper than {MAX_DEPTH} levels"
        raise StateFileError(f"{path}:{line}: not valid YAML ({first_line(what)})") from None
    except RecursionError:
        raise StateFileError(f"{path}: not valid YAML (nested too deeply)") from None
    except ValueError as exc:  # a scalar no constructor can build: an int of 5,000 digits, a 13th month
        raise StateFileError(f"{path}: not valid YAML ({first_line(exc)})") from None


# ------------------------------------------------------------------------------------------ schema


def check_schema(where: Any, instance: Any, definition: str | None = None, prefix: str = "") -> None:
    """Validate against the desired-state JSON Schema, or one of its $defs (e.g. "scope"). The error names the
    line of the innermost YAML mapping on its path (`where` is the file then) and the field."""
    if definition is None and _fast_valid(instance):
        return
    validator = _validators()[definition]
    # a wrong apiVersion or kind first: what else is missing follows from it (`kind: Stat` is not "scope is
    # required", the rule of the kind the file does not have)
    errors = sorted(validator.iter_errors(instance),
                    key=lambda e: (list(e.absolute_path)[:1] not in (["apiVersion"], ["kind"]), list(e.absolute_path)))
    if errors:
        e = errors[0]
        path = list(e.absolute_path)
        line = _line_of(instance, path)
        place = f"{where}:{line}" if line is not None else str(where)
        field_path = ".".join([prefix] * bool(prefix) + [str(p) for p in path]) or "(top level)"
        from kafkactl.redact import may_be_secret

        # a secret's value (or part of it) is never repeated (`scram:` holds a mechanism and iterations too)
        if any(may_be_secret(str(p)) and p != "scram" for p in path):
            # ("password: not valid" would read as an assignment, and the output's scrub would mask "not")
            raise StateFileError(f"{place}: {field_path} takes no value in clear here (a secret is given as "
                                 "{env: NAME} or {file: PATH})")
        raise StateFileError(f"{place}: {field_path}: {_short(e)}")


_VALIDATORS: dict[str | None, Any] = {}  # jsonschema's validators, by $defs name (None: the whole schema)
# a document whose lists hold more items than this is first checked by fastjsonschema's compiled validator,
# about ten times faster than jsonschema (20,000 topics: 0.12 s, not 1.2 s); compiling it costs 60 ms, more
# than jsonschema takes over a small file. Only its "valid" is taken: when it says no, or fails, jsonschema
# checks the document and names the error, so a difference between the two can only refuse, never admit.
FAST_ABOVE = 1_000


def _fast_valid(instance: Any) -> bool:
    if not isinstance(instance, dict) or sum(len(v) for v in instance.values() if isinstance(v, list)) <= FAST_ABOVE:
        return False
    if None not in _FAST:
        import fastjsonschema

        schema = json.loads(Path(__file__).with_name("acl-state.schema.json").read_text(encoding="utf-8"))
        _FAST[None] = fastjsonschema.compile(_as_draft7(schema), use_default=False, use_formats=False)
    try:
        _FAST[None](instance)
    except Exception:  # noqa: BLE001 - its "no" (or any failure) is jsonschema's to explain
        return False
    return True


_FAST: dict[None, Callable[[Any], Any]] = {}  # fastjsonschema's compiled validator


def _as_draft7(node: Any) -> Any:
    """The schema in draft 7's words, meaning the same under fastjsonschema: dependentRequired is draft 7's
    array-valued dependencies; a $ref beside other keywords (ignored beside it in draft 7) goes into an allOf;
    a boolean const also names its type (fastjsonschema compares with ==, and 1 == True in Python)."""
    if isinstance(node, list):
        return [_as_draft7(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in ("properties", "$defs", "patternProperties"):
            out[k] = {name: _as_draft7(sub) for name, sub in v.items()}
        elif k == "dependentRequired":
            out["dependencies"] = v
        elif k == "$schema":
            out[k] = "http://json-schema.org/draft-07/schema#"
        else:
            out[k] = _as_draft7(v)
    if isinstance(out.get("const"), bool) or (isinstance(out.get("enum"), list)
                                              and any(isinstance(e, bool) for e in out["enum"])):
        out = {"allOf": [{"enum": out.pop("enum")} if "enum" in out else {"const": out.pop("const")},
                         {"not": {"type": ["integer", "number"]}}], **out}
    if "$ref" in out and set(out) - {"$ref", "description", "title"}:
        out = {"allOf": [{"$ref": out.pop("$ref")}], **out}
    return out


def _validators() -> dict[str | None, Any]:
    if not _VALIDATORS:
        import jsonschema

        schema = json.loads(Path(__file__).with_name("acl-state.schema.json").read_text(encoding="utf-8"))
        _VALIDATORS[None] = jsonschema.Draft202012Validator(schema)
        for name in schema["$defs"]:
            _VALIDATORS[name] = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{name}"})
    return _VALIDATORS


def _short(e: ValidationError) -> str:
    """jsonschema's message quotes the whole value: a one-line message quotes at most the start of it."""
    text: str = e.message
    if len(text) <= 200:
        return text
    if e.validator == "type":
        value = shown(e.instance) if isinstance(e.instance, str) else f"a {type(e.instance).__name__}"
        return f"{value} is not of type {e.validator_value!r}"
    return text[:197] + "..."


def _line_of(doc: Any, path: Iterable[str | int]) -> int | None:
    line, node = getattr(doc, "line", None), doc
    for p in path:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
        line = getattr(node, "line", line)
    return line
