"""Language detection from Pygments' registry (names, extensions, shebangs, modelines) and
natural-language identification of prose with lingua."""

from __future__ import annotations

import pytest

from quarry.snapshot import language


def test_registry_covers_500_languages():
    assert language.language_count() >= 500
    reg = language.registry()
    assert len(reg.by_extension) > 700 and "Makefile" in reg.by_filename


@pytest.mark.parametrize("path,head,expected", [
    ("src/a.py", b"x = 1\n", "Python"),
    ("lib/x.rs", b"fn main() {}\n", "Rust"),
    ("Makefile", b"all:\n", "Makefile"),
    ("docker/Dockerfile", b"FROM python\n", "Docker"),
    ("CMakeLists.txt", b"project(x)\n", "CMake"),
    ("main.go", b"package main\n", "Go"),
    ("a/b.tsx", b"export const A = () => <div/>;\n", "TSX"),
    ("notes.md", b"# Title\n", "Markdown"),
    ("conf.yaml", b"a: 1\n", "YAML"),
    ("x.json", b"{}", "JSON"),
    ("bin/tool", b"#!/usr/bin/env python3\nprint(1)\n", "Python"),
    ("bin/run", b"#!/bin/bash\necho\n", "Bash"),
    ("bin/perl-tool", b"#!/usr/bin/perl -w\nprint 1;\n", "Perl"),
    ("build", b"#!/usr/bin/env node\nconsole.log(1)\n", "JavaScript"),
    ("script", b"# vim: set filetype=ruby :\nputs 1\n", "Ruby"),
    ("setup", b"# -*- mode: python -*-\nx = 1\n", "Python"),
    ("tool.sh", b"# vim: ft=python\nprint(1)\n", "Python"),   # a modeline beats the extension
    ("LICENSE", b"MIT License\n", "Text only"),    # a name that says nothing: read from the content
])
def test_detect(path, head, expected):
    assert language.detect(path, head) == expected


@pytest.mark.parametrize("path,text,expected", [
    ("a.h", "int add(int a, int b);\n", "C"),
    ("a.m", "#import <Foundation/Foundation.h>\n@interface Foo : NSObject\n@end\n", "Objective-C"),
    ("a.m", "function y = f(x)\n  y = x.^2;\nend\n% comment\n", "Matlab"),
    ("a.pl", "use strict;\nmy $x = 1;\nprint $x;\n", "Perl"),
    ("a.pl", ":- module(a, []).\nfoo(X) :- bar(X).\n", "Prolog"),
])
def test_ambiguous_extensions_use_content_then_a_fixed_order(path, text, expected):
    first = language.detect(path, text.encode()[:512], text)
    assert first == expected
    assert all(language.detect(path, text.encode()[:512], text) == first for _ in range(3))


PERL = "package Quarry::Example;\nuse strict;\nuse warnings;\n\nsub new {\n    my ($class, %args) = @_;\n" \
       "    my $self = { name => $args{name} // 'x' };\n    return bless $self, $class;\n}\n\n1;\n"
C = "#include <stdio.h>\n\nstatic int add(int a, int b) {\n    return a + b;\n}\n\nint main(void) {\n" \
    "    printf(\"%d\\n\", add(1, 2));\n    return 0;\n}\n"
ROFF = '.\\" generated\n.TH QUARRY 1 "2026" "quarry"\n.SH NAME\nquarry \\- lineage\n.SH SYNOPSIS\n.B quarry\n'


@pytest.mark.parametrize("text,expected", [(PERL, "Perl"), (C, "C"), (ROFF, "Groff"),
                                           ("The river runs to the sea, and the sea is never full.\n" * 5, "Text only")])
def test_a_record_without_a_name_is_read_from_its_content(text, expected):
    assert language.detect("00000007", text.encode()[:512], text) == expected  # a corpus record's line number


def test_natural_language_of_prose():
    langs = ["ENGLISH", "GERMAN", "FRENCH", "SPANISH"]
    assert language.natural_language("This library parses configuration files and reports errors.", langs) == "en"
    assert language.natural_language("Diese Bibliothek liest Konfigurationsdateien und meldet Fehler.", langs) == "de"
    assert language.natural_language("Esta biblioteca lee archivos de configuración y reporta errores.", langs) == "es"
    assert language.natural_language("   ", langs) is None
