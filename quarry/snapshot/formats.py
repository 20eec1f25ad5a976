"""Data formats told by their own parsers. Magika reads a window of a file (its first and last
kilobytes) and is often unsure of a short or unusual JSON, XML, TOML or YAML file, or sure of it
while the token model, which knows no data format, leans to some language it lacks; a parser reads
the whole text and either takes it or not. An XML document's root element names the XML language
it is written in (an XSLT stylesheet, an XHTML page).

Only a whole text is read (a record cut to the content window does not parse), and a parser only
confirms what the text starts as (JSON) or what Magika leans to (the others): YAML takes most
lines of `key: value`, TOML most of `key = 1`.
"""

from __future__ import annotations

import json
import tomllib
import xml.parsers.expat

import yaml

XSLT_NAMESPACE = "http://www.w3.org/1999/XSL/Transform"
XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml"


def json_document(text: str) -> str | None:
    """"JSON" where the whole text is one JSON object or array with something in it."""
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
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


# Magika's lean (a Pygments name) -> the parser that confirms it
PARSERS = {"JSON": json_document, "XML": xml_document, "HTML": xml_document, "TOML": toml_document,
           "YAML": yaml_document}


def confirmed(name: str, text: str) -> str | None:
    """The format ``name`` (or the XML language: an XHTML page Magika leans to HTML for) where its
    parser takes the whole ``text``."""
    parse = PARSERS.get(name)
    return parse(text) if parse else None
