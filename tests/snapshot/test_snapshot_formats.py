"""Data formats told by their own parsers where Magika is unsure of them, or sure while the token
model (which knows no data format) leans elsewhere: the whole text parsed, an XML document's root
naming its language, and prose or loose `key: value` lines left to the models."""

from __future__ import annotations

import pytest

from quarry.snapshot import formats, language

CONFIG_XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<service name="tally">\n'
              '  <listen port="8080" host="127.0.0.1"/>\n'
              '  <storage kind="sqlite">\n    <path>/var/lib/tally/counts.db</path>\n  </storage>\n'
              '  <users>\n    <user name="reader" role="read"/>\n    <user name="writer" role="write"/>\n  </users>\n'
              '</service>\n')
XSLT = ('<?xml version="1.0"?>\n<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">\n'
        '  <xsl:template match="/service">\n    <p>Service <xsl:value-of select="@name"/></p>\n  </xsl:template>\n'
        '</xsl:stylesheet>\n')
XHTML = ('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">\n  <head><title>Tally</title></head>\n'
         '  <body><p>Counts by word.</p></body>\n</html>\n')
COMPOSE = ('services:\n  tally:\n    image: tally:1.4\n    ports:\n      - "8080:8080"\n    volumes:\n'
           '      - counts:/var/lib/tally\nvolumes:\n  counts: {}\n')
CARGO = ('[package]\nname = "tally"\nversion = "1.4.0"\nedition = "2021"\n\n[dependencies]\n'
         'serde = { version = "1", features = ["derive"] }\n')
JSON_DOC = '{"name": "tally", "version": "1.4.0", "scripts": {"test": "pytest"}, "keywords": ["words", "counts"]}\n'
# a Qt Linguist translation (`.ts`): Magika leans to TypeScript, unsure; its declaration and parse say XML
TRANSLATION = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="fr_FR">\n'
               '<context>\n    <name>TallyWindow</name>\n    <message>\n'
               '        <location filename="../tallywindow.cpp" line="42"/>\n'
               '        <source>Count words</source>\n        <translation>Compter les mots</translation>\n'
               '    </message>\n</context>\n</TS>\n')


@pytest.mark.parametrize("text,expected", [(CONFIG_XML, "XML"), (XSLT, "XSLT"), (XHTML, "HTML"), (COMPOSE, "YAML"),
                                           (CARGO, "TOML"), (JSON_DOC, "JSON"), (TRANSLATION, "XML")])
def test_a_nameless_data_file_is_named_by_its_parser(text, expected):
    assert language.detect("00000007", text.encode()[:512], text) == expected


INI = "[server]\nhost = tally.example.org\nport = 8080\n\n[storage]\npath = /var/lib/tally\n"
AUTHORS = "Authors:\n\n    Ada Byron\n    Grace Hopper\n    Edsger Dijkstra\n"
PROSE = "Counting words is easy; counting them well is not.\nNote: the list below is sorted.\n"


def test_each_parser_takes_its_format_whole_and_nothing_less():
    assert formats.confirmed("XML", CONFIG_XML) == "XML" and formats.confirmed("XML", CONFIG_XML[:-12]) is None
    assert formats.confirmed("HTML", XHTML) == "HTML" and formats.confirmed("HTML", "<p>Counts<br></p>") is None
    assert formats.confirmed("TOML", CARGO) == "TOML" and formats.confirmed("TOML", INI) is None   # bare values
    assert formats.confirmed("YAML", COMPOSE) == "YAML"
    # one key over a paragraph, or prose with a colon: YAML strings, not a YAML file
    assert formats.confirmed("YAML", AUTHORS) is None and formats.confirmed("YAML", PROSE) is None
    assert formats.json_document(JSON_DOC) == "JSON"
    assert formats.json_document("{}") is None and formats.json_document('"a string"') is None
    assert formats.json_document("[" * 100_000 + "]" * 100_000) is None    # too deep for the parser: no answer
    assert formats.confirmed("Python", "x = 1\n") is None                   # no parser: the models decide
    assert formats.declared_xml(TRANSLATION) == "XML" and formats.declared_xml(XSLT) == "XSLT"
    assert formats.declared_xml(TRANSLATION[:-6]) is None      # cut short: not well-formed, the models decide
    # no declaration: Magika's lean decides
    assert formats.declared_xml(TRANSLATION[TRANSLATION.index("<TS"):]) is None



STYLESHEET = ('/* tally\'s pages */\n@charset "utf-8";\n@import url("base.css");\n'
              'body { margin: 0; font: 14px/1.4 sans-serif; }\n'
              '@media (max-width: 600px) {\n  .nav a { display: block; }\n  .nav { padding: 0 }\n}\n'
              '@font-face { font-family: "Tally"; src: url(t.woff2) format("woff2"); }\n'
              'input[type="text"], a:hover { color: #c00 !important; content: "{;}"; }\n'
              '@keyframes spin { from { transform: rotate(0deg); } to { transform: rotate(360deg); } }\n')
SCSS = "$accent: #c00;\n.nav {\n  padding: 0;\n  a { color: $accent; }\n  &:hover { color: red; }\n}\n"
LESS = "@accent: #c00;\n.bordered() { border: 1px solid; }\n.nav { color: @accent; .bordered(); }\n"
SCRIPT = "const page = { title: 'Tally' }\nconst style = { color: 'red' }\n"


def test_a_stylesheet_is_css_only_where_every_rule_is_plain_css():
    assert formats.confirmed("CSS", STYLESHEET) == "CSS"
    # variables, nested rules, `&`, mixin calls: SCSS's and Less's; an object literal is no rule
    for text in (SCSS, LESS, SCRIPT, STYLESHEET.replace("}\n@font-face", "\n@font-face")):
        assert formats.confirmed("CSS", text) is None, text


def test_a_json_document_with_a_linked_data_context_is_json_ld():
    assert formats.json_document('{"@context": "https://schema.org", "@type": "Dataset", "name": "tally"}') == "JSON-LD"
    assert formats.json_document('{"data": {"@context": "https://schema.org"}, "total": 3}') == "JSON"
    assert formats.json_document('[{"@context": "https://schema.org"}]') == "JSON"

