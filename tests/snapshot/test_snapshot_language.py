"""Language detection from Pygments' registry (names, extensions, shebangs, modelines) and
natural-language identification of prose with lingua."""

from __future__ import annotations

import json
from pathlib import Path

import magika
import pytest
from pygments.lexers import find_lexer_class

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
    ("LICENSE", b"Permission is granted to copy and share this text, provided this notice stays with it.\n",
     "Text only"),                                  # a name that says nothing: read from the content
    ("NOTES", b"MIT License\n", "unknown"),        # two words are too little to call prose
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


@pytest.mark.parametrize("text", ["# Placeholder\n", "# Marker file for PEP 561.\n",
                                  "Ada Lovelace <ada@example.org>\n", "Generic single-database configuration."])
def test_too_few_words_name_no_natural_language(text):
    # lingua answers these (Maori, Danish, Sesotho, Spanish) but four words say nothing certain
    assert language.natural_language(text, ["ALL"]) is None


def test_a_short_sentence_still_names_its_language():
    assert language.natural_language("Counts the values it reads.", ["ALL"]) == "en"
    assert language.natural_language("統計讀取的每個值並輸出結果", ["ALL"]) == "zh"


def test_every_content_model_label_names_a_language_or_is_deliberately_unknown():
    models = Path(magika.__file__).parent / "models"
    labels = {label for config in models.glob("*/config.min.json")
              for label in json.loads(config.read_text())["target_labels_space"]}   # the installed model's
    assert labels
    mapping = language.content_labels()
    assert len(labels) > 200 and not set(labels) - set(mapping)
    named = {name for name in mapping.values() if name != language.UNKNOWN}
    assert all(find_lexer_class(name) is not None for name in named)
    assert {"htaccess", "rdf", "csproj", "gradle", "postscript"} <= {label for label, name in mapping.items() if name != "unknown"}


def test_no_label_is_unknown_where_the_names_of_its_files_give_a_language():
    # Magika's own knowledge base lists each label's extensions: a label mapped to nothing while
    # a file of that extension is named by its name (`.reg`: Windows registry files) loses answers
    import magika
    kb = json.loads((Path(magika.__file__).parent / "config" / "content_types_kb.min.json").read_text())
    unnamed = {label: [language.from_name(f"x.{extension}") for extension in kb[label].get("extensions", [])]
               for label, name in language.content_labels().items() if name == language.UNKNOWN and label in kb}
    assert {label: names for label, names in unnamed.items() if any(names)} == {}


BASIC = '10 PRINT "HELLO"\n20 FOR I = 1 TO 10\n30 PRINT I\n40 NEXT I\n50 GOTO 10\n'
FORTH = ": square ( n -- n*n ) dup * ;\n: cube ( n -- n ) dup square * ;\n5 cube .\n"
COBOL = ('       identification division.\n       program-id. greet.\n       procedure division.\n'
         '           display "hi".\n           stop run.\n')


@pytest.mark.parametrize("text", [BASIC, FORTH, COBOL, C])
def test_code_is_never_plain_text(text):
    assert not language.looks_like_prose(text)
    assert language.detect("00000007", text.encode()[:512], text) != "Text only"


def test_prose_with_addresses_and_parentheses_is_prose():
    text = ("Copyright (c) 2020 Ada Writer <ada@example.org>, and the contributors named in the\n"
            "history of this work. Everyone may copy and change it under the terms written below.\n")
    assert language.looks_like_prose(text)


def test_every_language_lingua_knows_is_the_default():
    from quarry.config.snapshot import SnapshotParams

    langs = SnapshotParams().natural_languages
    assert language.natural_language("Biblioteket läser konfigurationsfiler och rapporterar fel till användaren.",
                                     langs) == "sv"
    assert language.natural_language("Biblioteka czyta pliki konfiguracyjne i zgłasza błędy użytkownikowi.",
                                     langs) == "pl"
    assert language.natural_language("Kütüphane yapılandırma dosyalarını okur ve hataları kullanıcıya bildirir.",
                                     langs) == "tr"


def test_a_name_lingua_does_not_know_is_a_clear_error():
    from pydantic import ValidationError

    from quarry.config.snapshot import SnapshotParams

    with pytest.raises(ValidationError, match="KLINGON"):
        SnapshotParams(natural_languages=["ENGLISH", "KLINGON"])


ADA = ("with Ada.Text_IO; use Ada.Text_IO;\n\nprocedure Greet is\n   Count : Integer := 3;\nbegin\n"
       "   for I in 1 .. Count loop\n      Put_Line (\"Hello number\" & Integer'Image (I));\n   end loop;\n"
       "end Greet;\n")
FSHARP = ("// squares of a list, printed\nlet square x = x * x\n\nlet sumOfSquares (numbers: int list) =\n"
          "    numbers\n    |> List.map square\n    |> List.sum\n\n[<EntryPoint>]\nlet main argv =\n"
          "    printfn \"%d\" (sumOfSquares [1; 2; 3])\n    0\n")


