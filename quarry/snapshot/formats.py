"""Data formats told by their own parsers. Magika reads a window of a file (its first and last
kilobytes) and is often unsure of a short or unusual JSON, XML, TOML, YAML or CSS file, or sure of it
while the token model, which knows no data format, leans to some language it lacks; a parser reads
the whole text and either takes it or not. An XML document's root element names the XML language
it is written in (an XSLT stylesheet, an XHTML page).

Only a whole text is read (a record cut to the content window does not parse), and a parser only
confirms what the text starts as (JSON, XML after its declaration) or what Magika leans to (the
others): YAML takes most lines of `key: value`, TOML most of `key = 1`.
"""

from __future__ import annotations

import json
import re
import tomllib
import xml.parsers.expat

import yaml

XSLT_NAMESPACE = "http://www.w3.org/1999/XSL/Transform"
XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml"


_JSON_OPENING = re.compile(r"\s*[\[{]")   # read on every nameless record: no copy of the text


def json_document(text: str) -> str | None:
    """"JSON" where the whole text is one JSON object or array with something in it; "JSON-LD"
    where that object declares its linked data's context."""
    if not _JSON_OPENING.match(text):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and "@context" in value:
        return "JSON-LD"
    return "JSON" if isinstance(value, (dict, list)) and value else None


def xml_document(text: str) -> str | None:
    """"XML" where the whole text is a well-formed XML document; "XSLT" or "HTML" where its root
    element is a stylesheet's or a page's."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    roots: list[str] = []
    parser.StartElementHandler = lambda name, attributes: roots.append(name) if not roots else None
    try:
        parser.Parse(text, True)
    except (xml.parsers.expat.ExpatError, ValueError, RecursionError):
        return None
    if not roots:
        return None
    namespace, _, local = roots[0].rpartition(" ")
    if namespace == XSLT_NAMESPACE and local in ("stylesheet", "transform"):
        return "XSLT"
    if local == "html" and namespace in ("", XHTML_NAMESPACE):
        return "HTML"
    return "XML"


def declared_xml(text: str) -> str | None:
    """The XML language (as ``xml_document`` names it) of a whole text that opens with an XML
    declaration (``<?xml version="1.0"?>``) and that expat takes whole, whatever Magika leans to
    (it reads a Qt translation, a `.ts` file, as TypeScript)."""
    return xml_document(text) if text.startswith(("<?xml", "\ufeff<?xml")) else None


def toml_document(text: str) -> str | None:
    try:
        return "TOML" if _structured(tomllib.loads(text)) else None
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None


def yaml_document(text: str) -> str | None:
    """"YAML" where the whole text is YAML documents, one of them structured (every line of prose
    is a YAML string, and `Authors:` over a list of names a mapping of one string)."""
    try:
        documents = list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    return "YAML" if any(_structured(document) for document in documents) else None


def _structured(value: object) -> bool:
    """A mapping or list of two entries or more, or one that holds a mapping or list: more than
    one key and its text, which a heading over a paragraph also reads as."""
    if not isinstance(value, (dict, list)):
        return False
    entries = list(value.values()) if isinstance(value, dict) else value
    return len(entries) >= 2 or any(isinstance(entry, (dict, list)) for entry in entries)


_CSS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_STATEMENT = re.compile(r"@(?:import|charset|namespace|layer)\b[^;{}]*;")
_CSS_GROUP = re.compile(r"@(?:media|supports|container|layer|document|-moz-document|"
                        r"(?:-webkit-|-moz-|-o-)?keyframes)\b")
_CSS_DECLARATIONS = ("@font-face", "@page", "@viewport", "@counter-style", "@property")
_CSS_ATTRIBUTE = re.compile(r"\[[^\]]*\]")       # `[type=text]`: a selector's only `=`
_CSS_DECLARATION = re.compile(r"\s*(?:--[\w-]+|[*_]?-?[A-Za-z][\w-]*)\s*:[^;]*")


def css_stylesheet(text: str) -> str | None:
    """"CSS" where the whole text is CSS rules: selectors over blocks of `property: value`
    declarations, at-rule statements, and groups of rules (`@media`, `@keyframes`); a variable
    (`$x`, `@x:`), a nested rule or a mixin call is SCSS's or Less's, never CSS's."""
    bare = _CSS_STATEMENT.sub(" ", _CSS_COMMENT.sub(" ", _CSS_STRING.sub('""', text)))
    parts = re.split(r"([{}])", bare)       # text, brace, text, brace, ...: read once, left to right
    open_blocks: list[str] = []             # "group" or "rule"
    rules = 0
    for at in range(0, len(parts), 2):
        segment, brace = parts[at], parts[at + 1] if at + 1 < len(parts) else ""
        inside_rule = bool(open_blocks) and open_blocks[-1] == "rule"
        if inside_rule:
            if brace != "}" or not all(_CSS_DECLARATION.fullmatch(d) for d in segment.split(";") if d.strip()):
                return None                 # a nested rule (SCSS, Less) or no declaration
            open_blocks.pop()
            rules += 1
            continue
        prelude = segment.strip()
        if brace == "{":
            if _CSS_GROUP.match(prelude):
                open_blocks.append("group")
            elif prelude and not set(_CSS_ATTRIBUTE.sub("", prelude)) & set("$&;=") and (
                    not prelude.startswith("@") or prelude.startswith(_CSS_DECLARATIONS)):
                open_blocks.append("rule")
            else:
                return None
        elif prelude or (brace == "}" and not open_blocks):
            return None                     # text outside any rule, or a brace closing nothing
        elif brace == "}":
            open_blocks.pop()
    return "CSS" if rules >= 2 and not open_blocks else None


# Magika's lean (a Pygments name) -> the parser that confirms it (JSON is read before any model)
PARSERS = {"XML": xml_document, "HTML": xml_document, "TOML": toml_document, "YAML": yaml_document,
           "CSS": css_stylesheet}


def confirmed(name: str, text: str) -> str | None:
    """The format ``name`` (or the XML language: an XHTML page Magika leans to HTML for) where its
    parser takes the whole ``text``."""
    parse = PARSERS.get(name)
    return parse(text) if parse else None