@pytest.mark.parametrize("text,expected", [(ADA, "Ada"), (FSHARP, "F#")])
def test_the_token_model_names_languages_the_content_model_lacks(text, expected):
    assert expected not in language.content_labels().values()     # Magika reads them as VHDL and OCaml
    assert language.detect("00000007", text.encode()[:512], text) == expected


LUA_WITH_LICENCE = (
    "--[[\n  Copyright (c) 2024 The Tally Authors. All rights reserved.\n\n"
    "  Redistribution and use in source and binary forms, with or without modification, are\n"
    "  permitted provided that the conditions in the accompanying LICENSE file are met.\n]]\n\n"
    "-- count the words of each line read from standard input\nlocal counts = {}\n\nlocal function add(word)\n"
    "  counts[word] = (counts[word] or 0) + 1\nend\n\nfor line in io.lines() do\n"
    "  for word in line:gmatch(\"%a+\") do\n    add(word:lower())\n  end\nend\n\n"
    "local words = {}\nfor word in pairs(counts) do\n  words[#words + 1] = word\nend\n"
    "table.sort(words, function(a, b) return counts[a] > counts[b] end)\n\n"
    "for i = 1, math.min(10, #words) do\n  print(string.format(\"%-20s %d\", words[i], counts[words[i]]))\nend\n")


def test_a_weak_lean_to_a_language_the_content_model_lacks_does_not_undo_its_certainty():
    from quarry.snapshot import token_model

    # the licence's words lean the token model a little to Phix (`--` comments, `end`); Magika is certain
    guess = token_model.model().guess(LUA_WITH_LICENCE)
    assert guess.language not in language.content_labels().values()
    assert language.MIN_TOKEN_DOUBT <= guess.margin < language.MIN_TOKEN_MARGIN
    assert language.detect("00000007", LUA_WITH_LICENCE.encode()[:512], LUA_WITH_LICENCE) == "Lua"


def test_the_token_model_is_compact_and_leans_by_its_counts():
    from quarry.snapshot import token_model

    shipped = Path(token_model.__file__).with_name(token_model.MODEL)
    assert shipped.stat().st_size < 3_000_000 and len(token_model.model().languages) >= 100
    toy = token_model.build(["Left", "Right"], [{"begin": 5, "end": 5}, {"{": 5, "}": 5}], vocabulary=4)
    guess = toy.guess("begin x := 1 end")
    assert guess.language == "Left" and guess.margin > 0
    assert toy.guess("nothing either model saw") is None


EMACS_LISP = (";;; tidy-lines.el --- trim trailing blanks on save  -*- lexical-binding: t -*-\n\n"
              ";;; Code:\n\n(defun tidy-lines-trim ()\n  \"Trim the buffer's trailing blanks.\"\n"
              "  (save-excursion\n    (goto-char (point-min))\n    (while (re-search-forward \"[ \\t]+$\" nil t)\n"
              "      (replace-match \"\"))))\n\n(provide 'tidy-lines)\n;;; tidy-lines.el ends here\n")
RACKET = "#lang racket/base\n\n(define (square n) (* n n))\n(provide square)\n(displayln (map square '(1 2 3)))\n"
SCHEME = ("; sums of squares\n(define (square n) (* n n))\n(define total 0)\n(define (add! n)\n"
          "  (set! total (+ total (square n))))\n(for-each add! '(1 2 3))\n(if (> total 10) #t #f)\n")
COMMON_LISP = ("(defpackage :shapes (:use :cl))\n(in-package :shapes)\n\n(defclass circle ()\n  ((radius :initarg :radius)))\n\n"
               "(defgeneric area (shape))\n(defmethod area ((c circle))\n  (* pi (expt (slot-value c 'radius) 2)))\n"
               "(format t \"~a~%\" (area (make-instance 'circle :radius 2)))\n")
MESON = ("project('tally', 'c', version : '1.0')\n\nsources = files('main.c', 'count.c')\nif get_option('tests')\n"
         "  subdir('tests')\nendif\nexecutable('tally', sources, install : true)\n"
         "install_headers('count.h', subdir : meson.project_name())\n")
RD = ("% Generated by hand\n\\name{tally}\n\\alias{tally}\n\\title{Count the values of a vector}\n\\usage{\ntally(x)\n}\n"
      "\\arguments{\n\\item{x}{a vector}\n}\n\\value{\nA table of counts.\n}\n\\description{\nCounts each value once.\n}\n")
LATEX = ("\\documentclass{article}\n\\title{A note on counting}\n\\author{A. Writer}\n\\begin{document}\n\\maketitle\n"
         "\\section{Counts}\nWe count each value once, as in \\cite{knuth}.\n\\end{document}\n")


@pytest.mark.parametrize("text,expected", [(EMACS_LISP, "EmacsLisp"), (RACKET, "Racket"), (SCHEME, "Scheme"),
                                           (COMMON_LISP, "Common Lisp"), (MESON, "Meson"), (RD, "Rd"), (LATEX, "TeX")])
def test_languages_no_content_model_names_by_forms_only_they_write(text, expected):
    # Magika reads these as Lisp (one label for the family), Python or Starlark, and LaTeX
    assert language.detect("00000007", text.encode()[:512], text) == expected
